#if Serve
import Foundation
import Metrics
import Prometheus

/// The service's metrics, in a Prometheus registry of its own (not the process-wide `MetricsSystem`, so two servers
/// in one process, as in tests, count apart). `GET /metrics` prints them in Prometheus' text format:
///
/// - `pv_http_requests_total{route,status}` and `pv_http_request_duration_seconds{route}` (histogram),
/// - `pv_queue_waiting`, `pv_queue_running` (in flight on the engine), `pv_queue_rejected_total` (503s),
/// - `pv_engine_duration_seconds{operation}` (histogram: time on an engine thread, the model time of a request).
final class ServeMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let waiting: Metrics.Gauge
    private let running: Metrics.Gauge
    private let rejected: Metrics.Counter

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000].map { .milliseconds($0) }
        self.factory = factory
        waiting = Metrics.Gauge(label: "pv_queue_waiting", factory: factory)
        running = Metrics.Gauge(label: "pv_queue_running", factory: factory)
        rejected = Metrics.Counter(label: "pv_queue_rejected_total", factory: factory)
        waiting.record(0)
        running.record(0)
    }

    /// Counts one answered request.
    func request(route: String, status: Int, seconds: Double) {
        Metrics.Counter(label: "pv_http_requests_total", dimensions: [("route", route), ("status", String(status))], factory: factory).increment()
        Metrics.Timer(label: "pv_http_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(Int64(seconds * 1e9))
        if status == 503 { rejected.increment() }
    }

    /// Records what the engine queue reports.
    func queue(_ event: EngineQueue.QueueEvent) {
        switch event {
        case .depth(let w, let r):
            waiting.record(w)
            running.record(r)
        case .engineTime(let seconds, let operation):
            Metrics.Timer(label: "pv_engine_duration_seconds", dimensions: [("operation", operation)], factory: factory)
                .recordNanoseconds(Int64(seconds * 1e9))
        }
    }

    /// The text exposition.
    func text() -> String { registry.emitToString() }
}
#endif

#if Serve
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PVImaging
import PVThreads
import ServiceLifecycle
import UnixSignals

/// `peoplevision serve`: the HTTP API of `openapi.json` on Hummingbird, run by swift-service-lifecycle (SIGTERM and
/// SIGINT shut it down gracefully: the listener closes, requests already received finish, then the engine threads
/// end). Models load once, on the first engine thread, while the server already listens (`/readyz` says when).
package struct ServeServer: Sendable {
    package let configuration: ServeConfiguration
    let queue: EngineQueue
    let metrics: ServeMetrics
    let engine: any ServeEngine
    let logger: Logger

    /// A server over `engine`; its engine threads start now.
    package init(configuration: ServeConfiguration, engine: any ServeEngine, logger: Logger = Logger(label: "peoplevision.serve")) {
        self.configuration = configuration
        self.engine = engine
        self.logger = logger
        let metrics = ServeMetrics()
        self.metrics = metrics
        queue = EngineQueue(
            engine: engine, workers: configuration.concurrency, capacity: configuration.queueDepth,
            observer: { metrics.queue($0) })
    }

    /// The router with every route.
    package func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: RequestLogMiddleware(metrics: metrics, logger: logger))
        addPages(to: router)
        addEngineRoutes(to: router)
        return router
    }

    /// The Hummingbird application (listening where the configuration says, once run).
    package func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "peoplevision"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }

    /// Serves until SIGTERM or SIGINT, then finishes what is running and returns.
    /// - Parameter onRunning: Called with the bound port once the server listens.
    package func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: application(onRunning: onRunning))],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        defer { queue.shutdown() }
        try await group.run()
    }

    /// Blocks the calling thread in ``run(onRunning:)`` (for a synchronous command line).
    package func runBlocking(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws {
        let done = Handoff<Result<Void, Error>>(capacity: 1)
        Task {
            do {
                try await run(onRunning: onRunning)
                _ = done.put(.success(()))
            } catch {
                _ = done.put(.failure(error))
            }
        }
        try done.take()?.get()
    }

    /// The deadline of a request that starts now.
    var deadline: ContinuousClock.Instant { .now + .milliseconds(Int64(configuration.timeout * 1000)) }

    var limits: Upload.Limits { Upload.Limits(maxBodyBytes: configuration.maxBodyBytes, maxPixels: configuration.maxPixels) }

    /// Runs `operation` on `image` (named `name` in records) through the queue and answers with the engine's output.
    func answer(_ image: Data, _ operation: EngineJob.Operation, name: String? = nil) async throws -> Response {
        let output: EngineOutput
        do {
            output = try await queue.submit(EngineJob(image: image, operation: operation, name: name ?? "upload"), deadline: deadline)
        } catch let error as ServeError {
            throw error
        } catch let error as ImagingError {
            throw ServeError.image(error)
        } catch {
            throw ServeError(.unprocessableContent, "analysis_failed", "the image could not be analysed: \(error)")
        }
        return Response(
            status: .ok, headers: [.contentType: output.contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: output.body)))
    }
}
#endif

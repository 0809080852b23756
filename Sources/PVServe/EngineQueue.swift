#if Serve
import Foundation
import HTTPTypes
import PVCore
import PVThreads
import Synchronization

/// The engine's bounded queue: `workers` engine threads (started by PVThreads, one job each at a time) and at most
/// `capacity` jobs waiting for them. A job beyond that is refused at once (the service answers 503 with
/// `Retry-After`), so memory and latency stay bounded however many connections arrive.
///
/// A job given up while it waits (deadline, its task cancelled) is dropped without running; one given up while it runs
/// has its cancellation flag raised and stops before the engine's next model run.
package final class EngineQueue: Sendable {
    /// The engine threads.
    package let workers: Int
    /// How many jobs may wait beyond those running.
    package let capacity: Int
    private let engine: any ServeEngine
    private let handoff: Handoff<Entry>
    private let state = Locked<(waiting: Int, running: Int)>((0, 0))
    private let ready = Atomic<Bool>(false)
    private let observer: @Sendable (QueueEvent) -> Void

    /// What the queue reports to metrics.
    package enum QueueEvent: Sendable {
        /// The number of jobs waiting and running changed.
        case depth(waiting: Int, running: Int)
        /// A job ran on the engine for `seconds`.
        case engineTime(seconds: Double, operation: String)
    }

    /// Starts `workers` engine threads, the first of which loads the models (``isReady`` once it has).
    package init(engine: any ServeEngine, workers: Int, capacity: Int, observer: @escaping @Sendable (QueueEvent) -> Void = { _ in }) {
        self.engine = engine
        self.workers = max(1, workers)
        self.capacity = max(0, capacity)
        self.observer = observer
        handoff = Handoff(capacity: self.workers + self.capacity)
        for k in 0..<self.workers {
            DedicatedThread.start(named: "serve-engine-\(k)") { [self] in
                if k == 0 {
                    do { try engine.warmUp() } catch {}  // a model that fails to load fails its requests, with their error
                    ready.store(true, ordering: .releasing)
                }
                while let entry = try? handoff.take() { execute(entry) }
            }
        }
    }

    /// Whether the models are loaded.
    package var isReady: Bool { ready.load(ordering: .acquiring) }

    /// Jobs waiting and running now.
    package var depth: (waiting: Int, running: Int) { state.withLock { $0 } }

    /// Ends the engine threads once the jobs handed over are done (no new job is taken after this).
    package func shutdown() { handoff.close(nil) }

    /// 503 `queue_full`, with `Retry-After: 1`.
    private var full: ServeError {
        ServeError(
            .serviceUnavailable, "queue_full", "the server is busy (\(workers + capacity) requests queued or running); retry shortly",
            retryAfter: 1)
    }

    /// Throws 503 when the queue is full now, so that a request can be refused before its body is read (a job is
    /// admitted only by ``submit(_:deadline:)``, which checks again).
    package func checkRoom() throws {
        if state.withLock({ $0.waiting + $0.running >= workers + capacity }) { throw full }
    }

    /// Runs `job` on an engine thread and returns its output.
    /// - Throws: ``ServeError`` 503 when the queue is full, ``ServeError/timedOut`` past `deadline`, or the engine's
    ///   error.
    package func submit(_ job: EngineJob, deadline: ContinuousClock.Instant) async throws -> EngineOutput {
        let admitted = state.withLock { s -> Bool in
            guard s.waiting + s.running < workers + capacity else { return false }
            s.waiting += 1
            return true
        }
        guard admitted else { throw full }
        report()
        let entry = Entry(job: job)
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            if !Task.isCancelled { entry.finish(.failure(ServeError.timedOut)) }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                entry.attach(continuation)
                if !handoff.put(entry) { entry.finish(.failure(ServeError(.serviceUnavailable, "shutting_down", "the server is shutting down"))) }
            }
        } onCancel: {
            entry.finish(.failure(ServeError.timedOut))
        }
    }

    private func execute(_ entry: Entry) {
        state.withLock { s in
            s.waiting -= 1
            s.running += 1
        }
        report()
        if !entry.job.cancellation.isRaised {
            let start = ContinuousClock.now
            let result = Result { try Cancellation.run(under: entry.job.cancellation) { try engine.run(entry.job) } }
            let elapsed = start.duration(to: .now)
            observer(.engineTime(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
                                 operation: entry.job.operation.name))
            entry.finish(result)
        }
        state.withLock { s in s.running -= 1 }
        report()
    }

    private func report() {
        let (waiting, running) = depth
        observer(.depth(waiting: waiting, running: running))
    }

    /// A submitted job and the request waiting for it; finished once, by the engine or by giving up.
    private final class Entry: Sendable {
        let job: EngineJob
        private let waiter = Locked<(continuation: CheckedContinuation<EngineOutput, Error>?, result: Result<EngineOutput, Error>?)>((nil, nil))

        init(job: EngineJob) { self.job = job }

        func attach(_ continuation: CheckedContinuation<EngineOutput, Error>) {
            let early = waiter.withLock { w -> Result<EngineOutput, Error>? in
                if let result = w.result { return result }
                w.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func finish(_ result: Result<EngineOutput, Error>) {
            if case .failure = result { job.cancellation.raise() }
            let continuation = waiter.withLock { w -> CheckedContinuation<EngineOutput, Error>? in
                guard w.result == nil else { return nil }
                w.result = result
                defer { w.continuation = nil }
                return w.continuation
            }
            continuation?.resume(with: result)
        }
    }
}

extension EngineJob.Operation {
    /// The operation's name in metrics and logs.
    package var name: String {
        switch self {
        case .analyze: "analyze"
        case .segment: "segment"
        case .greet: "greet"
        case .cutout: "cutout"
        case .instances: "instances"
        case .remove: "remove"
        }
    }
}
#endif

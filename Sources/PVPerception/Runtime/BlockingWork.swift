import Foundation
import PVThreads

/// Long synchronous work (a whole perform: decoding and every model run) for async callers, on a thread of
/// ``PVThreads/ThreadReserve`` instead of a thread of Swift's cooperative pool, which has one thread per core and
/// would otherwise be held for seconds per call. The reserve keeps its threads parked between calls, so a call costs
/// a wake-up, not a thread start.
package enum BlockingWork {
    /// Runs `body` on a thread of the shared reserve and returns its result (or rethrows its error) to the waiting
    /// task.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await handOver(body, start: ThreadReserve.shared.run)
    }

    /// Runs `body` on a new thread named `name`, for work that lasts long (a whole video), and returns its result
    /// (or rethrows its error) to the waiting task.
    package static func run<T: Sendable>(named name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await handOver(body) { DedicatedThread.start(named: name, $0) }
    }

    /// Suspends the task while `start` runs `body` on another thread, then resumes it with the outcome.
    private static func handOver<T: Sendable>(
        _ body: @escaping @Sendable () throws -> T, start: (@escaping @Sendable () -> Void) -> Void
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            start { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// A request to stop a perform between model runs, raised from any thread (a cancelled task, `VNRequest.cancel()`).
/// Work run under it (``run(_:)``) and the side-by-side passes it starts check it before each model run, and stop with
/// ``PerceptionError`` `.cancelled`.
package struct StopRequest: Sendable {
    private let flag: CancellationFlag

    /// A request that also stops when the work around the calling thread is asked to stop.
    package init() { flag = CancellationFlag(parent: Cancellation.current) }

    /// Asks the work to stop.
    package func raise() { flag.raise() }

    /// Whether the work has been asked to stop (this request, or the work around it).
    package var isRaised: Bool { flag.isRaised }

    /// Runs `body` under this request.
    package func run<T>(_ body: () throws -> T) rethrows -> T { try Cancellation.run(under: flag, body) }

    /// Throws ``PerceptionError`` `.cancelled` when the current thread's work has been asked to stop: for long
    /// stages without a model run (model runs check by themselves).
    package static func check(before stage: String) throws {
        if Cancellation.isRequested { throw PerceptionError(.cancelled, "stopped before \(stage): the work was cancelled") }
    }
}

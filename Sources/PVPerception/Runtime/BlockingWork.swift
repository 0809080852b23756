import Foundation
import PVThreads

/// Long synchronous work (a whole perform: decoding and every model run) for async callers, on a thread of its own
/// (``PVThreads/DedicatedThread``) instead of a thread of Swift's cooperative pool, which has one thread per core and
/// would otherwise be held for seconds per call. Starting a thread costs tens of microseconds, nothing beside the
/// models.
package enum BlockingWork {
    /// Runs `body` on a new thread and returns its result (or rethrows its error) to the waiting task.
    package static func run<T: Sendable>(named name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            DedicatedThread.start(named: name) {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}

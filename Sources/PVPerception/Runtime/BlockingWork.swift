import Foundation
import Synchronization
import PVThreads

/// Long synchronous work for async callers: a whole perform (decoding and every model run), a whole video.
///
/// A perform runs in place, on the calling task's thread, while that leaves at least one thread of Swift's
/// cooperative pool (one per core) to other tasks: so a lone perform costs no thread hand-over, and a task that
/// waits to cancel it, or any other task of the process, still gets a thread. Performs beyond that run on a parked
/// thread of ``PVThreads/ThreadReserve`` while their task waits without holding a pool thread.
package enum BlockingWork {
    /// Runs `body` in place when `slots` has one free (the shared slots: while a pool thread can be spared), else on
    /// a thread of the shared reserve, and returns its result (or rethrows its error).
    package static func run<T: Sendable>(
        in slots: InPlaceSlots = .shared, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        if slots.take() {
            defer { slots.give() }
            return try body()
        }
        return try await handOver(body, start: ThreadReserve.shared.run)
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

/// How many performs may run in place at once, on their callers' threads.
package final class InPlaceSlots: Sendable {
    /// Every thread of the cooperative pool but one (none on one core), so that other tasks always get a thread.
    package static let shared = InPlaceSlots(
        limit: max(0, min(ProcessInfo.processInfo.activeProcessorCount, CPUBudget.available) - 1))

    /// Performs that may run in place at once.
    package let limit: Int
    private let taken = Atomic<Int>(0)

    package init(limit: Int) { self.limit = max(0, limit) }

    /// Takes a slot if one is free.
    func take() -> Bool {
        if taken.wrappingAdd(1, ordering: .relaxed).newValue <= limit { return true }
        taken.wrappingSubtract(1, ordering: .relaxed)
        return false
    }

    /// Gives a taken slot back.
    func give() { taken.wrappingSubtract(1, ordering: .relaxed) }
}

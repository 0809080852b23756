import Foundation
import Synchronization

/// Jobs that may add more jobs, run side by side on the calling thread and the ``WorkerPool``'s workers until none is
/// left: for a pipeline whose next steps are known only as earlier ones end (a detector's hits, each then a landmark
/// run), so that a core freed by one branch takes the next step of another at once instead of waiting for a join.
///
/// A thread finding the queue empty waits (yielding) while a job that may still add jobs runs, and leaves otherwise.
/// The first error thrown stops the start of further jobs and is rethrown by ``run(_:)``.
package final class JobQueue: Sendable {
    package typealias Job = @Sendable (JobQueue) throws -> Void

    private struct State {
        var jobs: [(job: Job, adds: Bool)] = []
        var runningAdders = 0
        var failure: (any Error)?
    }

    private let state = Mutex(State())

    private init() {}

    /// Runs `jobs` (each with whether it may call ``add(_:mayAddJobs:)``) and every job they add, and returns when all
    /// have returned.
    package static func run(_ jobs: [(job: Job, mayAddJobs: Bool)]) throws {
        let queue = JobQueue()
        queue.state.withLock { $0.jobs = jobs.map { ($0.job, $0.mayAddJobs) } }
        WorkerPool.shared.forEach(count: WorkerPool.shared.workers + 1) { _ in queue.drain() }
        if let failure = queue.state.withLock({ $0.failure }) { throw failure }
    }

    /// Adds a job, run after those already queued.
    package func add(_ job: @escaping Job, mayAddJobs: Bool = false) {
        state.withLock { $0.jobs.append((job, mayAddJobs)) }
    }

    private func drain() {
        enum Next { case run(Job, adds: Bool), wait, leave }
        while true {
            let next = state.withLock { s -> Next in
                if s.failure != nil { return .leave }
                if !s.jobs.isEmpty {
                    let first = s.jobs.removeFirst()
                    if first.adds { s.runningAdders += 1 }
                    return .run(first.job, adds: first.adds)
                }
                return s.runningAdders > 0 ? .wait : .leave
            }
            switch next {
            case .leave: return
            case .wait: sched_yield()
            case .run(let job, let adds):
                do { try job(self) } catch { state.withLock { s in if s.failure == nil { s.failure = error } } }
                if adds { state.withLock { $0.runningAdders -= 1 } }
            }
        }
    }
}

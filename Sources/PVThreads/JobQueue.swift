import Foundation
import PVCore

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

    private let state = Locked(State())

    private init() {}

    /// Runs `jobs` (each with whether it may call ``add(_:mayAddJobs:)``) and every job they add, and returns when all
    /// have returned.
    package static func run(_ jobs: [(job: Job, mayAddJobs: Bool)]) throws {
        let queue = JobQueue()
        // A lone job that adds none runs on the caller: handing it to the pool would only wake a worker for nothing.
        if jobs.count == 1, !jobs[0].mayAddJobs { return try jobs[0].job(queue) }
        queue.state.withLock { $0.jobs = jobs.map { ($0.job, $0.mayAddJobs) } }
        WorkerPool.shared.forEach(count: WorkerPool.shared.workers + 1) { _ in queue.drain() }
        if let failure = queue.state.withLock({ $0.failure }) { throw failure }
    }

    /// Runs `jobs` side by side as ``run(_:)`` does and returns their results in the jobs' order. The jobs that may
    /// add further jobs say so; what those added jobs make they keep themselves. All end before this returns.
    package static func collect<T: Sendable>(_ jobs: [(job: @Sendable (JobQueue) throws -> T, mayAddJobs: Bool)]) throws -> [T] {
        let slots = Slots<T>(count: jobs.count)
        try run(jobs.indices.map { k in (job: { queue in slots.store(k, try jobs[k].job(queue)) }, mayAddJobs: jobs[k].mayAddJobs) })
        return slots.values()
    }

    /// One result slot per job: each job writes only its own, and they are read after every job has ended.
    private final class Slots<T>: @unchecked Sendable {
        private let items: UnsafeMutableBufferPointer<T?>
        init(count: Int) {
            items = .allocate(capacity: count)
            items.initialize(repeating: nil)
        }
        deinit {
            _ = items.deinitialize()
            items.deallocate()
        }
        func store(_ k: Int, _ value: T) { items[k] = value }
        func values() -> [T] { items.map { $0! } }
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

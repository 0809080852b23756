import Foundation
import PVInference
import Synchronization

/// Runs independent jobs side by side (on the calling thread and the ``WorkerPool``'s threads, as many at once as
/// there are usable cores) and returns their results in the jobs' order; the first error, by order, is thrown. The
/// pipelines' models run single-threaded, so two passes that do not depend on each other finish in the time of the
/// longer.
package func concurrently<T: Sendable>(_ jobs: [@Sendable () throws -> T]) throws -> [T] {
    if jobs.count == 1 { return [try jobs[0]()] }
    let results = UnsafeMutableBufferPointer<Result<T, any Error>?>.allocate(capacity: jobs.count)
    results.initialize(repeating: nil)
    defer { results.deallocate() }
    let slots = ResultSlots(results)
    WorkerPool.shared.run(count: jobs.count) { k in slots.store(k, Result { try jobs[k]() }) }
    return try results.map { try $0!.get() }
}

/// Each job writes its own slot exactly once, and ``WorkerPool/run(count:_:)`` returns only after every job has
/// finished (its completion count is an acquire/release atomic), so the writes are visible to the caller.
private struct ResultSlots<T: Sendable>: @unchecked Sendable {
    let base: UnsafeMutableBufferPointer<Result<T, any Error>?>
    init(_ base: UnsafeMutableBufferPointer<Result<T, any Error>?>) { self.base = base }
    func store(_ k: Int, _ r: Result<T, any Error>) { base[k] = r }
}

/// Worker threads (one fewer than the usable cores) that stay awake for a moment after their last job.
///
/// Why not `DispatchQueue.concurrentPerform`: waking a sleeping thread took more than 2 ms on the 2-core virtual
/// machine the benchmarks run on, for one handoff in ten or more, so a 0.6-ms job handed to the second core often ran
/// only after the calling thread's 2-ms job, on the calling thread, and the caller, once done, slept until a late job
/// ended. A request hands work over a few times within milliseconds, so a worker that keeps checking for work for
/// ``idleSpin`` after each job takes the next one at once, and a caller that checks for its jobs' end for
/// ``waitSpin`` before sleeping sees it at once. On one usable core there are no workers and jobs run in order.
package final class WorkerPool: @unchecked Sendable {  // mutable state is atomic or guarded by `lock`
    package static let shared = WorkerPool(workers: CPUBudget.available - 1)

    /// How long an idle worker keeps checking for work before it sleeps.
    static let idleSpin: UInt64 = 3_000_000
    /// How long a caller whose own jobs are done checks for the others' end before it sleeps.
    static let waitSpin: UInt64 = 3_000_000

    private final class Batch: @unchecked Sendable {  // `next` and `finished` are atomic; the rest is immutable
        let count: Int
        let body: @Sendable (Int) -> Void
        let next = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let done = NSCondition()

        init(count: Int, body: @escaping @Sendable (Int) -> Void) {
            self.count = count
            self.body = body
        }

        /// Runs unclaimed jobs until none is left; true when it ran any.
        @discardableResult
        func work() -> Bool {
            var ran = false
            while true {
                let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard k < count else { return ran }
                body(k)
                ran = true
                if finished.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == count {
                    done.lock()
                    done.broadcast()
                    done.unlock()
                }
            }
        }

        var isComplete: Bool { finished.load(ordering: .acquiring) == count }
    }

    private let lock = NSCondition()
    private var open: [Batch] = []  // batches that may still have unclaimed jobs
    private let openCount = Atomic<Int>(0)
    private var sleeping = 0
    let workers: Int

    init(workers: Int) {
        self.workers = max(0, workers)
        for _ in 0..<self.workers {
            let thread = Thread { [unowned self] in self.workerLoop() }
            thread.name = "PeopleVision worker"
            thread.start()
        }
    }

    /// Calls `body(k)` for every `k` in `0..<count`, on the calling thread and the workers; returns when all are done.
    package func run(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let batch = Batch(count: count, body: body)
        if workers > 0, count > 1 {
            lock.lock()
            open.append(batch)
            openCount.store(open.count, ordering: .releasing)
            if sleeping > 0 { lock.broadcast() }
            lock.unlock()
        }
        batch.work()
        if workers > 0, count > 1 {
            lock.lock()
            open.removeAll { $0 === batch }
            openCount.store(open.count, ordering: .releasing)
            lock.unlock()
        }
        let start = DispatchTime.now().uptimeNanoseconds
        while !batch.isComplete, DispatchTime.now().uptimeNanoseconds - start < Self.waitSpin { sched_yield() }
        batch.done.lock()
        while !batch.isComplete { batch.done.wait() }
        batch.done.unlock()
    }

    private func workerLoop() {
        var idleSince = DispatchTime.now().uptimeNanoseconds
        while true {
            if openCount.load(ordering: .acquiring) > 0 {
                lock.lock()
                let batch = open.first
                lock.unlock()
                if let batch {
                    if batch.work() { idleSince = DispatchTime.now().uptimeNanoseconds }
                    // Nothing left to claim in it: let the next open batch come first.
                    lock.lock()
                    if let i = open.firstIndex(where: { $0 === batch }), batch.next.load(ordering: .relaxed) >= batch.count {
                        open.remove(at: i)
                        openCount.store(open.count, ordering: .releasing)
                    }
                    lock.unlock()
                    continue
                }
            }
            if DispatchTime.now().uptimeNanoseconds - idleSince < Self.idleSpin {
                // Other threads runnable on this core (image kernels' bands, a caller's own work) go first.
                sched_yield()
                continue
            }
            lock.lock()
            sleeping += 1
            while open.isEmpty { lock.wait() }
            sleeping -= 1
            lock.unlock()
            idleSince = DispatchTime.now().uptimeNanoseconds
        }
    }
}

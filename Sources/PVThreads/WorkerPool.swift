import Foundation
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
    // Each job writes only its own slot, and `forEach` returns after every job has finished.
    WorkerPool.shared.forEach(count: jobs.count) { k in results[k] = Result { try jobs[k]() } }
    return try results.map { try $0!.get() }
}

/// Worker threads (one fewer than the usable cores, ``CPUBudget``) that stay awake for a moment after their last job;
/// every layer's side-by-side work runs on them (model passes, image kernels' row bands, Core Image tiles).
///
/// Why not `DispatchQueue.concurrentPerform`: waking a sleeping thread took more than 2 ms on the 2-core virtual
/// machine the benchmarks run on, for one handoff in ten or more, so a 0.6-ms job handed to the second core often ran
/// only after the calling thread's 2-ms job, on the calling thread, and a caller done with its share slept until a
/// late job ended. Work is handed over a few times within milliseconds, so a worker that keeps checking for work for
/// ``idleSpin`` after each job takes the next one at once, and a caller that checks for its jobs' end for
/// ``waitSpin`` before sleeping sees it at once. Both yield the core while they check, so runnable threads go first.
/// On one usable core there are no workers and jobs run in order on the caller.
package final class WorkerPool: @unchecked Sendable {  // mutable state is atomic or guarded by `lock`
    package static let shared = WorkerPool(workers: CPUBudget.available - 1)

    /// How long an idle worker keeps checking for work before it sleeps.
    static let idleSpin: UInt64 = 3_000_000
    /// How long a caller whose own share is done checks for the other jobs' end before it sleeps.
    static let waitSpin: UInt64 = 3_000_000

    /// One `forEach` call. Workers take jobs only while they are registered in `active` (under the pool's lock), and
    /// the caller clears `body` once none is, so the caller's closure never outlives its call.
    private final class Batch: @unchecked Sendable {
        let count: Int
        var body: ((Int) -> Void)?
        let next = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        var active = 0  // workers inside `work`, guarded by the pool's lock
        let done = NSCondition()

        init(count: Int, body: @escaping (Int) -> Void) {
            self.count = count
            self.body = body
        }

        /// Runs unclaimed jobs until none is left; true when it ran any.
        func work() -> Bool {
            guard let body else { return false }
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
    /// Set by ``stopSpinning()``, cleared by the next ``forEach(count:_:)``: idle workers and waiting callers sleep at
    /// once instead of checking for work.
    private let quiet = Atomic<Bool>(false)
    private var sleeping = 0
    /// Number of worker threads.
    package let workers: Int

    init(workers: Int) {
        self.workers = max(0, workers)
        for _ in 0..<self.workers {
            let thread = Thread { [unowned self] in self.workerLoop() }
            thread.name = "PeopleVision worker"
            thread.start()
        }
    }

    /// Calls `body(k)` for every `k` in `0..<count`, on the calling thread and the workers, and returns when all calls
    /// have returned. `body` may run on several threads at once; each call must touch only what its `k` owns.
    package func forEach(count: Int, _ body: (Int) -> Void) {
        guard count > 0 else { return }
        guard workers > 0, count > 1 else {
            for k in 0..<count { body(k) }
            return
        }
        let flag = Cancellation.current
        withoutActuallyEscaping(body) { body in
            let batch = Batch(count: count, body: flag == nil ? body : { k in Cancellation.run(under: flag) { body(k) } })
            quiet.store(false, ordering: .relaxed)
            lock.lock()
            open.append(batch)
            openCount.store(open.count, ordering: .releasing)
            if sleeping > 0 { lock.broadcast() }
            lock.unlock()
            _ = batch.work()
            lock.lock()
            close(batch)
            lock.unlock()
            let start = DispatchTime.now().uptimeNanoseconds
            while !batch.isComplete, !quiet.load(ordering: .relaxed), DispatchTime.now().uptimeNanoseconds - start < Self.waitSpin {
                sched_yield()
            }
            batch.done.lock()
            while !batch.isComplete { batch.done.wait() }
            batch.done.unlock()
            // No worker can enter the batch any more (it left `open`); wait for those inside to leave, then drop the
            // closure before `withoutActuallyEscaping` ends.
            while true {
                lock.lock()
                let inside = batch.active
                if inside == 0 { batch.body = nil }
                lock.unlock()
                if inside == 0 { break }
                sched_yield()
            }
        }
    }

    /// Makes idle workers, and callers waiting for their jobs' end, sleep now instead of checking for work for a while,
    /// until the next ``forEach(count:_:)``: for code about to run threads of its own (a multi-threaded model run),
    /// which a spinning thread would keep from a core.
    package func stopSpinning() {
        quiet.store(true, ordering: .relaxed)
    }

    /// Takes `batch` out of `open` (if still there), so no worker enters it any more. Call with `lock` held.
    private func close(_ batch: Batch) {
        open.removeAll { $0 === batch }
        openCount.store(open.count, ordering: .releasing)
    }

    private func workerLoop() {
        var idleSince = DispatchTime.now().uptimeNanoseconds
        while true {
            if openCount.load(ordering: .acquiring) > 0 {
                lock.lock()
                let batch = open.first
                batch?.active += 1
                lock.unlock()
                if let batch {
                    if batch.work() { idleSince = DispatchTime.now().uptimeNanoseconds }
                    lock.lock()
                    batch.active -= 1
                    // Nothing left to claim in it: let the next open batch come first.
                    if batch.next.load(ordering: .relaxed) >= batch.count { close(batch) }
                    lock.unlock()
                    continue
                }
            }
            if !quiet.load(ordering: .relaxed), DispatchTime.now().uptimeNanoseconds - idleSince < Self.idleSpin {
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

import Foundation
import PVCore
import Synchronization
import Testing

@testable import PVThreads

/// The queue behind the hand pipeline's scheduling: every job and every job it adds runs exactly once, a job added
/// late by a long-running job is still run, the first error is rethrown and stops the start of further jobs.
@Suite struct JobQueueTests {
    struct Failure: Error, Equatable { let k: Int }

    @Test func everyJobAndEveryAddedJobRunsOnce() throws {
        let runs = Locked<[Int]>([])
        // A producer adds ten jobs, each of which adds one more; a plain job runs beside it.
        try JobQueue.run([
            (
                { queue in
                    for k in 0..<10 {
                        queue.add(
                            { queue in
                                runs.withLock { $0.append(k) }
                                queue.add { _ in runs.withLock { $0.append(100 + k) } }
                            }, mayAddJobs: true)
                    }
                }, true
            ),
            ({ _ in runs.withLock { $0.append(-1) } }, false),
        ])
        #expect(runs.withLock { $0.sorted() } == [-1] + Array(0..<10) + Array(100..<110))
    }

    @Test func aJobAddedAfterALongRunIsNotLost() throws {
        let ran = Atomic<Bool>(false)
        // The other thread finds the queue empty while the producer sleeps: it must wait for it, not leave it alone.
        try JobQueue.run([
            (
                { queue in
                    Thread.sleep(forTimeInterval: 0.02)
                    queue.add { _ in ran.store(true, ordering: .relaxed) }
                }, true
            )
        ])
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
    }

    @Test func theFirstErrorIsRethrownAndStopsFurtherJobs() {
        let started = Atomic<Int>(0)
        #expect(throws: Failure(k: 1)) {
            try JobQueue.run([
                (
                    { queue in
                        // Slow jobs queued before the throw: another thread may start one or two before the error
                        // is recorded, none after.
                        for _ in 0..<50 {
                            queue.add { _ in
                                started.wrappingAdd(1, ordering: .relaxed)
                                Thread.sleep(forTimeInterval: 0.002)
                            }
                        }
                        throw Failure(k: 1)
                    }, true
                )
            ])
        }
        let count = started.load(ordering: .relaxed)
        #expect(count < 5)
    }
}

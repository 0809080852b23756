import Foundation
import PVCore
import Synchronization
import Testing

@testable import PVThreads

/// The worker pool behind `concurrently`: every job runs exactly once, results keep the jobs' order, the first error by
/// order is thrown, nested and simultaneous callers finish, and the usable-core count reads cgroup quotas correctly.
@Suite struct WorkerPoolTests {
    struct Failure: Error, Equatable { let k: Int }

    @Test func resultsInOrderEachJobOnce() throws {
        let runs = Locked<[Int]>([])
        let jobs = (0..<37).map { k in
            { @Sendable () -> Int in
                runs.withLock { $0.append(k) }
                return k * k
            }
        }
        let results = try concurrently(jobs)
        #expect(results == (0..<37).map { $0 * $0 })
        #expect(runs.withLock { $0.sorted() } == Array(0..<37))
        #expect(try concurrently([@Sendable () -> Int]()).isEmpty)
        #expect(try concurrently([{ @Sendable in 7 }]) == [7])
    }

    @Test func theFirstErrorByOrderIsThrownAfterEveryJobRan() {
        let ran = Atomic<Int>(0)
        let jobs = (0..<8).map { k in
            { @Sendable () throws -> Int in
                ran.wrappingAdd(1, ordering: .relaxed)
                if k == 3 || k == 6 { throw Failure(k: k) }
                return k
            }
        }
        #expect(throws: Failure(k: 3)) { try concurrently(jobs) }
        #expect(ran.load(ordering: .relaxed) == 8)
    }

    /// A job that itself runs jobs side by side (the body search does), from several threads at once.
    @Test func nestedAndSimultaneousCallersFinish() throws {
        let sums = Locked<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { caller in
            let outer = (0..<4).map { i in
                { @Sendable () throws -> Int in
                    try concurrently((0..<5).map { j in { @Sendable in caller * 100 + i * 10 + j } }).reduce(0, +)
                }
            }
            let total = (try? concurrently(outer).reduce(0, +)) ?? -1
            sums.withLock { $0.append(total) }
        }
        // Σ over i < 4, j < 5 of (100·caller + 10·i + j) = 2000·caller + 300 + 40.
        #expect(sums.withLock { $0.sorted() } == (0..<6).map { 2000 * $0 + 340 })
    }

    @Test func jobsRunSideBySideWhenThereAreWorkers() throws {
        guard WorkerPool.shared.workers > 0 else {
            #expect(CPUBudget.available == 1)
            return
        }
        // Two jobs that each wait for the other to have started can only finish if they run at the same time.
        let started = Atomic<Int>(0)
        let jobs = (0..<2).map { _ in
            { @Sendable () -> Bool in
                started.wrappingAdd(1, ordering: .acquiringAndReleasing)
                let deadline = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
                while started.load(ordering: .acquiring) < 2 {
                    if DispatchTime.now().uptimeNanoseconds > deadline { return false }
                }
                return true
            }
        }
        #expect(try concurrently(jobs) == [true, true])
    }

    /// `stopSpinning()` in the middle of a batch (as the segmenter calls it before a two-thread model run): the caller,
    /// now sleeping instead of checking, still returns when the other job ends, and the next batches run side by side.
    @Test func stoppingTheSpinDuringABatchLosesNothing() throws {
        let jobs = (0..<2).map { k in
            { @Sendable () -> Int in
                if k == 0 {
                    WorkerPool.shared.stopSpinning()
                } else {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                return k + 1
            }
        }
        for _ in 0..<20 { #expect(try concurrently(jobs) == [1, 2]) }
        WorkerPool.shared.stopSpinning()
        Thread.sleep(forTimeInterval: 0.005)  // idle workers are asleep now
        try jobsRunSideBySideWhenThereAreWorkers()
        #expect(try concurrently((0..<9).map { k in { @Sendable in k } }) == Array(0..<9))
    }

    @Test func cgroupQuotaLines() {
        #expect(CPUBudget.quotaCores(cgroupV2: "max 100000\n") == nil)
        #expect(CPUBudget.quotaCores(cgroupV2: "100000 100000\n") == 1)
        #expect(CPUBudget.quotaCores(cgroupV2: "150000 100000") == 2)
        #expect(CPUBudget.quotaCores(cgroupV2: "20000 100000") == 1)
        #expect(CPUBudget.quotaCores(cgroupV2: "garbage") == nil)
        #expect(CPUBudget.quotaCores(cgroupV2: "0 100000") == nil)
        #expect(CPUBudget.available >= 1 && CPUBudget.available <= ProcessInfo.processInfo.activeProcessorCount)
        if let mask = CPUBudget.affinityCount() { #expect(CPUBudget.available <= mask) }
    }
}

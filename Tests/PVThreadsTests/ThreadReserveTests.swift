import Foundation
import Synchronization
import Testing

@testable import PVThreads

/// The reserve of parked threads: reuse, jobs that never wait for one another, idle threads ending, the keep limit.
@Suite struct ThreadReserveTests {
    /// Waits (up to ten seconds: the suites run beside others) until `condition` holds.
    private func eventually(_ condition: () -> Bool) -> Bool {
        let end = Date(timeIntervalSinceNow: 10)
        while !condition() {
            if Date() > end { return false }
            usleep(1_000)
        }
        return true
    }

    @Test func jobsOneAfterAnotherReuseOneParkedThread() {
        let reserve = ThreadReserve(named: "test", keep: 4, idleSeconds: 5)
        let threads = Mutex<Set<UInt>>([])
        for _ in 0..<20 {
            let done = DispatchSemaphore(value: 0)
            reserve.run {
                threads.withLock { _ = $0.insert(UInt(pthread_self())) }
                done.signal()
            }
            done.wait()
            // The job signals before its thread parks again: a job handed over in between would start a second
            // thread (as it must: no job waits for another). Each next job is handed over once the thread is parked.
            #expect(eventually { reserve.parkedCount == 1 })
        }
        #expect(threads.withLock { $0.count } == 1)
        #expect(reserve.threadCount == 1)
    }

    @Test func jobsNeverWaitForOneAnother() {
        // Each job waits until all have started: with fewer threads than jobs this would never end.
        let reserve = ThreadReserve(named: "test", keep: 2, idleSeconds: 5)
        let count = 6, started = Atomic<Int>(0), finished = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            reserve.run {
                started.add(1, ordering: .relaxed)
                let end = Date(timeIntervalSinceNow: 5)
                while started.load(ordering: .relaxed) < count, Date() < end { usleep(500) }
                finished.signal()
            }
        }
        for _ in 0..<count { #expect(finished.wait(timeout: .now() + 10) == .success) }
        #expect(started.load(ordering: .relaxed) == count)
        // Beyond the two it keeps, the threads end once their jobs are done.
        #expect(eventually { reserve.threadCount <= 2 })
    }

    @Test func parkedThreadsEndAfterTheirIdleTime() {
        let reserve = ThreadReserve(named: "test", keep: 4, idleSeconds: 0.05)
        let done = DispatchSemaphore(value: 0)
        reserve.run { done.signal() }
        done.wait()
        #expect(eventually { reserve.threadCount == 0 })
        // A job after that starts a thread again.
        reserve.run { done.signal() }
        #expect(done.wait(timeout: .now() + 5) == .success)
    }
}

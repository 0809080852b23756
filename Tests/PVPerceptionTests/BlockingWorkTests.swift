import Foundation
import PVThreads
import Synchronization
import Testing

@testable import PVPerception

/// Where a perform's blocking work runs: in place while a slot is free, on a thread of the reserve beyond that.
@Suite struct BlockingWorkTests {
    /// The calling thread.
    static func thread() -> UInt { UInt(pthread_self()) }

    @Test func theSharedSlotsLeaveOnePoolThreadFree() {
        let cores = min(ProcessInfo.processInfo.activeProcessorCount, CPUBudget.available)
        #expect(InPlaceSlots.shared.limit == max(0, cores - 1))
    }

    @Test func aPerformRunsInPlaceWhileASlotIsFreeAndElsewhereWithoutOne() async throws {
        let one = InPlaceSlots(limit: 1), none = InPlaceSlots(limit: 0)
        let caller = Self.thread()
        #expect(try await BlockingWork.run(in: one) { Self.thread() } == caller)
        let elsewhere = try await BlockingWork.run(in: none) { Self.thread() }
        #expect(elsewhere != Self.thread())
        // The slot was given back: the next perform runs in place again.
        let again = Self.thread()
        #expect(try await BlockingWork.run(in: one) { Self.thread() } == again)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount >= 2, "holds one pool thread while another runs"))
    func aPerformBeyondTheLimitRunsOnAThreadOfItsOwnWhileTheOthersHold() async throws {
        let slots = InPlaceSlots(limit: 1)
        let started = Atomic<Bool>(false), release = DispatchSemaphore(value: 0)
        let held = Task.detached {
            let caller = Self.thread()
            let worker = try await BlockingWork.run(in: slots) {
                started.store(true, ordering: .releasing)
                release.wait()
                return Self.thread()
            }
            return worker == caller
        }
        while !started.load(ordering: .acquiring) { try await Task.sleep(nanoseconds: 1_000_000) }
        // The held perform keeps its slot: this one runs on another thread and ends while the first still waits.
        let caller = Self.thread()
        let worker = try await BlockingWork.run(in: slots) { Self.thread() }
        #expect(worker != caller)
        release.signal()
        #expect(try await held.value)
    }
}

import Foundation
import PVCore
import Testing

@testable import PVThreads

/// Cancellation flags: the current thread's flag, nesting, parents, and the pool's threads taking the caller's flag.
@Suite struct CancellationTests {
    @Test func currentFlagIsScopedToTheThreadAndRestored() {
        #expect(Cancellation.current == nil && !Cancellation.isRequested)
        let outer = CancellationFlag(), inner = CancellationFlag(parent: outer)
        Cancellation.run(under: outer) {
            #expect(Cancellation.current === outer)
            Cancellation.run(under: inner) { #expect(Cancellation.current === inner) }
            #expect(Cancellation.current === outer)
            // Another thread does not see this thread's flag.
            let seen = Locked(true)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                seen.withLock { $0 = Cancellation.current != nil }
                done.signal()
            }
            done.wait()
            #expect(seen.withLock { $0 } == false)
        }
        #expect(Cancellation.current == nil)
        // A child reports its parent's raise; a parent does not report its child's.
        #expect(!inner.isRaised)
        outer.raise()
        #expect(inner.isRaised)
        let lone = CancellationFlag(), child = CancellationFlag(parent: lone)
        child.raise()
        #expect(child.isRaised && !lone.isRaised)
    }

    @Test func poolThreadsTakeTheCallersFlag() throws {
        let flag = CancellationFlag()
        let seen = try Cancellation.run(under: flag) {
            try concurrently((0..<8).map { _ in { @Sendable () -> Bool in Cancellation.current === flag } })
        }
        #expect(seen == Array(repeating: true, count: 8))
        // Without a flag, the pool's jobs run under none.
        let none = try concurrently((0..<8).map { _ in { @Sendable () -> Bool in Cancellation.current == nil } })
        #expect(none.allSatisfy { $0 })
    }
}

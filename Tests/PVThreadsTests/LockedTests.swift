import Foundation
import PVCore
import Testing

/// `Locked`, the package's lock: exclusive access under contention, values and errors passed through. Run under
/// ThreadSanitizer (`scripts/tsan`), the contended cases also check that it sees the hand-over between threads.
@Suite struct LockedTests {
    struct Failure: Error, Equatable { let value: Int }

    /// Shared objects made on one thread and read on another, handed over only through the lock.
    final class Box: @unchecked Sendable {  // written before it is stored under the lock, read after it is taken
        var values: [Int] = []
    }

    @Test func incrementsFromManyThreadsAtOnceAreNoneLost() {
        let count = Locked(0)
        let threads = 8, increments = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<increments {
                count.withLock { value in
                    let read = value  // a separate read and write: a second holder would lose increments
                    value = read + 1
                }
            }
        }
        #expect(count.withLock { $0 } == threads * increments)
    }

    @Test func objectsHandedOverThroughTheLockKeepTheirContents() {
        let shelf = Locked<[Box]>([])
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for k in 0..<2_000 {
                let box = Box()
                box.values = [thread, k, thread &+ k]
                shelf.withLock { boxes in
                    boxes.append(box)
                    if boxes.count > 8 { boxes.removeFirst() }
                }
                if let other = shelf.withLock({ $0.first }), other.values.count != 3 || other.values[2] != other.values[0] &+ other.values[1] {
                    mismatches.withLock { $0 += 1 }
                }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
        #expect(shelf.withLock { $0.count } == 8)
    }

    @Test func resultsAndErrorsPassThrough() {
        let state = Locked([1, 2, 3])
        #expect(state.withLock { $0.reduce(0, +) } == 6)
        #expect(throws: Failure(value: 3)) {
            try state.withLock { values throws(Failure) in
                values.append(4)
                throw Failure(value: values.count - 1)
            }
        }
        // What the body changed before it threw stays.
        #expect(state.withLock { $0 } == [1, 2, 3, 4])
    }
}

import Foundation
import PVCore
import Synchronization

/// Threads of their own, for work that runs beside the pipelines for a long while: a video decoder reading ahead, an
/// encoder behind, a Core Image render task. Every thread of the package is started here or by ``WorkerPool``, so
/// that one module decides how the cores are shared.
package enum DedicatedThread {
    /// Starts `body` on a new thread named `name` (shown by debuggers and `top -H`). The thread ends when `body`
    /// returns.
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { body() }
        thread.name = name
        thread.start()
    }
}

/// A bounded hand-over between two threads: ``put(_:)`` waits while `capacity` items wait; ``take()`` waits for one,
/// and returns nil once the producer has closed it and everything is taken (or rethrows the producer's error).
/// Either side may cancel: a waiting ``put(_:)`` then returns false and a ``take()`` nil.
package final class Handoff<Item>: @unchecked Sendable {  // state guarded by `lock`
    private let lock = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private var cancelled = false
    private var failure: Error?
    private let capacity: Int

    package init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Hands `item` over; false when the hand-over was cancelled.
    package func put(_ item: Item) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while items.count >= capacity && !cancelled { lock.wait() }
        guard !cancelled else { return false }
        items.append(item)
        lock.broadcast()
        return true
    }

    /// The next item, or nil at the end; rethrows the producer's failure.
    package func take() throws -> Item? {
        lock.lock()
        defer { lock.unlock() }
        while items.isEmpty && !closed && !cancelled { lock.wait() }
        if cancelled { return nil }
        if !items.isEmpty {
            lock.broadcast()
            return items.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// No more items; `error` ends the consumer's ``take()`` with it.
    package func close(_ error: Error?) {
        lock.lock()
        closed = true
        failure = error
        lock.broadcast()
        lock.unlock()
    }

    /// Stops both sides.
    package func cancel() {
        lock.lock()
        cancelled = true
        lock.broadcast()
        lock.unlock()
    }
}

/// A flag one job sets and another may wait a little for: "has the other branch ended yet?".
///
/// The wait checks the flag while yielding the core rather than sleeping on a condition: the waits are a millisecond
/// or two, and waking a sleeping thread took over 2 ms for one handoff in ten on a 2-core virtual machine.
package final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    package init() {}

    /// Sets the flag.
    package func set() { value.store(true, ordering: .releasing) }

    /// Whether the flag is set now or becomes set within `nanoseconds`.
    package func wait(upTo nanoseconds: UInt64) -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        while !value.load(ordering: .acquiring) {
            if DispatchTime.now().uptimeNanoseconds - start >= nanoseconds { return false }
            sched_yield()
        }
        return true
    }
}

/// Values made once per process and key, on first use, and shared by every thread (loaded models, pipelines). Making
/// one happens outside the lock, since loading takes a while; when two threads race, the first value stored wins.
package final class OncePerKey<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Locked<[Key: Value]>([:])

    package init() {}

    /// The value for `key`, made by `make` if there is none yet.
    package func value(for key: Key, make: () throws -> sending Value) rethrows -> Value {
        if let hit = values.withLock({ $0[key] }) { return hit }
        let made = try make()
        return values.withLock { v in
            if let raced = v[key] { return raced }
            v[key] = made
            return made
        }
    }
}

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

/// Threads kept parked after their job, for short blocking jobs handed over often from async code (a Swift-API
/// perform per call): a parked thread takes the next job at once, where starting a thread costs tens of
/// microseconds each time. A thread parked longer than `idleSeconds` ends; at most `keep` stay parked.
package final class ThreadReserve: @unchecked Sendable {  // state guarded by `condition`
    /// The reserve of the async front doors (the Swift-only API, the service).
    package static let shared = ThreadReserve(named: "perform", keep: 16, idleSeconds: 10)

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var parked = 0
    /// Threads alive, parked or working.
    private var alive = 0
    private let name: String, keep: Int, idleSeconds: Double

    package init(named name: String, keep: Int, idleSeconds: Double) {
        (self.name, self.keep, self.idleSeconds) = (name, max(0, keep), idleSeconds)
    }

    /// Runs `job` on a parked thread, or on a new one when none is free. Jobs never wait for one another.
    package func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        // Every job waiting needs a parked thread of its own, or a new thread.
        let wake = parked >= jobs.count
        if wake { condition.signal() } else { alive += 1 }
        condition.unlock()
        if !wake { DedicatedThread.start(named: name) { [self] in serve() } }
    }

    /// Threads alive now, parked or working (for tests).
    package var threadCount: Int { condition.withLock { alive } }

    /// Threads parked now, waiting for a job (for tests).
    package var parkedCount: Int { condition.withLock { parked } }

    private func serve() {
        condition.lock()
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            guard parked < keep else { break }
            parked += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleSeconds))
            parked -= 1
            if !signalled, jobs.isEmpty { break }
        }
        alive -= 1
        condition.unlock()
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

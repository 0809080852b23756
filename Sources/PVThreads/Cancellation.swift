import Foundation
import Synchronization

/// A request to stop, raised from any thread and seen by the work that runs under it (``Cancellation/run(under:_:)``)
/// at its next check: the engine checks before each model run, so a perform stops between models.
package final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    /// A flag whose raise this one also reports (the work around the work this flag stops).
    private let parent: CancellationFlag?

    /// A flag that is also raised when `parent` is.
    package init(parent: CancellationFlag? = nil) { self.parent = parent }

    /// Asks the work under this flag to stop.
    package func raise() { raised.store(true, ordering: .releasing) }

    /// Whether ``raise()`` was called, on this flag or its parent.
    package var isRaised: Bool { raised.load(ordering: .acquiring) || (parent?.isRaised ?? false) }
}

/// The cancellation flag of the work running on the current thread. Threads of the ``WorkerPool`` take the flag of
/// the thread that hands them work, so checks inside side-by-side passes see it too.
package enum Cancellation {
    /// The flag of the current thread, kept as an unretained pointer (``run(under:_:)`` keeps the flag alive).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The flag the current thread runs under, if any.
    package static var current: CancellationFlag? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<CancellationFlag>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Whether the current thread's work has been asked to stop.
    package static var isRequested: Bool { current?.isRaised ?? false }

    /// Runs `body` with `flag` as the current thread's flag (nil: the current flag stays), then restores the previous.
    package static func run<T>(under flag: CancellationFlag?, _ body: () throws -> T) rethrows -> T {
        guard let flag else { return try body() }
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(flag).toOpaque())
        defer { pthread_setspecific(key, previous) }
        return try withExtendedLifetime(flag) { try body() }
    }
}

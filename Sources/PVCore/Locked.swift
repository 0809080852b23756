import Foundation
import Synchronization

/// A `Mutex` whose hand-over between threads ThreadSanitizer sees: the package's lock around shared state.
///
/// On Linux, `Synchronization.Mutex` takes a contended lock in the kernel (a priority-inheritance futex) from its
/// uninstrumented slow path, so under ThreadSanitizer the thread that waited for the lock appears to touch the guarded
/// state with no ordering after the thread that released it, and every contended critical section is reported as a
/// race. Under ThreadSanitizer this lock tells it of each acquisition and release (at the mutex's address); in other
/// builds that costs one check of a value read once per process.
package struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>

    /// A lock around `value`.
    @inlinable
    package init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value, as `Mutex.withLock(_:)` does.
    @inlinable @inline(__always)
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        guard let sanitizer = ThreadSanitizerHooks.current else { return try mutex.withLock(body) }
        let address = withUnsafePointer(to: mutex) { UnsafeRawPointer($0) }
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            sanitizer.acquire(address)
            defer { sanitizer.release(address) }
            return try body(&value)
        }
    }
}

/// ThreadSanitizer's annotation functions, found when the process runs under it.
@usableFromInline
package struct ThreadSanitizerHooks: Sendable {
    @usableFromInline typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void
    /// Makes the calling thread's next accesses ordered after every ``release`` at `address`.
    @usableFromInline let acquire: Annotation
    /// Orders the calling thread's accesses so far before every later ``acquire`` at `address`.
    @usableFromInline let release: Annotation

    /// The hooks of ThreadSanitizer's runtime when it is linked into the process (a `--sanitize=thread` build), else nil.
    @usableFromInline
    package static let current: ThreadSanitizerHooks? = {
        let process = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT: every loaded object
        guard let acquire = dlsym(process, "__tsan_acquire"), let release = dlsym(process, "__tsan_release") else { return nil }
        return ThreadSanitizerHooks(acquire: unsafeBitCast(acquire, to: Annotation.self), release: unsafeBitCast(release, to: Annotation.self))
    }()
}

import Foundation
import PVCore
import Synchronization

/// The time the Swift-only API spends in its own code — the task hops, the thread handoff, turning `VN…`
/// observations into the Swift API's structs — beside the time of the engine work it wraps (preparing the image and
/// running the `VN…` requests). Off unless a benchmark turns it on.
package enum SwiftAPIOverhead {
    package struct Totals: Sendable {
        /// Nanoseconds from entering a perform to its return.
        package var total: UInt64 = 0
        /// Nanoseconds of those inside the engine (image preparation and the `VN…` requests' runs).
        package var engine: UInt64 = 0
        /// Performs counted.
        package var performs = 0

        /// The part of the total spent outside the engine.
        package var ownFraction: Double { total == 0 ? 0 : Double(total - min(total, engine)) / Double(total) }
    }

    private static let on = Atomic<Bool>(false)
    private static let totals = Locked(Totals())

    /// Whether performs are being measured.
    package static var isRecording: Bool { on.load(ordering: .relaxed) }

    /// Starts measuring from zero.
    package static func start() {
        totals.withLock { $0 = Totals() }
        on.store(true, ordering: .relaxed)
    }

    /// Stops measuring and returns what was measured.
    package static func stop() -> Totals {
        on.store(false, ordering: .relaxed)
        return totals.withLock { $0 }
    }

    static func add(total: UInt64, engine: UInt64) {
        totals.withLock {
            $0.total += total
            $0.engine += engine
            $0.performs += 1
        }
    }

    /// The current time in nanoseconds, or 0 when not recording (so that unmeasured performs read no clock).
    static func now() -> UInt64 { isRecording ? DispatchTime.now().uptimeNanoseconds : 0 }
}

/// Engine nanoseconds accumulated by one perform's thread.
final class EngineClock: @unchecked Sendable {
    private(set) var nanoseconds: UInt64 = 0

    /// Runs `body`, adding its duration when recording.
    func timing<T>(_ body: () throws -> T) rethrows -> T {
        let start = SwiftAPIOverhead.now()
        defer { if start != 0 { nanoseconds += DispatchTime.now().uptimeNanoseconds - start } }
        return try body()
    }
}

import Foundation
import PVCore
import Synchronization

/// When each model inference ran, and on which thread, while recording is on: the timeline of a pipeline's model
/// runs across cores, which shows where a core waits (`peoplevision bench timeline`). Off, it costs each
/// ``Interpreter/invoke()`` one relaxed atomic load.
package enum InferenceTimeline {
    /// One ``Interpreter/invoke()``.
    package struct Run: Sendable, Equatable {
        /// The model's file name without extension.
        package let model: String
        /// The calling thread (an opaque identity, the same for every run on that thread).
        package let thread: UInt
        /// Start and end, in nanoseconds of `DispatchTime.now().uptimeNanoseconds`.
        package let start: UInt64
        package let end: UInt64
    }

    private static let on = Atomic<Bool>(false)
    private static let runs = Locked<[Run]>([])
    private static let recording = Locked<Void>(())

    /// Runs `body` with recording on and returns its result with the inferences it ran (every thread's, in start
    /// order). Recordings do not nest or overlap: a second caller waits for the first.
    package static func record<R>(_ body: () throws -> R) rethrows -> (result: R, runs: [Run]) {
        try recording.withLock { _ in
            runs.withLock { $0.removeAll() }
            on.store(true, ordering: .releasing)
            defer { on.store(false, ordering: .releasing) }
            let result = try body()
            return (result, runs.withLock { $0.sorted { $0.start < $1.start } })
        }
    }

    /// Whether runs are being recorded.
    @inline(__always) static var isRecording: Bool { on.load(ordering: .relaxed) }

    static func append(model: String, start: UInt64, end: UInt64) {
        let run = Run(model: model, thread: pthread_self(), start: start, end: end)
        runs.withLock { $0.append(run) }
    }
}

import Foundation
import PVTestSupport
import Testing
import PVCore
import PVThreads

@testable import PVInference

/// The inference timeline records every `invoke()` while recording is on, from every thread, with the model's name,
/// and nothing outside a recording.
@Suite struct InferenceTimelineTests {
    @Test func recordsEachInvokeWhileOn() throws {
        let model = try CompiledModel.load(named: "face_detection_short_range.tflite")
        #expect(model.name == "face_detection_short_range")
        let a = try Interpreter(model: model, threads: 1)
        try a.invoke()  // not recorded
        let before = DispatchTime.now().uptimeNanoseconds
        // Other suites run models at the same time: only this test's two threads are looked at.
        let threads = Locked<Set<UInt>>([UInt(pthread_self())])
        let (_, recorded) = try InferenceTimeline.record {
            try a.invoke()
            // A second run on another thread.
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                threads.withLock { _ = $0.insert(UInt(pthread_self())) }
                if let b = try? Interpreter(model: model, threads: 1) { try? b.invoke() }
                done.signal()
            }
            done.wait()
        }
        let after = DispatchTime.now().uptimeNanoseconds
        let ours = threads.withLock { $0 }
        let runs = recorded.filter { ours.contains($0.thread) }
        #expect(runs.count == 2)
        #expect(runs.allSatisfy { $0.model == "face_detection_short_range" && before <= $0.start && $0.start < $0.end && $0.end <= after })
        #expect(Set(runs.map(\.thread)).count == 2)
        try a.invoke()
        let (_, none) = InferenceTimeline.record {}
        #expect(!none.contains { ours.contains($0.thread) })
    }

    /// `Interpreter.runsInFlight` counts the runs under way on any thread (the segmenter checks it before a 2-thread run).
    @Test func runsInFlightCountsRunsOnOtherThreads() throws {
        let model = try CompiledModel.load(named: "face_detection_short_range.tflite")
        let stop = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let running = UnsafeSendableFlag()
        Thread.detachNewThread {
            if let b = try? Interpreter(model: model, threads: 1) {
                while stop.wait(timeout: .now()) == .timedOut {
                    running.set()
                    try? b.invoke()
                }
            }
            done.signal()
        }
        var seen = 0
        let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
        while seen == 0, DispatchTime.now().uptimeNanoseconds < deadline {
            if running.isSet { seen = max(seen, Interpreter.runsInFlight) }
        }
        stop.signal()
        done.wait()
        // (Other suites run models in parallel, so the count is not checked to fall back to 0 here.)
        #expect(seen >= 1, "a run on another thread is counted while it runs")
    }
}

/// A flag one thread sets and another reads (tests only).
final class UnsafeSendableFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// A model run under a raised cancellation flag does not start: it throws `.cancelled`.
@Suite struct InvokeCancellationTests {
    @Test func invokeStopsUnderARaisedFlag() throws {
        let model = try CompiledModel.load(named: "face_detection_short_range.tflite")
        let interpreter = try Interpreter(model: model, threads: 1)
        let flag = CancellationFlag()
        try Cancellation.run(under: flag) { try interpreter.invoke() }  // not raised: runs
        flag.raise()
        #expect(throws: InferenceError(.cancelled, "stopped before running face_detection_short_range: the work was cancelled")) {
            try Cancellation.run(under: flag) { try interpreter.invoke() }
        }
        try interpreter.invoke()  // outside the flag's scope: runs again
    }
}

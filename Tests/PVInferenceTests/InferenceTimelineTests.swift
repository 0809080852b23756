import Foundation
import PVTestSupport
import Testing

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
        let (_, runs) = try InferenceTimeline.record {
            try a.invoke()
            // A second run on another thread.
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                if let b = try? Interpreter(model: model, threads: 1) { try? b.invoke() }
                done.signal()
            }
            done.wait()
        }
        let after = DispatchTime.now().uptimeNanoseconds
        #expect(runs.count == 2)
        #expect(runs.allSatisfy { $0.model == "face_detection_short_range" && before <= $0.start && $0.start < $0.end && $0.end <= after })
        #expect(Set(runs.map(\.thread)).count == 2)
        try a.invoke()
        let (_, none) = InferenceTimeline.record {}
        #expect(none.isEmpty)
    }
}

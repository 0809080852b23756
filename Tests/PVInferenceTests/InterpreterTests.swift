import Foundation
import PVInference
import PVTestSupport
import Testing

@Suite struct InterpreterTests {
    @Test func missingModelNamesTheFix() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("pv-empty-\(UUID().uuidString)")
        let store = ModelStore(directory: empty)
        do {
            _ = try CompiledModel.load(named: "selfie_segmentation.tflite", store: store)
            Issue.record("loading from an empty store must fail")
        } catch let e as InferenceError {
            #expect(e.code == .modelNotFound)
            #expect(e.message.contains("selfie_segmentation.tflite"))
            #expect(e.message.contains("scripts/bootstrap"))
        }
    }

    /// The attention mesh's three MediaPipe operators run as Swift operators; a custom operator nobody implements
    /// (one of them renamed in a copy of the file) is a typed error that names it.
    @Test func mediaPipeCustomOperatorsLoadAndUnknownOnesAreNamed() throws {
        let url = try TestFiles.installed("face_landmark_with_attention.tflite")
        let model = try CompiledModel(contentsOf: url)
        #expect(model.partitionSummary.swiftOperators >= 11)
        var bytes = [UInt8](try Data(contentsOf: url))
        let name = Array("TransformLandmarks".utf8)
        let at = try #require((0...(bytes.count - name.count)).first { bytes[$0..<($0 + name.count)].elementsEqual(name) })
        bytes[at + name.count - 1] = UInt8(ascii: "z")
        let renamed = FileManager.default.temporaryDirectory.appendingPathComponent("pv-renamed-\(UUID().uuidString).tflite")
        try Data(bytes).write(to: renamed)
        defer { try? FileManager.default.removeItem(at: renamed) }
        do {
            _ = try CompiledModel(contentsOf: renamed)
            Issue.record("an unknown custom operator must not load")
        } catch let e as InferenceError {
            #expect(e.code == .unsupportedOperator)
            #expect(e.message.contains("TransformLandmarkz"))
        }
    }

    @Test func corruptModelIsATypedError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-corrupt-\(UUID().uuidString).tflite")
        var bytes = [UInt8](try Data(contentsOf: TestFiles.installed("hand_recrop.tflite")))
        bytes.removeLast(bytes.count / 2)
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: InferenceError.self) { try CompiledModel(contentsOf: url) }
    }

    @Test func sharedModelAndRepeatableRuns() throws {
        let a = try CompiledModel.load(named: "face_detection_short_range.tflite")
        let b = try CompiledModel.load(named: "face_detection_short_range.tflite")
        #expect(a === b, "a model is loaded once per process")
        #expect(a.partitionSummary.swiftOperators == 2, "the two CONCATENATIONs run as Swift kernels")
        #expect(a.partitionSummary.nativeOperators > 0, "its 3×3 depthwise layers of 16+ channels run on the C kernels")
        let pose = try CompiledModel.load(named: "pose_landmark_full.tflite")
        #expect(pose.partitionSummary.nativeOperators >= 5, "the 8-channel segmentation head at 128² and 256² runs on the C kernels")
        let one = try Interpreter(model: a, threads: 1)
        let two = try Interpreter(model: a, threads: 2)
        var rng = SplitMix64(seed: 3)
        let input = (0..<a.inputs[0].elementCount).map { _ in rng.nextFloat(min: -1, max: 1) }
        try one.setInput(0, input)
        try two.setInput(0, input)
        try one.invoke()
        let first = one.output(0)
        try one.invoke()
        #expect(one.output(0) == first, "buffers are reused without leaking state between runs")
        try two.invoke()
        let other = two.output(0)
        let maxDiff = zip(first, other).map { abs($0 - $1) / max(1, abs($0)) }.max() ?? 0
        #expect(maxDiff < 1e-5, "one and two threads agree")
    }

    @Test func rejectsBadArguments() throws {
        let m = try CompiledModel.load(named: "hand_recrop.tflite")
        #expect(throws: InferenceError.self) { try Interpreter(model: m, threads: 0) }
        let i = try Interpreter(model: m, threads: 1)
        #expect(throws: InferenceError.self) { try i.setInput(0, [1, 2, 3]) }
        #expect(throws: InferenceError.self) { try i.setInput(1, []) }
    }
}

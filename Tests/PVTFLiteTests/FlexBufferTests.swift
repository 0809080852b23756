import Foundation
import PVTFLite
import PVTestSupport
import Testing

/// Custom-operator options: the attention mesh's, as MediaPipe's converter wrote them, and broken ones.
@Suite struct FlexBufferTests {
    static func attentionOptions(_ name: String) throws -> [FlexBufferMap] {
        let m = try Model(bytes: [UInt8](try Data(contentsOf: TestFiles.installed("face_landmark_with_attention.tflite"))))
        return try m.operators.filter { $0.code == .custom(name) }.map { try FlexBufferMap($0.customOptions) }
    }

    @Test func readsTheAttentionMeshCropOptions() throws {
        let crops = try Self.attentionOptions("Landmarks2TransformMatrix")
        try #require(crops.count == 3)
        // Lips, then the eye on the image's left, then the other: rotation points are the mouth and eye corners.
        #expect(try crops.map { try $0.int("left_rotation_idx") } == [61, 33, 362])
        #expect(try crops.map { try $0.int("right_rotation_idx") } == [291, 133, 263])
        #expect(try crops.map { try $0.ints("subset_idxs").count } == [80, 71, 71])
        #expect(try Array(crops[0].ints("subset_idxs").prefix(3)) == [61, 146, 91])
        for c in crops {
            #expect(try c.int("output_width") == 16 && c.int("output_height") == 16)
            #expect(try c.double("scale_x") == 1.5 && c.double("scale_y") == 1.5)
            #expect(try c.double("target_rotation_radians") == 0)
        }
        let sampling = try Self.attentionOptions("TransformTensorBilinear")
        #expect(try sampling.map { try $0.int("output_width") } == [16, 16, 16])
    }

    @Test func missingKeysAndBrokenBytesAreTypedErrors() throws {
        let crop = try #require(try Self.attentionOptions("Landmarks2TransformMatrix").first)
        #expect(throws: ModelError.self) { try crop.int("no_such_key") }
        // A float read as an integer vector, an integer vector read as an integer.
        #expect(throws: ModelError.self) { try crop.ints("scale_x") }
        #expect(throws: ModelError.self) { try crop.int("subset_idxs") }
        let m = try Model(bytes: [UInt8](try Data(contentsOf: TestFiles.installed("face_landmark_with_attention.tflite"))))
        let bytes = try #require(m.operators.first { $0.code == .custom("Landmarks2TransformMatrix") }?.customOptions)
        for broken in [[], [1, 2], Array(bytes.suffix(5)), Array(bytes.prefix(bytes.count - 1)), [UInt8](repeating: 0xff, count: 40)] {
            #expect(throws: ModelError.self) { _ = try FlexBufferMap(broken) }
        }
    }
}

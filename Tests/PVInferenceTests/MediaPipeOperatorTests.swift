import Testing

@testable import PVInference

/// The attention mesh's MediaPipe operators on hand-made inputs whose results can be worked out on paper (the
/// model-level check against MediaPipe is `FaceParityTests.attentionMeshIrisesMatchMediaPipe`).
@Suite struct MediaPipeOperatorTests {
    static func identity() -> [Float] { [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] }

    /// Points of a 20-px square (centre 20, 20) with its left and right edge midpoints, in [N, 3] layout.
    static let square: [Float] = [10, 20, 0, 30, 20, 0, 10, 10, 0, 30, 10, 0, 10, 30, 0, 30, 30, 0]

    @Test func cropMatrixCentresAndScalesTheSubset() {
        let crop = Node.LandmarkCrop(
            subset: [2, 3, 4, 5], left: 0, right: 1, targetRotation: 0, outputWidth: 16, outputHeight: 16, scaleX: 1.5,
            scaleY: 1.5)
        var m = [Float](repeating: .nan, count: 16)
        Self.square.withUnsafeBufferPointer { SwiftKernels.landmarksToTransformMatrix($0.baseAddress!, stride: 3, crop: crop, output: &m) }
        // Level already: the grid's 16 cells span 1.5 × 20 px, and its centre (8, 8) lands on the square's.
        #expect(abs(m[0] - 1.875) < 1e-6 && abs(m[1]) < 1e-6 && abs(m[4]) < 1e-6 && abs(m[5] - 1.875) < 1e-6)
        #expect(abs(m[3] - 5) < 1e-5 && abs(m[7] - 5) < 1e-5)
        #expect(Array(m[8...]) == [0, 0, 1, 0, 0, 0, 0, 1])

        // The same square seen turned by 90° (left → right pointing down): the grid turns with it.
        let turned: [Float] = stride(from: 0, to: Self.square.count, by: 3).flatMap { i in
            [40 - Self.square[i + 1], Self.square[i], 0]
        }
        var t = [Float](repeating: .nan, count: 16)
        turned.withUnsafeBufferPointer { SwiftKernels.landmarksToTransformMatrix($0.baseAddress!, stride: 3, crop: crop, output: &t) }
        // Grid x runs along +y of the image now; the centre still lands on the square's centre (20, 20).
        #expect(abs(t[0]) < 1e-5 && abs(t[4] - 1.875) < 1e-5 && abs(t[1] + 1.875) < 1e-5 && abs(t[5]) < 1e-5)
        #expect(abs(t[0] * 8 + t[1] * 8 + t[3] - 20) < 1e-4 && abs(t[4] * 8 + t[5] * 8 + t[7] - 20) < 1e-4)
    }

    @Test func bilinearCropUsesPixelCentresAndZerosOutside() {
        let input: [Float] = (0..<16).map(Float.init)  // 4×4, one channel: value = 4·y + x
        var out = [Float](repeating: .nan, count: 16)
        // The identity matrix maps each output cell centre onto the same input cell centre.
        input.withUnsafeBufferPointer { i in
            SwiftKernels.transformTensorBilinear(
                i.baseAddress!, height: 4, width: 4, channels: 1, matrix: Self.identity(), output: &out, outputHeight: 4,
                outputWidth: 4)
        }
        #expect(out == input)
        // Half scale: cell centre ox + 0.5 maps to (ox + 0.5) / 2, i.e. pixel coordinate ox / 2 − 0.25: the first
        // column falls before the first pixel centre (zero), the second between columns 0 and 1 (weights ¾, ¼).
        var half = Self.identity()
        half[0] = 0.5
        half[5] = 0.5
        var small = [Float](repeating: .nan, count: 4)
        input.withUnsafeBufferPointer { i in
            SwiftKernels.transformTensorBilinear(
                i.baseAddress!, height: 4, width: 4, channels: 1, matrix: half, output: &small, outputHeight: 2,
                outputWidth: 2)
        }
        #expect(small[0] == 0 && small[1] == 0 && small[2] == 0)
        // (x, y) = (0.25, 0.25): 0.75²·0 + 0.75·0.25·1 + 0.25·0.75·4 + 0.25²·5 = 1.25
        #expect(abs(small[3] - 1.25) < 1e-6)
    }

    @Test func landmarksMapThroughTheMatrixKeepingZ() {
        var m = Self.identity()
        (m[0], m[1], m[3], m[4], m[5], m[7]) = (0, -2, 10, 2, 0, 20)  // turn 90°, double, shift
        let points: [Float] = [1, 0, 7, 0, 1, -3]
        var out = [Float](repeating: .nan, count: 6)
        points.withUnsafeBufferPointer { SwiftKernels.transformLandmarks($0.baseAddress!, count: 2, dimensions: 3, matrix: m, output: &out) }
        #expect(out == [10, 22, 7, 8, 20, -3])
    }
}

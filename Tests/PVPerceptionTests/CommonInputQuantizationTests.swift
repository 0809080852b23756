import Testing

@testable import PVPerception

@Suite("Input quantization to byte levels")
struct CommonInputQuantizationTests {
    /// The vectorised rounding gives the same bits as rounding each value with `rounded(.toNearestOrEven)`
    /// and clamping, including exact ties (k + 0.5 levels), values outside the range and the scalar tail.
    @Test(arguments: [0...1, -1...1] as [ClosedRange<Float>])
    func matchesScalarRounding(range: ClosedRange<Float>) {
        let lo = range.lowerBound, scale = (range.upperBound - lo) / 255, inverse = 255 / (range.upperBound - lo)
        var values: [Float] = []
        for k in -4...260 {
            for f: Float in [0, 0.25, 0.5, 0.5000001, 0.75, 0.999] { values.append((Float(k) + f) * scale + lo) }
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<1001 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Float(Double(state >> 40) / Double(1 << 24)) * (range.upperBound - lo) * 1.2 + lo - 0.1)
        }
        let expected = values.map { t in min(max(((t - lo) * inverse).rounded(.toNearestOrEven), 0), 255) * scale + lo }
        var tensor = values
        tensor.withUnsafeMutableBufferPointer { InputQuantization.roundToByteLevels($0, range: range) }
        #expect(values.count % 8 != 0)
        for (k, (got, want)) in zip(tensor, expected).enumerated() {
            #expect(got.bitPattern == want.bitPattern, "value \(values[k]): \(got) instead of \(want)")
        }
    }
}

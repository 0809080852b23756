import CInferenceKernels
import CXNNPack
import PVTestSupport
import Testing

/// The C convolution kernels against direct loops in Double, on shapes that exercise the edges
/// (one-pixel-wide images, odd widths, channel counts that are not a vector multiple) and the clamp.
@Suite struct NativeKernelTests {
    struct Case: Sendable, CustomStringConvertible {
        let height: Int, width: Int, channels: Int
        var description: String { "\(height)×\(width)×\(channels)" }
    }

    static let cases = [
        Case(height: 1, width: 1, channels: 8), Case(height: 5, width: 1, channels: 3), Case(height: 2, width: 7, channels: 8),
        Case(height: 9, width: 13, channels: 16), Case(height: 33, width: 40, channels: 24), Case(height: 64, width: 300, channels: 32),
    ]

    static func random(_ count: Int, _ rng: inout SplitMix64) -> [Float] {
        (0..<count).map { _ in rng.nextFloat(min: -1, max: 1) }
    }

    /// Σ over the 3×3 zero-padded neighbourhood of input · weights[tap][channel].
    static func taps(_ input: [Float], _ weights: [Float], _ c: Case, y: Int, x: Int, channel k: Int) -> Double {
        var s = 0.0
        for ky in 0..<3 {
            for kx in 0..<3 {
                let yy = y + ky - 1, xx = x + kx - 1
                guard yy >= 0, yy < c.height, xx >= 0, xx < c.width else { continue }
                s += Double(input[(yy * c.width + xx) * c.channels + k]) * Double(weights[(ky * 3 + kx) * c.channels + k])
            }
        }
        return s
    }

    @Test(arguments: cases, [1, 2])
    func depthwiseAndToOneMatchDirectLoops(_ c: Case, threads: Int) {
        var rng = SplitMix64(seed: UInt64(c.height * 1000 + c.width * 10 + c.channels))
        let input = Self.random(c.height * c.width * c.channels, &rng)
        let weights = Self.random(9 * c.channels, &rng), bias = Self.random(c.channels, &rng)
        var expanded = [Float](repeating: 0, count: 9 * c.width * c.channels)
        pvk_expand_taps(weights, c.width, c.channels, &expanded)
        let pool = threads > 1 ? pthreadpool_create(threads) : nil
        defer { pthreadpool_destroy(pool) }

        var dw = [Float](repeating: .nan, count: input.count)
        pvk_depthwise3x3(input, &dw, c.height, c.width, c.channels, weights, bias, expanded, -0.5, 0.75, pool)
        var one = [Float](repeating: .nan, count: c.height * c.width)
        pvk_conv3x3_to1(input, &one, c.height, c.width, c.channels, weights, 0.25, expanded, -.infinity, .infinity, pool)

        var worstDW = 0.0, worstOne = 0.0
        for y in 0..<c.height {
            for x in 0..<c.width {
                var sum = 0.25
                for k in 0..<c.channels {
                    let t = Self.taps(input, weights, c, y: y, x: x, channel: k)
                    sum += t
                    let expected = min(0.75, max(-0.5, t + Double(bias[k])))
                    worstDW = max(worstDW, abs(expected - Double(dw[(y * c.width + x) * c.channels + k])))
                }
                worstOne = max(worstOne, abs(sum - Double(one[y * c.width + x])))
            }
        }
        #expect(worstDW < 1e-5, "depthwise \(c): \(worstDW)")
        #expect(worstOne < 1e-4, "3×3 → 1 \(c): \(worstOne)")
    }

    @Test(arguments: [(1, 8), (3, 8), (8, 16), (16, 8), (13, 16)])
    func pointwiseMatchesDirectLoops(_ inC: Int, _ outC: Int) {
        var rng = SplitMix64(seed: UInt64(inC * 100 + outC))
        let pixels = 1000
        let input = Self.random(pixels * inC, &rng), weights = Self.random(outC * inC, &rng), bias = Self.random(outC, &rng)
        var out = [Float](repeating: .nan, count: pixels * outC)
        pvk_conv1x1(input, &out, pixels, inC, outC, weights, bias, 0, 6, nil)
        var worst = 0.0
        for p in 0..<pixels {
            for o in 0..<outC {
                var s = Double(bias[o])
                for i in 0..<inC { s += Double(input[p * inC + i]) * Double(weights[o * inC + i]) }
                worst = max(worst, abs(min(6, max(0, s)) - Double(out[p * outC + o])))
            }
        }
        #expect(worst < 1e-5)
    }

    @Test func pointwiseRefusesShapesItCannotRun() {
        // Output channels must be a multiple of 8: the output is left untouched rather than half-written.
        var out = [Float](repeating: 7, count: 12)
        pvk_conv1x1([Float](repeating: 1, count: 4), &out, 2, 2, 6, [Float](repeating: 1, count: 12), nil, -.infinity, .infinity, nil)
        #expect(out.allSatisfy { $0 == 7 })
    }
}

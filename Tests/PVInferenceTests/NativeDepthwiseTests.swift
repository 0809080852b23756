import CInferenceKernels
import CXNNPack
import PVTestSupport
import Testing

/// The wide depthwise kernel (`pvk_depthwise`) against XNNPACK's own depthwise operator on the same data:
/// the outputs must be bit-identical, on shapes that exercise the edges (widths and heights smaller than
/// the kernel, odd sizes, asymmetric padding), both strides, both kernel sizes, several channel counts,
/// the clamp, and both the AVX2 and the AVX-512 variant where the CPU has them.
@Suite struct NativeDepthwiseTests {
    struct Case: Sendable, CustomStringConvertible {
        let height: Int, width: Int, channels: Int, kernel: Int, stride: Int, padTop: Int, padLeft: Int, padBottom: Int, padRight: Int
        var description: String { "\(kernel)×\(kernel)/\(stride) \(height)×\(width)×\(channels) pad \(padTop),\(padLeft),\(padBottom),\(padRight)" }
        var outHeight: Int { (height + padTop + padBottom - kernel) / stride + 1 }
        var outWidth: Int { (width + padLeft + padRight - kernel) / stride + 1 }
    }

    /// "Same" padding as TFLite computes it (the extra pixel goes to the bottom and right).
    static func same(_ h: Int, _ w: Int, _ c: Int, kernel k: Int, stride s: Int) -> Case {
        func pads(_ n: Int) -> (Int, Int) {
            let out = (n + s - 1) / s, total = max(0, (out - 1) * s + k - n)
            return (total / 2, total - total / 2)
        }
        let (t, b) = pads(h), (l, r) = pads(w)
        return Case(height: h, width: w, channels: c, kernel: k, stride: s, padTop: t, padLeft: l, padBottom: b, padRight: r)
    }

    static let cases: [Case] = [
        same(1, 1, 16, kernel: 3, stride: 1), same(2, 3, 16, kernel: 5, stride: 1), same(7, 13, 32, kernel: 3, stride: 1),
        same(9, 11, 16, kernel: 5, stride: 1), same(24, 24, 64, kernel: 5, stride: 1), same(17, 31, 48, kernel: 3, stride: 2),
        same(16, 16, 32, kernel: 3, stride: 2), same(23, 10, 24, kernel: 5, stride: 2), same(48, 48, 128, kernel: 5, stride: 2),
        same(12, 12, 256, kernel: 5, stride: 1), same(5, 40, 8, kernel: 3, stride: 1), same(33, 21, 40, kernel: 5, stride: 1),
        // Padding beyond "same" (a folded PAD operator) and none at all.
        Case(height: 10, width: 12, channels: 16, kernel: 5, stride: 1, padTop: 3, padLeft: 4, padBottom: 1, padRight: 0),
        Case(height: 14, width: 9, channels: 32, kernel: 3, stride: 2, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
    ]

    static func xnnpack(_ c: Case, _ input: [Float], _ weights: [Float], _ bias: [Float], min lo: Float, max hi: Float) -> [Float] {
        #expect(xnn_initialize(nil) == xnn_status_success)
        var op: xnn_operator_t?
        let status = xnn_create_convolution2d_nhwc_f32(
            UInt32(c.padTop), UInt32(c.padRight), UInt32(c.padBottom), UInt32(c.padLeft), UInt32(c.kernel), UInt32(c.kernel),
            UInt32(c.stride), UInt32(c.stride), 1, 1, UInt32(c.channels), 1, 1, c.channels, c.channels, weights, bias, lo, hi,
            UInt32(XNN_FLAG_DEPTHWISE_CONVOLUTION), &op)
        #expect(status == xnn_status_success)
        defer { xnn_delete_operator(op) }
        var out = [Float](repeating: .nan, count: c.outHeight * c.outWidth * c.channels)
        #expect(xnn_setup_convolution2d_nhwc_f32(op, 1, c.height, c.width, input, &out, nil) == xnn_status_success)
        #expect(xnn_run_operator(op, nil) == xnn_status_success)
        return out
    }

    @Test(arguments: cases, [1, 2])
    func bitIdenticalToXNNPACK(_ c: Case, level: Int32) {
        let available = pvk_depthwise_level(c.channels, c.kernel, c.stride, level)
        #expect(available <= level)
        guard available > 0 else { return }  // e.g. a CPU without AVX2: nothing of ours runs
        var rng = SplitMix64(seed: UInt64(c.height * 7919 + c.width * 104_729 + c.channels * 31 + c.kernel * 3 + c.stride))
        let input = (0..<(c.height * c.width * c.channels)).map { _ in rng.nextFloat(min: -1, max: 1) }
        let weights = (0..<(c.kernel * c.kernel * c.channels)).map { _ in rng.nextFloat(min: -1, max: 1) }
        let bias = (0..<c.channels).map { _ in rng.nextFloat(min: -0.5, max: 0.5) }
        for (lo, hi) in [(-Float.infinity, Float.infinity), (0, 6), (-0.75, 0.5)] {
            let expected = Self.xnnpack(c, input, weights, bias, min: lo, max: hi)
            for threads in [1, 2] {
                let pool = threads > 1 ? pthreadpool_create(threads) : nil
                defer { pthreadpool_destroy(pool) }
                var out = [Float](repeating: .nan, count: expected.count)
                let zeros = [Float](repeating: 0, count: c.width * c.channels)
                let used = pvk_depthwise(
                    input, &out, c.height, c.width, c.channels, c.outHeight, c.outWidth, c.kernel, c.stride, c.padTop, c.padLeft,
                    weights, bias, zeros, lo, hi, level, pool)
                #expect(used == available)
                let mismatches = zip(out, expected).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(mismatches == 0, "\(c), level \(used), clamp \(lo)…\(hi), \(threads) thread(s): \(mismatches) of \(out.count) differ")
            }
        }
    }

    @Test func refusesShapesItCannotRun() {
        var out = [Float](repeating: 7, count: 4 * 4 * 12)
        let input = [Float](repeating: 1, count: 4 * 4 * 12), weights = [Float](repeating: 1, count: 9 * 12)
        let zeros = [Float](repeating: 0, count: 4 * 16)
        // 12 channels fill no vector; kernel 7 and stride 3 are not implemented.
        #expect(pvk_depthwise(input, &out, 4, 4, 12, 4, 4, 3, 1, 1, 1, weights, nil, zeros, -.infinity, .infinity, 2, nil) == 0)
        #expect(pvk_depthwise(input, &out, 4, 4, 16, 1, 1, 7, 1, 0, 0, weights, nil, zeros, -.infinity, .infinity, 2, nil) == 0)
        #expect(pvk_depthwise(input, &out, 4, 4, 16, 2, 2, 3, 3, 0, 0, weights, nil, zeros, -.infinity, .infinity, 2, nil) == 0)
        #expect(pvk_depthwise(input, &out, 4, 4, 16, 2, 2, 3, 1, 0, 0, weights, nil, zeros, -.infinity, .infinity, 0, nil) == 0)
        #expect(out.allSatisfy { $0 == 7 })
    }
}

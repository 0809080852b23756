import CInferenceKernels
import CXNNPack
import PVTestSupport
import Testing

@testable import PVInference

/// The fused depthwise + 1×1 kernel (`pvk_depthwise_pointwise`) against the two kernels it fuses, run one after
/// the other (each is compared with XNNPACK bit for bit in its own suite): the outputs must be bit-identical,
/// with and without a residual and PReLU slopes, at both strides and kernel sizes, on rows that end in a partial
/// register tile, with one and two threads.
@Suite struct NativeDepthwisePointwiseTests {
    struct Case: Sendable, CustomStringConvertible {
        let height: Int, width: Int, channels: Int, outputChannels: Int, kernel: Int, stride: Int
        var residual = false, slopes = false
        var description: String {
            "\(kernel)×\(kernel)/\(stride) \(height)×\(width)×\(channels)→\(outputChannels)"
                + (residual ? " +residual" : "") + (slopes ? " prelu" : "")
        }
        var pad: Int { (kernel - 1) / 2 }
        var outHeight: Int { (height + 2 * pad - kernel) / stride + 1 }
        var outWidth: Int { (width + 2 * pad - kernel) / stride + 1 }
    }

    static let cases: [Case] = [
        Case(height: 9, width: 37, channels: 32, outputChannels: 8, kernel: 3, stride: 1),
        Case(height: 6, width: 40, channels: 8, outputChannels: 32, kernel: 3, stride: 1, residual: true),
        Case(height: 11, width: 33, channels: 16, outputChannels: 64, kernel: 3, stride: 2),
        Case(height: 5, width: 48, channels: 64, outputChannels: 48, kernel: 3, stride: 1, residual: true, slopes: true),
        Case(height: 7, width: 35, channels: 24, outputChannels: 40, kernel: 5, stride: 1, slopes: true),
        Case(height: 8, width: 64, channels: 48, outputChannels: 24, kernel: 5, stride: 2),
        Case(height: 1, width: 1, channels: 8, outputChannels: 8, kernel: 3, stride: 1, residual: true),
    ]

    @Test(arguments: cases)
    func bitIdenticalToTheTwoKernels(_ c: Case) {
        guard pvk_pointwise_supported(c.channels, c.outputChannels) != 0 else {
            // Only a CPU without AVX-512 gets here: the planner then fuses nothing.
            #expect(Plan.pointwiseAvailable == false)
            return
        }
        var rng = SplitMix64(seed: UInt64(c.height * 1000 + c.width * 10 + c.kernel))
        func values(_ n: Int) -> [Float] { (0..<n).map { _ in rng.nextFloat(min: -1, max: 1) } }
        let input = values(c.height * c.width * c.channels)
        let dwWeights = values(c.kernel * c.kernel * c.channels), dwBias = values(c.channels)
        let pwWeights = values(c.channels * c.outputChannels), pwBias = values(c.outputChannels)
        let pixels = c.outHeight * c.outWidth
        let residual = c.residual ? values(pixels * c.outputChannels) : nil
        let slopes = c.slopes ? values(c.outputChannels) : nil
        let zeros = [Float](repeating: 0, count: c.width * c.channels)
        var packed = [Float](repeating: 0, count: c.channels * c.outputChannels), packedBias = [Float](repeating: 0, count: c.outputChannels)
        pvk_pointwise_pack(pwWeights, pwBias, c.channels, c.outputChannels, &packed, &packedBias)
        let (lo, hi): (Float, Float) = c.residual || c.slopes ? (-.infinity, .infinity) : (0, 6)
        for threads in [1, 2] {
            let pool = threads > 1 ? pthreadpool_create(threads) : nil
            defer { pthreadpool_destroy(pool) }
            var middle = [Float](repeating: .nan, count: pixels * c.channels)
            var expected = [Float](repeating: .nan, count: pixels * c.outputChannels)
            var fused = expected
            #expect(
                pvk_depthwise(
                    input, &middle, c.height, c.width, c.channels, c.outHeight, c.outWidth, c.kernel, c.stride, c.pad, c.pad, dwWeights,
                    dwBias, zeros, -1, 1, 2, pool) == 2)
            #expect(
                pvk_pointwise(
                    middle, &expected, pixels, c.channels, c.outputChannels, packed, packedBias, residual, slopes, lo, hi, pool) == 1)
            #expect(
                pvk_depthwise_pointwise(
                    input, &fused, c.height, c.width, c.channels, c.outHeight, c.outWidth, c.kernel, c.stride, c.pad, c.pad, dwWeights,
                    dwBias, zeros, -1, 1, c.outputChannels, packed, packedBias, residual, slopes, lo, hi, pool) == 1)
            #expect(fused.map(\.bitPattern) == expected.map(\.bitPattern), "\(c), \(threads) thread(s)")
        }
    }

    @Test func refusesRowsLongerThanItsScratchRow() {
        let width = Int(PVK_DWPW_SCRATCH) / 16 + 1
        let input = [Float](repeating: 1, count: width * 16), weights = [Float](repeating: 1, count: 9 * 16)
        let zeros = [Float](repeating: 0, count: width * 16), packed = [Float](repeating: 1, count: 16 * 8)
        let bias = [Float](repeating: 0, count: 8)
        var out = [Float](repeating: -7, count: width * 8)
        #expect(
            pvk_depthwise_pointwise(
                input, &out, 1, width, 16, 1, width, 3, 1, 1, 1, weights, nil, zeros, -.infinity, .infinity, 8, packed, bias, nil, nil,
                -.infinity, .infinity, nil) == 0)
        #expect(out.allSatisfy { $0 == -7 })
        // Channels the depthwise kernel cannot run (not a multiple of 8).
        #expect(
            pvk_depthwise_pointwise(
                input, &out, 1, 4, 12, 1, 4, 3, 1, 1, 1, weights, nil, zeros, -.infinity, .infinity, 8, packed, bias, nil, nil,
                -.infinity, .infinity, nil) == 0)
        #expect(out.allSatisfy { $0 == -7 })
    }
}

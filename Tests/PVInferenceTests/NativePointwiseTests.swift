import CInferenceKernels
import CXNNPack
import Foundation
import PVTestSupport
import Testing

@testable import PVInference

/// The AVX-512 1×1 convolution (`pvk_pointwise`) against XNNPACK's convolution, and XNNPACK's ADD after it for
/// the fused residual: the outputs must be bit-identical, on every output chunk width (64, 48, 32, 16, 8 and
/// their sums), pixel counts that leave a partial register tile, one and two threads, and several clamps.
@Suite struct NativePointwiseTests {
    struct Case: Sendable, CustomStringConvertible {
        let pixels: Int, inputChannels: Int, outputChannels: Int
        var description: String { "\(pixels) px \(inputChannels)→\(outputChannels)" }
    }

    static let cases = [
        Case(pixels: 1, inputChannels: 1, outputChannels: 8), Case(pixels: 7, inputChannels: 3, outputChannels: 16),
        Case(pixels: 37, inputChannels: 8, outputChannels: 32), Case(pixels: 101, inputChannels: 16, outputChannels: 64),
        Case(pixels: 53, inputChannels: 48, outputChannels: 64), Case(pixels: 29, inputChannels: 64, outputChannels: 48),
        Case(pixels: 61, inputChannels: 24, outputChannels: 40), Case(pixels: 13, inputChannels: 128, outputChannels: 136),
        Case(pixels: 97, inputChannels: 256, outputChannels: 256), Case(pixels: 5, inputChannels: 33, outputChannels: 24),
        Case(pixels: 300, inputChannels: 32, outputChannels: 8), Case(pixels: 49, inputChannels: 1152, outputChannels: 120),
    ]

    static func run(_ op: xnn_operator_t?) {
        #expect(xnn_run_operator(op, nil) == xnn_status_success)
    }

    /// XNNPACK's convolution (no activation when `residual` or `slopes` follow, as in a model), then its ADD with the
    /// clamp, then its PRELU.
    static func xnnpack(
        _ c: Case, _ input: [Float], _ weights: [Float], _ bias: [Float], residual: [Float]?, slopes: [Float]? = nil, min lo: Float,
        max hi: Float
    ) -> [Float] {
        #expect(xnn_initialize(nil) == xnn_status_success)
        var conv: xnn_operator_t?
        let plain = residual == nil && slopes == nil
        let convMin = plain ? lo : -.infinity, convMax = plain ? hi : .infinity
        #expect(
            xnn_create_convolution2d_nhwc_f32(
                0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, c.inputChannels, c.outputChannels, c.inputChannels, c.outputChannels, weights, bias,
                convMin, convMax, 0, &conv) == xnn_status_success)
        defer { xnn_delete_operator(conv) }
        var out = [Float](repeating: .nan, count: c.pixels * c.outputChannels)
        #expect(xnn_setup_convolution2d_nhwc_f32(conv, 1, 1, c.pixels, input, &out, nil) == xnn_status_success)
        run(conv)
        if let slopes {
            var prelu: xnn_operator_t?
            #expect(xnn_create_prelu_nc_f32(c.outputChannels, c.outputChannels, c.outputChannels, slopes, 0, &prelu) == xnn_status_success)
            defer { xnn_delete_operator(prelu) }
            var activated = [Float](repeating: .nan, count: out.count)
            #expect(xnn_setup_prelu_nc_f32(prelu, c.pixels, out, &activated, nil) == xnn_status_success)
            run(prelu)
            return activated
        }
        guard let residual else { return out }
        var add: xnn_operator_t?
        #expect(xnn_create_add_nd_f32(lo, hi, 0, &add) == xnn_status_success)
        defer { xnn_delete_operator(add) }
        var sum = [Float](repeating: .nan, count: out.count)
        let shape = [1, c.pixels, c.outputChannels]
        #expect(xnn_setup_add_nd_f32(add, 3, shape, 3, shape, out, residual, &sum, nil) == xnn_status_success)
        run(add)
        return sum
    }

    @Test(arguments: cases)
    func bitIdenticalToXNNPACK(_ c: Case) {
        guard pvk_pointwise_supported(c.inputChannels, c.outputChannels) != 0 else {
            // Only a CPU without AVX-512 gets here: the planner then keeps these layers on XNNPACK.
            #expect(Plan.pointwiseAvailable == false)
            return
        }
        var rng = SplitMix64(seed: UInt64(c.pixels * 7919 + c.inputChannels * 31 + c.outputChannels))
        let input = (0..<(c.pixels * c.inputChannels)).map { _ in rng.nextFloat(min: -1, max: 1) }
        let weights = (0..<(c.outputChannels * c.inputChannels)).map { _ in rng.nextFloat(min: -1, max: 1) }
        let bias = (0..<c.outputChannels).map { _ in rng.nextFloat(min: -0.5, max: 0.5) }
        let residual = (0..<(c.pixels * c.outputChannels)).map { _ in rng.nextFloat(min: -2, max: 2) }
        var packed = [Float](repeating: .nan, count: c.inputChannels * c.outputChannels)
        var packedBias = [Float](repeating: .nan, count: c.outputChannels)
        pvk_pointwise_pack(weights, bias, c.inputChannels, c.outputChannels, &packed, &packedBias)
        // A PReLU after the convolution (palm detectors), slopes of both signs and exact zeros.
        let slopes = (0..<c.outputChannels).map { k in k % 5 == 0 ? 0 : rng.nextFloat(min: -0.5, max: 0.5) }
        let preluExpected = Self.xnnpack(c, input, weights, bias, residual: nil, slopes: slopes, min: -.infinity, max: .infinity)
        var preluOut = [Float](repeating: .nan, count: preluExpected.count)
        #expect(
            pvk_pointwise(
                input, &preluOut, c.pixels, c.inputChannels, c.outputChannels, packed, packedBias, nil, slopes, -.infinity,
                .infinity, nil) == 1)
        #expect(zip(preluOut, preluExpected).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(c) with PReLU")
        for (lo, hi) in [(-Float.infinity, Float.infinity), (0, 6), (-0.75, 0.5)] {
            for withResidual in [false, true] {
                let expected = Self.xnnpack(c, input, weights, bias, residual: withResidual ? residual : nil, min: lo, max: hi)
                for threads in [1, 2] {
                    let pool = threads > 1 ? pthreadpool_create(threads) : nil
                    defer { pthreadpool_destroy(pool) }
                    var out = [Float](repeating: .nan, count: expected.count)
                    let done = residual.withUnsafeBufferPointer { r in
                        pvk_pointwise(
                            input, &out, c.pixels, c.inputChannels, c.outputChannels, packed, packedBias,
                            withResidual ? r.baseAddress : nil, nil, lo, hi, pool)
                    }
                    #expect(done == 1)
                    let mismatches = zip(out, expected).filter { $0.bitPattern != $1.bitPattern }.count
                    #expect(
                        mismatches == 0,
                        "\(c), clamp \(lo)…\(hi), residual \(withResidual), \(threads) thread(s): \(mismatches) of \(out.count) differ")
                }
            }
        }
    }

    @Test func packingWithoutBiasGivesZeros() {
        var packedBias = [Float](repeating: .nan, count: 16)
        var packed = [Float](repeating: .nan, count: 2 * 16)
        pvk_pointwise_pack([Float](repeating: 1, count: 32), nil, 2, 16, &packed, &packedBias)
        #expect(packedBias.allSatisfy { $0 == 0 })
        #expect(packed.allSatisfy { $0 == 1 })
    }

    @Test func refusesShapesItCannotRun() {
        // Output channels must be a multiple of 8: the output is left untouched rather than half-written.
        #expect(pvk_pointwise_supported(4, 12) == 0)
        #expect(pvk_pointwise_supported(0, 16) == 0)
        var out = [Float](repeating: 7, count: 2 * 12)
        let done = pvk_pointwise(
            [Float](repeating: 1, count: 8), &out, 2, 4, 12, [Float](repeating: 1, count: 48), [Float](repeating: 0, count: 12), nil,
            nil, -.infinity, .infinity, nil)
        #expect(done == 0)
        #expect(out.allSatisfy { $0 == 7 })
    }

    /// Whole models: with our kernels (pointwise layers and fused residual ADDs included) every output is
    /// bit-identical to the XNNPACK-only lowering of the same model, on a random input. The exception is an output
    /// computed from a 3×3 convolution to one channel (`pvk_conv3x3_to1`, pose_landmark_full's segmentation head),
    /// which sums the channels in its own order: there the values agree to 1e-5.
    @Test(arguments: ModelStore.pipelineModels + ModelStore.mediaPipeOperatorModels)
    func modelsMatchTheXNNPACKOnlyLoweringBitForBit(model stem: String) throws {
        let url = try TestFiles.installed("\(stem).tflite")
        let own = try CompiledModel(contentsOf: url, ownKernels: true)
        let plain = try CompiledModel(contentsOf: url, ownKernels: false)
        if Plan.pointwiseAvailable, stem == "face_detection_full_range_sparse" {
            // Its residual blocks end in 1×1 convolution → ADD: each ADD is folded into the convolution.
            #expect(own.plan.nodes.count < plain.plan.nodes.count)
            #expect(own.plan.nativeKernels.values.contains { if case .pointwise(_, _, .some, _, _) = $0 { true } else { false } })
        }
        if Plan.pointwiseAvailable, stem == "palm_detection_full" {
            // Its blocks end in 1×1 convolution → ADD → PRELU: both are folded into the convolution.
            #expect(own.plan.nativeKernels.values.contains { if case .pointwise(_, _, .some, .some, _) = $0 { true } else { false } })
        }
        var rng = SplitMix64(seed: 42)
        let a = try Interpreter(model: own, threads: 1), b = try Interpreter(model: plain, threads: 1)
        for k in own.inputs.indices {
            let values = (0..<own.inputs[k].shape.reduce(1, *)).map { _ in rng.nextFloat(min: -1, max: 1) }
            try a.setInput(k, values)
            try b.setInput(k, values)
        }
        try a.invoke()
        try b.invoke()
        // Tensors computed from a 3×3 → one channel layer, directly or through later layers.
        var reordered = Set<Int>()
        for (n, node) in own.plan.nodes.enumerated() {
            let fromToOne: Bool
            if case .convolution3x3ToOne? = own.plan.nativeKernels[n] { fromToOne = true } else { fromToOne = false }
            if fromToOne || node.inputs.contains(where: reordered.contains) { reordered.formUnion(node.outputs) }
        }
        for o in own.outputs.indices {
            let x = a.output(o), y = b.output(o)
            if reordered.contains(own.plan.outputs[o]) {
                let worst = zip(x, y).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
                #expect(worst <= 1e-5, "\(stem) output \(o): \(worst)")
            } else {
                let mismatches = zip(x, y).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(mismatches == 0, "\(stem) output \(o): \(mismatches) of \(x.count) values differ")
            }
        }
    }
}

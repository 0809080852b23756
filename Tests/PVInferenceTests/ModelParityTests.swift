import Foundation
import PVInference
import PVTestSupport
import Testing

/// Every model the pipelines use, run by our executor, against the TensorFlow Lite interpreter's outputs.
@Suite struct ModelParityTests {

    /// Absolute tolerance, or relative for |reference| > 1. Per-model overrides only where kernel summation order
    /// alone makes the error larger (see Documentation/Inference.md), never above 1e-3.
    static func tolerance(_ model: String, output: Int) -> Float {
        switch model {
        // The reference computes this model's last two operators (the custom transposed convolution and the
        // sigmoid) in float64 numpy; ours runs them in float32 on XNNPACK. Measured on the astronaut case:
        // max 1.13e-4, 99.9th percentile 2.9e-5.
        case "selfie_segmentation_landscape": return 2e-4
        default: return 1e-4
        }
    }

    @Test(arguments: ModelStore.pipelineModels)
    func matchesReference(model stem: String) throws {
        let golden = try InferenceGolden.load(stem)
        let compiled = try CompiledModel(contentsOf: try TestFiles.installed("\(stem).tflite"))
        let interpreter = try Interpreter(model: compiled, threads: 1)
        #expect(compiled.outputs.count == golden.cases[0].outputs.count)
        for c in golden.cases {
            try interpreter.setInput(0, golden.inputValues(c))
            try interpreter.invoke()
            for o in c.outputs {
                #expect(compiled.outputs[o.index].shape == o.shape, "\(stem) output \(o.index) shape")
                let ours = interpreter.output(o.index)
                let tol = Self.tolerance(stem, output: o.index)
                var worst: Float = 0
                var worstAt = 0
                var errors: [Float] = []
                for (i, ref) in golden.reference(o) {
                    let err = abs(ours[i] - ref) / max(1, abs(ref))
                    errors.append(err)
                    if !(err <= worst) { worst = err; worstAt = i }
                }
                if ProcessInfo.processInfo.environment["PV_PARITY_REPORT"] != nil {
                    errors.sort()
                    let p999 = errors[min(errors.count - 1, Int(Double(errors.count) * 0.999))]
                    print("parity \(stem) \(c.name) out\(o.index) n=\(errors.count) max=\(worst) p99.9=\(p999)")
                }
                #expect(worst <= tol, "\(stem) case \(c.name) output \(o.index) (\(o.name)): max error \(worst) at \(worstAt)")
            }
        }
    }
}

// The model reader's fuzz target (see Fuzz/README.md): every input must parse or throw ModelError, as a model and as
// custom-operator options (FlexBuffers); a trap, a sanitizer report or a time-out is a finding.
//
// FUZZ_MAKE_SEEDS=<dir> with FUZZ_SEED_MODEL=<file.tflite>: writes each custom operator's options of that model into
// <dir> as seeds of their own, and exits.
import Foundation
import FuzzDriver
import PVTFLite

@main
enum FuzzModelReader {
    static func main() {
        let env = ProcessInfo.processInfo.environment
        if let directory = env["FUZZ_MAKE_SEEDS"], let path = env["FUZZ_SEED_MODEL"] {
            do {
                let model = try Model(contentsOf: URL(fileURLWithPath: path))
                for (k, op) in model.operators.enumerated() where !op.customOptions.isEmpty {
                    try Data(op.customOptions).write(to: URL(fileURLWithPath: directory).appendingPathComponent("options-\(k)"))
                }
                exit(0)
            } catch {
                fuzzReport("cannot write seeds: \(error)\n")
                exit(1)
            }
        }
        exit(fuzzMain(readOneInput))
    }
}

/// The fuzz body: the input as a model, and as custom-operator options (the corpus holds the attention mesh's).
func readOneInput(_ input: UnsafeRawBufferPointer) {
    let bytes = Array(input)
    readOptions(bytes)
    guard let model = try? Model(bytes: bytes) else { return }
    for op in model.operators where !op.customOptions.isEmpty { readOptions(op.customOptions) }
    // Exercise the constant readers and the densifier on whatever parsed.
    for (i, t) in model.tensors.enumerated() {
        if t.type == .float32 || t.type == .float16, let values = try? model.floatValues(of: i), let s = t.sparsity {
            _ = try? s.densify(values, shape: t.shape)
        }
        if t.type == .int32 { _ = try? model.intValues(of: i) }
    }
}

/// Reads every key of a FlexBuffer map every way an operator might.
func readOptions(_ bytes: [UInt8]) {
    guard let map = try? FlexBufferMap(bytes) else { return }
    for key in map.keys {
        _ = try? map.int(key)
        _ = try? map.double(key)
        _ = try? map.ints(key)
    }
}

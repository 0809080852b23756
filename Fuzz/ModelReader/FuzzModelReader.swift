import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// FUZZ_MAKE_SEEDS=<dir> with FUZZ_SEED_MODEL=<file.tflite>: writes each custom operator's options of that model
// into <dir> as seeds of their own, and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let env = ProcessInfo.processInfo.environment
    guard let directory = env["FUZZ_MAKE_SEEDS"], let path = env["FUZZ_SEED_MODEL"] else { return 0 }
    do {
        let model = try Model(contentsOf: URL(fileURLWithPath: path))
        for (k, op) in model.operators.enumerated() where !op.customOptions.isEmpty {
            try Data(op.customOptions).write(to: URL(fileURLWithPath: directory).appendingPathComponent("options-\(k)"))
        }
        exit(0)
    } catch {
        fputs("cannot write seeds: \(error)\n", stderr)
        exit(1)
    }
}

// libFuzzer entry point: every input must either parse or throw ModelError; anything else
// (a trap, an out-of-bounds read caught by AddressSanitizer, a hang) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The input as custom-operator options too (the corpus holds the attention mesh's).
    readOptions(bytes)
    guard let model = try? Model(bytes: bytes) else { return 0 }
    for op in model.operators where !op.customOptions.isEmpty { readOptions(op.customOptions) }
    // Exercise the constant readers and the densifier on whatever parsed.
    for (i, t) in model.tensors.enumerated() {
        if t.type == .float32 || t.type == .float16, let values = try? model.floatValues(of: i), let s = t.sparsity {
            _ = try? s.densify(values, shape: t.shape)
        }
        if t.type == .int32 { _ = try? model.intValues(of: i) }
    }
    return 0
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

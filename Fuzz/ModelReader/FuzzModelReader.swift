// libFuzzer entry point: every input must either parse or throw ModelError; anything else
// (a trap, an out-of-bounds read caught by AddressSanitizer, a hang) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let model = try? Model(bytes: bytes) else { return 0 }
    // Exercise the constant readers and the densifier on whatever parsed.
    for (i, t) in model.tensors.enumerated() {
        if t.type == .float32 || t.type == .float16, let values = try? model.floatValues(of: i), let s = t.sparsity {
            _ = try? s.densify(values, shape: t.shape)
        }
        if t.type == .int32 { _ = try? model.intValues(of: i) }
    }
    return 0
}

import PVCore
extension Model {
    /// The constant data of a float tensor (float32, or float16 widened to float32), as stored.
    ///
    /// Sparse tensors return their stored non-zero values; ``Sparsity/densify(_:shape:)`` expands them.
    /// - Throws: ``ModelError`` when the tensor has no data, is not a float type, or its buffer size does not
    ///   match its shape.
    public func floatValues(of tensor: Int) throws -> [Float] {
        let t = tensors[tensor]
        guard let raw = constantBytes(of: tensor) else {
            throw ModelError(.malformed, "tensor \(tensor) ('\(t.name)') has no constant data")
        }
        let size = t.type.size
        guard t.type == .float32 || t.type == .float16 else {
            throw ModelError(.unsupported, "tensor '\(t.name)' has type \(t.type), expected FLOAT32 or FLOAT16")
        }
        guard raw.count % size == 0 else {
            throw ModelError(.malformed, "tensor '\(t.name)' has \(raw.count) bytes, not a multiple of \(size)")
        }
        let n = raw.count / size
        if t.sparsity == nil && n != t.elementCount {
            throw ModelError(.malformed, "tensor '\(t.name)' has \(n) values for shape \(t.shape)")
        }
        return raw.withUnsafeBytes { p -> [Float] in
            if t.type == .float32 {
                return (0..<n).map { Float(bitPattern: p.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self).littleEndian) }
            }
            return [Float](unsafeUninitializedCapacity: n) { out, count in
                for i in 0..<n { out[i] = Self.widen(half: p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self).littleEndian) }
                count = n
            }
        }
    }

    /// `Float(Float16(bitPattern: bits))`, exactly, without a library call (on x86-64 without F16C, the standard
    /// conversion calls a runtime function per value, which made fp16 models slow to load).
    ///
    /// The half's exponent and mantissa, shifted into a float's, read as a float 2¹¹² times too small
    /// (the exponent biases differ by 127 − 15); multiplying by 2¹¹² is exact, subnormal halves included.
    /// Infinities and NaNs keep an all-ones exponent.
    @inline(__always)
    static func widen(half bits: UInt16) -> Float {
        let magnitude = UInt32(bits & 0x7fff)
        let sign = UInt32(bits & 0x8000) << 16
        let scaled = Float(bitPattern: magnitude << 13) * 0x1p112
        let special = Float(bitPattern: (magnitude << 13) | 0x7f80_0000)
        let value = magnitude >= 0x7c00 ? special : scaled
        return Float(bitPattern: value.bitPattern | sign)
    }

    /// The constant data of an int32 (or int64, narrowed with a range check) tensor.
    public func intValues(of tensor: Int) throws -> [Int] {
        let t = tensors[tensor]
        guard let raw = constantBytes(of: tensor) else {
            throw ModelError(.malformed, "tensor \(tensor) ('\(t.name)') has no constant data")
        }
        switch t.type {
        case .int32:
            guard raw.count == 4 * t.elementCount else {
                throw ModelError(.malformed, "tensor '\(t.name)' has \(raw.count) bytes for shape \(t.shape)")
            }
            return raw.withUnsafeBytes { p in
                (0..<t.elementCount).map { Int(Int32(bitPattern: p.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self).littleEndian)) }
            }
        case .int64:
            guard raw.count == 8 * t.elementCount else {
                throw ModelError(.malformed, "tensor '\(t.name)' has \(raw.count) bytes for shape \(t.shape)")
            }
            return raw.withUnsafeBytes { p in
                (0..<t.elementCount).map { Int(Int64(bitPattern: p.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self).littleEndian)) }
            }
        default:
            throw ModelError(.unsupported, "tensor '\(t.name)' has type \(t.type), expected INT32 or INT64")
        }
    }
}

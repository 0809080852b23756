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
            return (0..<n).map { Float(Float16(bitPattern: p.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self).littleEndian)) }
        }
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

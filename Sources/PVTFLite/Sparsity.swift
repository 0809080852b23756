/// How a sparse constant tensor is stored (the schema's `SparsityParameters`).
///
/// The stored tensor is a walk over an expanded shape: the original dimensions (split into
/// blocks where `blockMap` says so) followed by the block dimensions, visited in
/// `traversalOrder`. Each level is dense (every index) or compressed (CSR: segment bounds plus
/// indices), exactly as TensorFlow Lite's DENSIFY operator reads it.
import PVCore
public struct Sparsity: Sendable, Hashable {
    /// One level of the traversal.
    public enum Dimension: Sendable, Hashable {
        /// Every index `0 ..< size` is stored.
        case dense(size: Int)
        /// Compressed: for parent position `p`, the stored indices are `indices[segments[p] ..< segments[p + 1]]`.
        case sparse(segments: [Int], indices: [Int])
    }

    /// The order in which the expanded dimensions are walked.
    public let traversalOrder: [Int]
    /// For each block dimension, the original dimension it blocks.
    public let blockMap: [Int]
    /// One entry per level of the traversal.
    public let dimensions: [Dimension]

    init(table: Table) throws {
        traversalOrder = try (table.int32Vector(0) ?? []).map(Int.init)
        blockMap = try (table.int32Vector(1) ?? []).map(Int.init)
        dimensions = try table.tables(2).map { d in
            let format = try d.i8(0)
            switch format {
            case 0:
                return .dense(size: Int(try d.i32(1)))
            case 1:
                return .sparse(
                    segments: try Self.indexVector(d, typeField: 2, valueField: 3),
                    indices: try Self.indexVector(d, typeField: 4, valueField: 5))
            default:
                throw ModelError(.unsupported, "sparse dimension format \(format) is not supported")
            }
        }
        guard dimensions.count == traversalOrder.count else {
            throw ModelError(.malformed, "sparsity has \(dimensions.count) dimension entries for \(traversalOrder.count) levels")
        }
    }

    /// Reads a `SparseIndexVector` union (Int32Vector, Uint16Vector or Uint8Vector).
    private static func indexVector(_ t: Table, typeField: Int, valueField: Int) throws -> [Int] {
        let type = try t.u8(typeField)
        guard let v = try t.table(valueField) else { return [] }
        switch type {
        case 1: return try (v.int32Vector(0) ?? []).map(Int.init)
        case 2: return try (v.uint16Vector(0) ?? []).map(Int.init)
        case 3: return try v.bytesVector(0).map { r in v.buffer.bytes[r].map(Int.init) } ?? []
        default: throw ModelError(.unsupported, "sparse index vector type \(type) is not supported")
        }
    }

    /// Expands `values` (the stored non-zeros, in traversal order) into a dense row-major array of `shape`.
    ///
    /// - Throws: ``ModelError`` when the description is inconsistent with the shape or the stored values
    ///   (an index out of range, too few or too many values, a traversal order that is not a permutation).
    public func densify(_ values: [Float], shape: [Int]) throws -> [Float] {
        let rank = shape.count
        let levels = traversalOrder.count
        guard levels == rank + blockMap.count, levels <= 16,
            Set(traversalOrder) == Set(0..<levels),
            blockMap.allSatisfy({ $0 >= 0 && $0 < rank }),
            shape.allSatisfy({ $0 >= 0 })
        else {
            throw ModelError(.malformed, "sparsity description does not fit a tensor of rank \(rank)")
        }
        let (expected, weight) = try levelGeometry(shape: shape)
        let total = shape.reduce(1, *)
        var out = [Float](repeating: 0, count: total)
        var next = 0
        try out.withUnsafeMutableBufferPointer { o in
            try values.withUnsafeBufferPointer { v in
                // Depth-first walk; depth is at most 16 levels and the work is bounded by the element count
                // (dense levels have their exact expected size) plus the number of stored indices.
                func walk(level: Int, parent: Int, offset: Int) throws {
                    if level == levels {
                        guard next < v.count else {
                            throw ModelError(.malformed, "sparse tensor stores fewer values than its indices address")
                        }
                        o[offset] = v[next]
                        next += 1
                        return
                    }
                    let w = weight[level]
                    switch dimensions[level] {
                    case .dense(let size):
                        if level == levels - 1 {
                            guard next + size <= v.count else {
                                throw ModelError(.malformed, "sparse tensor stores fewer values than its indices address")
                            }
                            for i in 0..<size { o[offset + i * w] = v[next + i] }
                            next += size
                            return
                        }
                        for i in 0..<size { try walk(level: level + 1, parent: parent * size + i, offset: offset + i * w) }
                    case .sparse(let segments, let indices):
                        guard parent + 1 < segments.count else {
                            throw ModelError(.malformed, "sparse segment \(parent) is missing")
                        }
                        let lo = segments[parent]
                        let hi = segments[parent + 1]
                        guard lo >= 0, lo <= hi, hi <= indices.count else {
                            throw ModelError(.malformed, "sparse segment \(lo)..<\(hi) lies outside \(indices.count) indices")
                        }
                        for i in lo..<hi {
                            let c = indices[i]
                            guard c >= 0, c < expected[level] else {
                                throw ModelError(.malformed, "sparse index \(c) at level \(level) lies outside 0..<\(expected[level])")
                            }
                            try walk(level: level + 1, parent: i, offset: offset + c * w)
                        }
                    }
                }
                try walk(level: 0, parent: 0, offset: 0)
            }
        }
        guard next == values.count else {
            throw ModelError(.malformed, "sparse tensor stores \(values.count) values but its indices address \(next)")
        }
        return out
    }

    /// Each traversal level's size, and the step its coordinate makes in the flat row-major output.
    private func levelGeometry(shape: [Int]) throws -> (expected: [Int], weight: [Int]) {
        let rank = shape.count
        let levels = traversalOrder.count
        // Block sizes come from the dense size of each block level.
        var blockSize = [Int](repeating: 1, count: blockMap.count)
        for level in 0..<levels where traversalOrder[level] >= rank {
            guard case .dense(let size) = dimensions[level], size > 0 else {
                throw ModelError(.unsupported, "sparse block dimensions are not supported")
            }
            blockSize[traversalOrder[level] - rank] = size
        }
        var strides = [Int](repeating: 1, count: rank)
        for i in stride(from: rank - 2, through: 0, by: -1) { strides[i] = strides[i + 1] * shape[i + 1] }
        // Each level's size, and the step its coordinate makes in the flat output. A dimension blocked by block
        // levels b1, b2, … (in level order) has index ((c · s1 + c1) · s2 + c2) …, so the flat offset is linear in
        // the level coordinates: the dimension's level weighs stride · s1 · s2 · …, a block level weighs stride
        // times the sizes of the blocks after it.
        var expected = [Int](repeating: 0, count: levels)
        var weight = [Int](repeating: 0, count: levels)
        for level in 0..<levels {
            let d = traversalOrder[level]
            if d >= rank {
                let b = d - rank, dim = blockMap[b]
                expected[level] = blockSize[b]
                var w = strides[dim]
                for later in (level + 1)..<levels where traversalOrder[later] >= rank && blockMap[traversalOrder[later] - rank] == dim {
                    w *= blockSize[traversalOrder[later] - rank]
                }
                weight[level] = w
            } else {
                let block = blockMap.indices.filter { blockMap[$0] == d }.reduce(1) { $0 * blockSize[$1] }
                guard shape[d] % block == 0 else {
                    throw ModelError(.malformed, "dimension \(d) of \(shape) is not a multiple of its block size \(block)")
                }
                expected[level] = shape[d] / block
                weight[level] = strides[d] * block
            }
            if case .dense(let size) = dimensions[level], size != expected[level] {
                throw ModelError(.malformed, "dense sparsity level \(level) has size \(size), expected \(expected[level])")
            }
        }
        return (expected, weight)
    }
}

extension Sparsity {
    /// Builds a description directly (for tests and tools); validated like one read from a file.
    public static func testing(traversalOrder: [Int], blockMap: [Int], dimensions: [Dimension]) throws -> Sparsity {
        guard dimensions.count == traversalOrder.count else {
            throw ModelError(.malformed, "sparsity has \(dimensions.count) dimension entries for \(traversalOrder.count) levels")
        }
        return Sparsity(traversalOrder: traversalOrder, blockMap: blockMap, dimensions: dimensions)
    }

    private init(traversalOrder: [Int], blockMap: [Int], dimensions: [Dimension]) {
        self.traversalOrder = traversalOrder
        self.blockMap = blockMap
        self.dimensions = dimensions
    }
}

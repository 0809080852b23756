import Foundation
@testable import PVTFLite
import PVTestSupport
import Testing

@Suite struct ModelReaderTests {
    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: TestFiles.installed(name)))
    }

    @Test func readsSelfieSegmentation() throws {
        let m = try Model(bytes: Self.bytes("selfie_segmentation.tflite"))
        #expect(m.inputs.count == 1)
        #expect(m.tensors[m.inputs[0]].shape == [1, 256, 256, 3])
        #expect(m.outputs.map { m.tensors[$0].shape } == [[1, 256, 256, 1]])
        let custom = m.operators.filter { if case .custom("Convolution2DTransposeBias") = $0.code { return true } else { return false } }
        #expect(custom.count == 1)
        #expect(custom.first?.customOptions.count == 12)
        // Weights are stored as float16 behind DEQUANTIZE operators.
        let dequantize = m.operators.filter { $0.code == .builtin(.dequantize) }
        #expect(!dequantize.isEmpty)
        #expect(dequantize.allSatisfy { m.tensors[$0.inputs[0]].type == .float16 })
    }

    @Test func readsConvolutionOptions() throws {
        let m = try Model(bytes: Self.bytes("face_detection_short_range.tflite"))
        let convs = m.operators.compactMap { op -> (Padding, Int)? in
            if case .conv2D(let p, let sw, _, _, _, _) = op.options { return (p, sw) } else { return nil }
        }
        #expect(convs.count == 21)
        #expect(convs.contains { $0.0 == .same && $0.1 == 2 })
        #expect(m.outputs.map { m.tensors[$0].name } == ["regressors", "classificators"])
    }

    @Test func densifiesSparseWeights() throws {
        let m = try Model(bytes: Self.bytes("face_detection_full_range_sparse.tflite"))
        let densify = m.operators.filter { $0.code == .builtin(.densify) }
        #expect(densify.count == 46)
        for op in densify {
            let t = m.tensors[op.inputs[0]]
            let sparsity = try #require(t.sparsity)
            let stored = try m.floatValues(of: op.inputs[0])
            let dense = try sparsity.densify(stored, shape: m.tensors[op.outputs[0]].shape)
            #expect(dense.count == m.tensors[op.outputs[0]].elementCount)
            // Every stored value lands somewhere: the dense tensor holds exactly the stored non-zeros.
            #expect(dense.filter { $0 != 0 }.count == stored.filter { $0 != 0 }.count)
        }
    }

    @Test func densifiesCompressedRows() throws {
        // A 3×4 matrix with a dense row dimension and a CSR column dimension.
        let sparsity = try Sparsity.testing(
            traversalOrder: [0, 1], blockMap: [],
            dimensions: [.dense(size: 3), .sparse(segments: [0, 2, 2, 3], indices: [1, 3, 0])])
        let dense = try sparsity.densify([5, 6, 7] as [Float], shape: [3, 4])
        #expect(dense == [0, 5, 0, 6, 0, 0, 0, 0, 7, 0, 0, 0])
        // Inconsistent descriptions are errors, not traps.
        #expect(throws: ModelError.self) { try sparsity.densify([5, 6] as [Float], shape: [3, 4]) }
        #expect(throws: ModelError.self) { try sparsity.densify([5, 6, 7] as [Float], shape: [3, 2]) }
        #expect(throws: ModelError.self) { try sparsity.densify([5, 6, 7] as [Float], shape: [12]) }
    }

    @Test func densifiesBlocks() throws {
        // A 2×4 matrix stored in 1×2 blocks: block rows dense (2), block columns CSR, in-block dense (2).
        let sparsity = try Sparsity.testing(
            traversalOrder: [0, 1, 2], blockMap: [1],
            dimensions: [.dense(size: 2), .sparse(segments: [0, 1, 2], indices: [1, 0]), .dense(size: 2)])
        let dense = try sparsity.densify([1, 2, 3, 4] as [Float], shape: [2, 4])
        #expect(dense == [0, 0, 1, 2, 3, 4, 0, 0])
    }

    @Test func densifiesTraversalOrderAndNestedBlocks() throws {
        // Column-major walk of a dense 2×3 matrix.
        let transposed = try Sparsity.testing(
            traversalOrder: [1, 0], blockMap: [], dimensions: [.dense(size: 3), .dense(size: 2)])
        #expect(try transposed.densify([1, 2, 3, 4, 5, 6], shape: [2, 3]) == [1, 3, 5, 2, 4, 6])
        // A length-8 vector blocked twice (2 blocks of 2 blocks of 2): index ((c · 2 + c1) · 2 + c2).
        let nested = try Sparsity.testing(
            traversalOrder: [0, 1, 2], blockMap: [0, 0],
            dimensions: [.sparse(segments: [0, 1], indices: [1]), .dense(size: 2), .dense(size: 2)])
        #expect(try nested.densify([1, 2, 3, 4], shape: [8]) == [0, 0, 0, 0, 1, 2, 3, 4])
        // A compressed index past its level's size is an error.
        let outside = try Sparsity.testing(
            traversalOrder: [0, 1], blockMap: [], dimensions: [.dense(size: 1), .sparse(segments: [0, 1], indices: [4])])
        #expect(throws: ModelError.self) { try outside.densify([1], shape: [1, 4]) }
    }

    @Test func widensEveryHalfExactly() {
        for bits in UInt16.min...UInt16.max {
            let expected = Float(Float16(bitPattern: bits)), got = Model.widen(half: bits)
            if expected.isNaN {
                #expect(got.isNaN, "half \(bits)")
            } else if got.bitPattern != expected.bitPattern {
                #expect(got.bitPattern == expected.bitPattern, "half \(bits)")
            }
        }
    }

    @Test func rejectsTinyAndForeignFiles() {
        for bytes in [[], [0, 0, 0], Array("not a model at all".utf8), [UInt8](repeating: 0xFF, count: 64)] as [[UInt8]] {
            #expect(throws: ModelError.self) { try Model(bytes: bytes) }
        }
    }

    @Test func rejectsEveryTruncation() throws {
        let full = try Self.bytes("face_detection_short_range.tflite")
        // Every prefix length up to 4 KiB, then a spread of longer ones: all must throw, none may trap.
        var lengths = Array(0..<4096)
        lengths += stride(from: 4096, to: full.count, by: 997)
        var threw = 0
        for n in lengths {
            do { _ = try Model(bytes: Array(full[..<n])) } catch is ModelError { threw += 1 }
        }
        #expect(threw == lengths.count)
    }

    @Test func survivesCorruption() throws {
        let full = try Self.bytes("hand_recrop.tflite")
        var rng = SplitMix64(seed: 7)
        var parsed = 0, rejected = 0
        for _ in 0..<2000 {
            var b = full
            for _ in 0..<(1 + Int(rng.next() % 8)) {
                // Corrupt the metadata region (the FlatBuffer tables sit after the weights in this file).
                let at = Int(rng.next() % UInt64(b.count))
                b[at] = UInt8(truncatingIfNeeded: rng.next())
            }
            do { _ = try Model(bytes: b); parsed += 1 } catch is ModelError { rejected += 1 }
        }
        #expect(parsed + rejected == 2000)
    }

    @Test func refusesHugeTensors() throws {
        // Patch the input tensor's first dimension (1 -> 2^30) in a real model: the shape is refused before allocation.
        var b = try Self.bytes("hand_recrop.tflite")
        let m = try Model(bytes: b)
        let shape = m.tensors[m.inputs[0]].shape  // [1, 256, 256, 3]
        let pattern: [UInt8] = [4, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 3, 0, 0, 0]
        #expect(shape == [1, 256, 256, 3])
        let at = try #require((0...(b.count - pattern.count)).first { b[$0..<($0 + pattern.count)].elementsEqual(pattern) })
        b[at + 7] = 0x40  // 1 -> 0x40000000
        #expect(throws: ModelError.self) { try Model(bytes: b) }
    }
}

/// Operators the Debian XNNPACK build cannot run, implemented over interpreter buffers.
enum SwiftKernels {
    /// Concatenates along `axis` (row-major tensors): for each outer index, copies each input's inner block.
    static func concatenate(
        inputs: [(pointer: UnsafePointer<Float>, shape: [Int])], axis: Int, clamp: Node.Clamp,
        output: UnsafeMutablePointer<Float>
    ) {
        guard let first = inputs.first else { return }
        let outer = first.shape[..<axis].reduce(1, *)
        let inner = first.shape[(axis + 1)...].reduce(1, *)
        var dst = output
        for o in 0..<outer {
            for input in inputs {
                let block = input.shape[axis] * inner
                dst.update(from: input.pointer + o * block, count: block)
                dst += block
            }
        }
        if clamp.min > -.infinity || clamp.max < .infinity {
            let total = dst - output
            for i in 0..<total { output[i] = min(max(output[i], clamp.min), clamp.max) }
        }
    }

    /// Strided slice over a row-major tensor of any rank up to 6 (`begin`/`end`/`strides` already resolved).
    static func stridedSlice(
        input: UnsafePointer<Float>, shape: [Int], begin: [Int], end: [Int], strides: [Int],
        output: UnsafeMutablePointer<Float>
    ) {
        let rank = shape.count
        var inStrides = [Int](repeating: 1, count: rank)
        for d in stride(from: rank - 2, through: 0, by: -1) { inStrides[d] = inStrides[d + 1] * shape[d + 1] }
        let counts = (0..<rank).map { d -> Int in
            let s = strides[d]
            return s > 0 ? max(0, (end[d] - begin[d] + s - 1) / s) : max(0, (begin[d] - end[d] - s - 1) / -s)
        }
        let total = counts.reduce(1, *)
        guard total > 0 else { return }
        var index = [Int](repeating: 0, count: rank)
        for k in 0..<total {
            var offset = 0
            for d in 0..<rank { offset += (begin[d] + index[d] * strides[d]) * inStrides[d] }
            output[k] = input[offset]
            var d = rank - 1
            while d >= 0 {
                index[d] += 1
                if index[d] < counts[d] { break }
                index[d] = 0
                d -= 1
            }
        }
    }
}

import Foundation
import PVCore

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
            RowMajor.advance(&index, counts: counts)
        }
    }
}

/// MediaPipe's attention-mesh operators (version 2): a crop matrix from landmarks, a bilinear crop of a feature map
/// through it, and landmarks mapped back through it. A matrix is 4×4, row-major; points map as
/// `x' = m0·x + m1·y + m3`, `y' = m4·x + m5·y + m7`.
extension SwiftKernels {
    /// The matrix taking a point of the `crop.outputWidth` × `crop.outputHeight` grid to the landmarks' space: the
    /// grid's centre lands on the centre of the subset's box, levelled so that `left` → `right` points at
    /// `crop.targetRotation`, and the grid spans that box scaled by `scaleX`, `scaleY`.
    static func landmarksToTransformMatrix(
        _ landmarks: UnsafePointer<Float>, stride: Int, crop: Node.LandmarkCrop, output: UnsafeMutablePointer<Float>
    ) {
        func point(_ i: Int) -> (x: Float, y: Float) { (landmarks[i * stride], landmarks[i * stride + 1]) }
        let l = point(crop.left), r = point(crop.right)
        let rotation = crop.targetRotation - atan2f(r.y - l.y, r.x - l.x)
        let c = cosf(rotation), s = sinf(rotation)
        var minX = Float.infinity, minY = Float.infinity, maxX = -Float.infinity, maxY = -Float.infinity
        for i in crop.subset {
            let p = point(i)
            let x = c * p.x - s * p.y, y = s * p.x + c * p.y
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        }
        // The box centre, back in the landmarks' orientation (rotation by −rotation).
        let mx = (minX + maxX) / 2, my = (minY + maxY) / 2
        let centerX = c * mx + s * my, centerY = -s * mx + c * my
        let scaleX = crop.scaleX * (maxX - minX) / Float(crop.outputWidth)
        let scaleY = crop.scaleY * (maxY - minY) / Float(crop.outputHeight)
        let halfW = Float(crop.outputWidth) / 2, halfH = Float(crop.outputHeight) / 2
        // centre + R(−rotation) · diag(scaleX, scaleY) · (p − half size)
        let m00 = c * scaleX, m01 = s * scaleY, m10 = -s * scaleX, m11 = c * scaleY
        let values: [Float] = [
            m00, m01, 0, centerX - m00 * halfW - m01 * halfH,
            m10, m11, 0, centerY - m10 * halfW - m11 * halfH,
            0, 0, 1, 0,
            0, 0, 0, 1,
        ]
        for k in 0..<16 { output[k] = values[k] }
    }

    /// Samples `input` (H × W × C) at the matrix image of each output cell's centre (pixel centres at +0.5 on both
    /// sides), bilinearly; cells falling outside the input's first-to-last pixel centres are zero.
    static func transformTensorBilinear(
        _ input: UnsafePointer<Float>, height: Int, width: Int, channels: Int, matrix m: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>, outputHeight: Int, outputWidth: Int
    ) {
        let offsetX = m[3] + 0.5 * m[0] + 0.5 * m[1] - 0.5
        let offsetY = m[7] + 0.5 * m[4] + 0.5 * m[5] - 0.5
        let maxX = Float(width - 1), maxY = Float(height - 1)
        for oy in 0..<outputHeight {
            for ox in 0..<outputWidth {
                let out = output + (oy * outputWidth + ox) * channels
                let x = m[0] * Float(ox) + m[1] * Float(oy) + offsetX
                let y = m[4] * Float(ox) + m[5] * Float(oy) + offsetY
                guard x >= 0, x <= maxX, y >= 0, y <= maxY else {
                    out.update(repeating: 0, count: channels)
                    continue
                }
                let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
                let fx = x - Float(x0), fy = y - Float(y0)
                let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
                // At the last pixel centre the far neighbour's weight is zero, so clamping it changes nothing.
                let w00 = (1 - fx) * (1 - fy), w01 = fx * (1 - fy), w10 = (1 - fx) * fy, w11 = fx * fy
                let p00 = input + (y0 * width + x0) * channels, p01 = input + (y0 * width + x1) * channels
                let p10 = input + (y1 * width + x0) * channels, p11 = input + (y1 * width + x1) * channels
                for k in 0..<channels {
                    out[k] = w00 * p00[k] + w01 * p01[k] + w10 * p10[k] + w11 * p11[k]
                }
            }
        }
    }

    /// Maps `count` points (x, y[, z]) through the matrix; z is copied.
    static func transformLandmarks(
        _ input: UnsafePointer<Float>, count: Int, dimensions: Int, matrix m: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>
    ) {
        for i in 0..<count {
            let p = input + i * dimensions, q = output + i * dimensions
            let x = p[0], y = p[1]
            q[0] = m[0] * x + m[1] * y + m[3]
            q[1] = m[4] * x + m[5] * y + m[7]
            if dimensions == 3 { q[2] = p[2] }
        }
    }
}

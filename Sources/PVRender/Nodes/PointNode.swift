// Per-pixel colour operations.

final class PointNode: UnaryNode, @unchecked Sendable {
    let operation: PointOperation

    init(child: RenderNode, operation: PointOperation, bounds: PixelRect) {
        self.operation = operation
        super.init(child: child, bounds: bounds)
    }

    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        guard case .maximumComponent = operation else {
            super.renderBytesInside(r, out, stride, ctx)
            return
        }
        child.renderBytes(r, out, stride, ctx)
        for j in 0..<r.h {
            let o = out + j * stride
            for k in 0..<r.w {
                let p = o[k]
                let m = max(p & 0xFF, max((p &>> 8) & 0xFF, (p &>> 16) & 0xFF))
                o[k] = m &* 0x0001_0101 | (p & 0xFF00_0000)
            }
        }
    }

    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        child.render(r, out, stride, ctx)
        switch operation {
        case .maximumComponent:
            for j in 0..<r.h {
                let o = out + j * stride
                for k in 0..<r.w {
                    let p = o[k]
                    let m = max(p[0], max(p[1], p[2]))
                    o[k] = SIMD4(m, m, m, p[3])
                }
            }
        case .gamma(let power):
            for j in 0..<r.h {
                let o = out + j * stride
                for k in 0..<r.w {
                    let p = o[k]
                    let a = p[3]
                    guard a > 0 else { continue }
                    let inv = 1 / a
                    o[k] = SIMD4(
                        signedPow(p[0] * inv, power) * a, signedPow(p[1] * inv, power) * a,
                        signedPow(p[2] * inv, power) * a, a)
                }
            }
        case .colorMatrix(let rv, let gv, let bv, let av, let bias):
            // Output channel i is dot(vector_i, input): accumulate the matrix's columns.
            let c0 = SIMD4(rv[0], gv[0], bv[0], av[0]), c1 = SIMD4(rv[1], gv[1], bv[1], av[1])
            let c2 = SIMD4(rv[2], gv[2], bv[2], av[2]), c3 = SIMD4(rv[3], gv[3], bv[3], av[3])
            for j in 0..<r.h {
                let o = out + j * stride
                for k in 0..<r.w {
                    let u = straightColor(o[k])
                    var q: FloatPixel = bias
                    q += c0 * u[0]
                    q += c1 * u[1]
                    q += c2 * u[2]
                    q += c3 * u[3]
                    o[k] = premultipliedColor(q)
                }
            }
        case .premultiply, .unpremultiply, .alphaOne:
            for j in 0..<r.h {
                let o = out + j * stride
                for k in 0..<r.w {
                    let p = o[k]
                    switch operation {
                    case .premultiply: o[k] = premultipliedColor(p)
                    case .unpremultiply: o[k] = straightColor(p)
                    default: o[k] = SIMD4(p[0], p[1], p[2], 1)
                    }
                }
            }
        case .colorClamp(let low, let high):
            for j in 0..<r.h {
                let o = out + j * stride
                for k in 0..<r.w {
                    o[k] = premultipliedColor(pointwiseMin(pointwiseMax(straightColor(o[k]), low), high))
                }
            }
        }
    }
}

/// `p`'s colour divided by its alpha (by exact division, where `unpremultiplied(_:)` multiplies by the reciprocal), or
/// zero where alpha is not positive: the straight colour the colour operations work on.
@inline(__always) private func straightColor(_ p: FloatPixel) -> FloatPixel {
    let a = p[3]
    return a > 0 ? p / SIMD4(a, a, a, 1) : .zero
}

/// `p`'s colour multiplied by its alpha.
@inline(__always) private func premultipliedColor(_ p: FloatPixel) -> FloatPixel {
    p * SIMD4(p[3], p[3], p[3], 1)
}

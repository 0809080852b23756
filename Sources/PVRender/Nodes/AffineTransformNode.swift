// Rotations, shears and orientations, sampled bilinearly (quarter turns and mirrors copy pixels).
import Foundation

/// Any other affine transform (rotation, shear, orientation), sampled bilinearly.
final class AffineTransformNode: UnaryNode, @unchecked Sendable {
    let inverse: AffineMap
    let slot: Int
    /// For transforms that map pixel centres onto pixel centres: integer source index
    /// `u = a·x + c·y + u0`, `v = b·x + d·y + v0`.
    let exact: (a: Int, b: Int, c: Int, d: Int, u0: Int, v0: Int)?

    init(child: RenderNode, inverse: AffineMap, bounds: PixelRect, slot: Int) {
        self.inverse = inverse
        self.slot = slot
        let m = inverse
        let unit: Set<Double> = [-1, 0, 1]
        if unit.contains(m.a), unit.contains(m.b), unit.contains(m.c), unit.contains(m.d), abs(m.a * m.d - m.b * m.c) == 1,
            m.tx == m.tx.rounded(), m.ty == m.ty.rounded(), abs(m.tx) < 1e9, abs(m.ty) < 1e9
        {
            exact = (
                Int(m.a), Int(m.b), Int(m.c), Int(m.d), Int(((m.a + m.c) * 0.5 + m.tx - 0.5).rounded()),
                Int(((m.b + m.d) * 0.5 + m.ty - 0.5).rounded())
            )
        } else {
            exact = nil
        }
        super.init(child: child, bounds: bounds)
    }

    func sourceRect(_ r: PixelRect) -> PixelRect {
        let box = inverse.boundingBox(of: CGRect(x: r.x, y: r.y, width: r.w, height: r.h))
        return PixelRect(
            x0: floorInt(Double(box.minX) - 0.5), y0: floorInt(Double(box.minY) - 0.5),
            x1: floorInt(Double(box.maxX) - 0.5) + 2, y1: floorInt(Double(box.maxY) - 0.5) + 2)
    }

    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        guard let exact else {
            super.renderBytesInside(r, out, stride, ctx)
            return
        }
        // Quarter turns and mirrors: every output pixel is one source pixel.
        let s = sourceRect(r)
        let buffer = ctx.raw(slot, bytes: s.area * 4).bindMemory(to: PixelWord.self, capacity: s.area)
        child.renderBytes(s, buffer, s.w, ctx)
        for j in 0..<r.h {
            let y = r.y + j
            let o = out + j * stride
            var u = exact.a * r.x + exact.c * y + exact.u0 - s.x
            var v = exact.b * r.x + exact.d * y + exact.v0 - s.y
            for k in 0..<r.w {
                o[k] = u >= 0 && u < s.w && v >= 0 && v < s.h ? buffer[v &* s.w &+ u] : 0
                u &+= exact.a
                v &+= exact.b
            }
        }
    }

    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        let s = sourceRect(r)
        // A rotated strip's bounding box is mostly outside it: split the longer side.
        if s.area > 4 * r.area + 4096, r.w > 1 || r.h > 1 {
            if r.w >= r.h {
                let half = r.w / 2
                renderInside(PixelRect(x: r.x, y: r.y, w: half, h: r.h), out, stride, ctx)
                renderInside(PixelRect(x: r.x + half, y: r.y, w: r.w - half, h: r.h), out + half, stride, ctx)
            } else {
                let half = r.h / 2
                renderInside(PixelRect(x: r.x, y: r.y, w: r.w, h: half), out, stride, ctx)
                renderInside(PixelRect(x: r.x, y: r.y + half, w: r.w, h: r.h - half), out + half * stride, stride, ctx)
            }
            return
        }
        let buffer = ctx.pixels(slot, s.area)
        child.render(s, buffer, s.w, ctx)
        // Every sample lies inside `s` (its bounding box, with a pixel of margin), so indices are
        // only clamped against rounding. Coordinates are relative to `s`; the floor is computed
        // from a truncation because `rounded(.down)` is a libm call without SSE4.1.
        let m = inverse
        let sw = s.w, maxI = Float(max(0, s.w - 2)), maxJ = Float(max(0, s.h - 2))
        let du = Float(m.a), dv = Float(m.b)
        let row1 = s.h > 1 ? sw : 0, column1 = s.w > 1 ? 1 : 0
        for j in 0..<r.h {
            let X = Double(r.x) + 0.5, Y = Double(r.y + j) + 0.5
            let u0 = Float(Double(m.a) * X + Double(m.c) * Y + Double(m.tx) - 0.5 - Double(s.x))
            let v0 = Float(Double(m.b) * X + Double(m.d) * Y + Double(m.ty) - 0.5 - Double(s.y))
            let o = out + j * stride
            for k in 0..<r.w {
                let u = min(max(u0 + Float(k) * du, 0), maxI + 0.999_999), v = min(max(v0 + Float(k) * dv, 0), maxJ + 0.999_999)
                let i = Int(u), jj = Int(v)
                let fx = min(u - Float(i), 1), fy = min(v - Float(jj), 1)
                let p = buffer + (jj &* sw &+ i)
                let p00 = p[0], p10 = p[column1], p01 = p[row1], p11 = p[row1 &+ column1]
                let bottom = p00 + (p10 - p00) * fx
                let top = p01 + (p11 - p01) * fx
                o[k] = bottom + (top - bottom) * fy
            }
        }
    }
}

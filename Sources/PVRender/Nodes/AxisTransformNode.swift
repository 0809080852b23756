// Scales and translations, sampled bilinearly; the 8-bit path resamples stored photos straight from their bytes.
import CRenderKernels
import Foundation
import PVImaging
import Synchronization

/// An axis-aligned affine transform (scale and translation), sampled bilinearly.
///
/// Output pixel x samples source index `u = ax·(x + 0.5) + bx − 0.5`; similarly for y.
final class AxisTransformNode: UnaryNode, @unchecked Sendable {
    let ax: Double, bx: Double, ay: Double, by: Double
    let slot: Int
    let tableSlot: Int
    let rowSlot: Int
    /// Whether output pixel centres land exactly on source pixel centres (flips).
    let exact: Bool

    init(child: RenderNode, inverse t: AffineMap, bounds: PixelRect, slots: (Int, Int, Int)) {
        ax = Double(t.a)
        bx = Double(t.tx)
        ay = Double(t.d)
        by = Double(t.ty)
        (slot, tableSlot, rowSlot) = slots
        exact = abs(ax) == 1 && abs(ay) == 1 && bx == bx.rounded() && by == by.rounded()
        super.init(child: child, bounds: bounds)
    }

    /// Source column index and weight of each output column of `r`.
    private func columns(_ r: PixelRect, _ s: PixelRect, _ ctx: RenderScratch) -> (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Float>, Bool) {
        // Tiles in one column of the output share their tables: compute once per thread.
        let table = ctx.raw(tableSlot, bytes: r.w * 8 + 1)
        let index = table.bindMemory(to: Int32.self, capacity: r.w)
        let weight = (table + r.w * 4).bindMemory(to: Float.self, capacity: r.w)
        let flag = (table + r.w * 8).bindMemory(to: Bool.self, capacity: 1)
        if ctx.reuse(tableSlot, key: SIMD4(r.x, r.w, s.x, 0)) { return (index, weight, flag.pointee) }
        var integral = true
        for k in 0..<r.w {
            let u = ax * (Double(r.x + k) + 0.5) + bx - 0.5
            let i0 = u.rounded(.down)
            index[k] = Int32(Int(i0) - s.x)
            weight[k] = Float(u - i0)
            if weight[k] != 0 { integral = false }
        }
        flag.pointee = integral
        return (index, weight, integral)
    }

    override func renderChannelInside(
        _ r: PixelRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: RenderScratch
    ) {
        let s = sourceRect(r)
        if splitIfSparse(r, s, out, stride, { self.renderChannelInside($0, channel, $1, stride, ctx) }) { return }
        let buffer = ctx.raw(slot, bytes: s.area * 4).bindMemory(to: Float.self, capacity: s.area)
        child.renderChannel(s, channel, buffer, s.w, ctx)
        let (index, weight, _) = columns(r, s, ctx)
        // Horizontal pass once per source row (on first use), then a vectorised vertical pass:
        // upscaled masks read each source row for many output rows.
        let rows = ctx.raw(rowSlot, bytes: s.h * (r.w * 4 + 1))
        let horizontal = rows.bindMemory(to: Float.self, capacity: s.h * r.w)
        let done = (rows + s.h * r.w * 4).bindMemory(to: Bool.self, capacity: s.h)
        done.update(repeating: false, count: s.h)
        @inline(__always) func row(_ i: Int) -> UnsafeMutablePointer<Float> {
            let h = horizontal + i * r.w
            if !done[i] {
                let source = buffer + i * s.w
                for k in 0..<r.w {
                    let x = Int(index[k])
                    let a = source[x], b = source[x &+ 1]
                    h[k] = a + (b - a) * weight[k]
                }
                done[i] = true
            }
            return h
        }
        for j in 0..<r.h {
            let v = ay * (Double(r.y + j) + 0.5) + by - 0.5
            let j0 = v.rounded(.down)
            let fy = Float(v - j0)
            let o = out + j * stride
            let row0 = row(Int(j0) - s.y)
            if fy == 0 {
                o.update(from: row0, count: r.w)
            } else {
                let row1 = row(Int(j0) - s.y + 1)
                for k in 0..<r.w { o[k] = row0[k] + (row1[k] - row0[k]) * fy }
            }
        }
    }

    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        guard exact else {
            if RenderShortcuts.resamplesStoredBytes.load(ordering: .relaxed), let source = child as? SourceNode,
                let offsets = source.byteOffsets
            {
                resampleStoredBytes(source, offsets, r, out, stride, ctx)
            } else {
                super.renderBytesInside(r, out, stride, ctx)
            }
            return
        }
        let s = sourceRect(r)
        let buffer = ctx.raw(slot, bytes: s.area * 4).bindMemory(to: PixelWord.self, capacity: s.area)
        child.renderBytes(s, buffer, s.w, ctx)
        let (index, _, _) = columns(r, s, ctx)
        for j in 0..<r.h {
            let v = Int((ay * (Double(r.y + j) + 0.5) + by - 0.5).rounded())
            let row = buffer + (v - s.y) * s.w
            let o = out + j * stride
            for k in 0..<r.w { o[k] = row[Int(index[k])] }
        }
    }

    /// A scaled photo or backdrop in 8 bits: the float path's arithmetic (``renderInside(_:_:_:_:)``: the source read as
    /// premultiplied floats, clear outside it; rows interpolated, then columns; then quantized) in C kernels that go from
    /// the stored bytes to words without a float tile, and give the same words.
    private func resampleStoredBytes(
        _ source: SourceNode, _ offsets: SIMD4<Int32>, _ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int,
        _ ctx: RenderScratch
    ) {
        let s = sourceRect(r)
        if splitIfSparse(r, s, out, stride, { self.resampleStoredBytes(source, offsets, $0, $1, stride, ctx) }) { return }
        let floats = ctx.raw(slot, bytes: s.area * 16).bindMemory(to: Float.self, capacity: s.area * 4)
        let pixels = source.pixels
        let width = pixels.width, height = pixels.height, rowBytes = pixels.bytesPerRow()
        let premultiply: Int32 = source.premultiply ? 1 : 0
        pixels.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for j in 0..<s.h {
                let row = floats + j * s.w * 4
                let y = s.y + j
                let x0 = min(max(s.x, 0), s.maxX), x1 = max(min(s.maxX, width), x0)
                guard y >= 0, y < height, x0 < x1 else {
                    row.update(repeating: 0, count: s.w * 4)
                    continue
                }
                row.update(repeating: 0, count: (x0 - s.x) * 4)
                (row + (x1 - s.x) * 4).update(repeating: 0, count: (s.maxX - x1) * 4)
                crk_axis_read4(
                    base + (height - 1 - y) * rowBytes + x0 * 4, offsets[0], offsets[1], offsets[2], offsets[3], premultiply,
                    row + (x0 - s.x) * 4, Int32(x1 - x0))
            }
        }
        let (index, weight, integral) = columns(r, s, ctx)
        let temp = ctx.raw(rowSlot, bytes: s.w * 16).bindMemory(to: Float.self, capacity: s.w * 4)
        for j in 0..<r.h {
            let v = ay * (Double(r.y + j) + 0.5) + by - 0.5
            let j0 = v.rounded(.down)
            let fy = Float(v - j0)
            let row0 = floats + (Int(j0) - s.y) * s.w * 4
            var source = UnsafePointer(row0)
            if fy != 0 {
                crk_axis_lerp(row0, row0 + s.w * 4, fy, temp, Int32(s.w * 4))
                source = UnsafePointer(temp)
            }
            crk_axis_columns_rgba8(source, index, weight, integral ? 1 : 0, out + j * stride, Int32(r.w))
        }
    }

    /// The child pixels read for output rectangle `r`.
    func sourceRect(_ r: PixelRect) -> PixelRect {
        let u0 = ax * (Double(r.x) + 0.5) + bx - 0.5, u1 = ax * (Double(r.maxX - 1) + 0.5) + bx - 0.5
        let v0 = ay * (Double(r.y) + 0.5) + by - 0.5, v1 = ay * (Double(r.maxY - 1) + 0.5) + by - 0.5
        return PixelRect(
            x0: floorInt(min(u0, u1)), y0: floorInt(min(v0, v1)), x1: floorInt(max(u0, u1)) + 2,
            y1: floorInt(max(v0, v1)) + 2)
    }

    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        let s = sourceRect(r)
        if splitIfSparse(r, s, out, stride, { self.renderInside($0, $1, stride, ctx) }) { return }
        let buffer = ctx.pixels(slot, s.area)
        child.render(s, buffer, s.w, ctx)
        let (index, weight, integral) = columns(r, s, ctx)
        let temp = ctx.pixels(rowSlot, s.w)
        for j in 0..<r.h {
            let v = ay * (Double(r.y + j) + 0.5) + by - 0.5
            let j0 = v.rounded(.down)
            let fy = Float(v - j0)
            let row0 = buffer + (Int(j0) - s.y) * s.w
            let source: UnsafeMutablePointer<FloatPixel>
            if fy == 0 {
                source = row0
            } else {
                let row1 = row0 + s.w
                for k in 0..<s.w { temp[k] = row0[k] + (row1[k] - row0[k]) * fy }
                source = temp
            }
            let o = out + j * stride
            if integral {
                for k in 0..<r.w { o[k] = source[Int(index[k])] }
            } else {
                for k in 0..<r.w {
                    let i = Int(index[k])
                    let a = source[i], b = source[i &+ 1]
                    o[k] = a + (b - a) * weight[k]
                }
            }
        }
    }
}

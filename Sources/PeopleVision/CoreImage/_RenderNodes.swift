// The nodes of a compiled render plan. Each renders any rectangle of the working space into
// a float tile; outside its bounds it is clear (transparent black), as Core Image images are.
// Nodes are immutable after compilation and shared by the render threads; scratch memory
// comes from the calling thread's `_EvalContext`.
import CImageKernels
import Foundation
import PVImaging
import Synchronization

class _PlanNode: @unchecked Sendable {
    /// The pixels that may be non-clear.
    let bounds: _IRect

    init(bounds: _IRect) { self.bounds = bounds }

    /// Clears the part of `r` outside ``bounds`` and returns the part inside with its origin in `out`.
    @inline(__always)
    private func clip<T>(_ r: _IRect, _ out: UnsafeMutablePointer<T>, _ stride: Int, _ zero: T) -> (_IRect, UnsafeMutablePointer<T>)? {
        let inside = r.intersection(bounds)
        if inside.isEmpty {
            for j in 0..<r.h { (out + j * stride).update(repeating: zero, count: r.w) }
            return nil
        }
        if inside != r {
            for j in 0..<r.h {
                let row = out + j * stride
                let y = r.y + j
                if y < inside.y || y >= inside.maxY {
                    row.update(repeating: zero, count: r.w)
                } else {
                    row.update(repeating: zero, count: inside.x - r.x)
                    (row + (inside.maxX - r.x)).update(repeating: zero, count: r.maxX - inside.maxX)
                }
            }
        }
        return (inside, out + (inside.y - r.y) * stride + (inside.x - r.x))
    }

    /// Writes all `r.w × r.h` float pixels of `r` (row j at `out + j·stride`, bottom-up).
    final func render(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        if let (inside, origin) = clip(r, out, stride, _Pixel.zero) { renderInside(inside, origin, stride, ctx) }
    }

    /// As ``render(_:_:_:_:)`` in premultiplied RGBA8 words (the 8-bit fast path).
    final func renderBytes(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        if let (inside, origin) = clip(r, out, stride, _Word(0)) { renderBytesInside(inside, origin, stride, ctx) }
    }

    /// One channel (0…3 = R, G, B, A, premultiplied) as floats.
    final func renderChannel(_ r: _IRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: _EvalContext) {
        if let (inside, origin) = clip(r, out, stride, Float(0)) { renderChannelInside(inside, channel, origin, stride, ctx) }
    }

    /// When this node is a stored 8-bit one-component image (moved by whole pixels at most) that covers all of `r`:
    /// the image and where `r` lies in it (its bottom-up coordinates), so the 8-bit path can read a mask's bytes.
    func grey8Source(_ r: _IRect) -> (pixels: PixelBuffer, x: Int, y: Int)? { nil }

    /// As ``grey8Source(_:)`` for a stored image in RGBA byte order, and whether it must be premultiplied (straight alpha).
    func rgbaSource(_ r: _IRect) -> (pixels: PixelBuffer, x: Int, y: Int, premultiply: Bool)? { nil }

    /// Renders `r`, which lies inside ``bounds``.
    func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        preconditionFailure("abstract")
    }

    /// Default: render in float, then quantise.
    func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        let f = ctx.fallback(r.area)
        renderInside(r, f, r.w, ctx)
        for j in 0..<r.h { _quantize(f + j * r.w, out + j * stride, r.w) }
    }

    /// Default: render in float, then take the channel.
    func renderChannelInside(_ r: _IRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: _EvalContext) {
        let f = ctx.fallback(r.area)
        renderInside(r, f, r.w, ctx)
        for j in 0..<r.h {
            let source = f + j * r.w, destination = out + j * stride
            for k in 0..<r.w { destination[k] = source[k][channel] }
        }
    }
}

/// Nothing: always clear.
final class _EmptyNode: _PlanNode, @unchecked Sendable {
    init() { super.init(bounds: .empty) }
    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {}
}

/// One colour everywhere (`CIImage(color:)`).
final class _ConstantNode: _PlanNode, @unchecked Sendable {
    let color: _Pixel
    init(color: _Pixel) {
        self.color = color
        super.init(bounds: .infinite)
    }
    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        for j in 0..<r.h { (out + j * stride).update(repeating: color, count: r.w) }
    }
    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        let word = unsafeBitCast(_bytes(color), to: _Word.self)
        for j in 0..<r.h { (out + j * stride).update(repeating: word, count: r.w) }
    }
    override func renderChannelInside(
        _ r: _IRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: _EvalContext
    ) {
        for j in 0..<r.h { (out + j * stride).update(repeating: color[channel], count: r.w) }
    }
}

/// Pixels of a buffer placed at (0, 0): buffer row 0 (top in memory) is working row `height − 1`.
final class _SourceNode: _PlanNode, @unchecked Sendable {
    let pixels: PixelBuffer
    let premultiply: Bool
    let kind: _SourceKind

    /// `pixels` must not be 4:2:0 (convert first).
    init(pixels: PixelBuffer, premultiply: Bool) {
        self.pixels = pixels
        self.premultiply = premultiply
        kind = _SourceKind(pixels.format)
        super.init(bounds: _IRect(x: 0, y: 0, w: pixels.width, h: pixels.height))
    }

    override func grey8Source(_ r: _IRect) -> (pixels: PixelBuffer, x: Int, y: Int)? {
        kind == .grey8 && r.intersection(bounds) == r ? (pixels, r.x, r.y) : nil
    }

    /// The byte offsets of R, G, B and A in a stored pixel of a 4-byte kind; `nil` for the others.
    var byteOffsets: SIMD4<Int32>? {
        switch kind {
        case .rgba: SIMD4(0, 1, 2, 3)
        case .bgra: SIMD4(2, 1, 0, 3)
        case .argb: SIMD4(1, 2, 3, 0)
        default: nil
        }
    }

    override func rgbaSource(_ r: _IRect) -> (pixels: PixelBuffer, x: Int, y: Int, premultiply: Bool)? {
        kind == .rgba && r.intersection(bounds) == r ? (pixels, r.x, r.y, premultiply) : nil
    }

    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        let height = pixels.height, rowBytes = pixels.bytesPerRow(), bpp = pixels.format.bytesPerPixel
        let kind = self.kind, premultiply = self.premultiply
        pixels.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!
            for j in 0..<r.h {
                let sourceRow = height - 1 - (r.y + j)
                _readSourceRow(kind, base + sourceRow * rowBytes + r.x * bpp, out + j * stride, r.w, premultiply)
            }
        }
    }

    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        let kind = self.kind
        if kind == .greyHalf || kind == .greyFloat {
            super.renderBytesInside(r, out, stride, ctx)
            return
        }
        let height = pixels.height, rowBytes = pixels.bytesPerRow(), bpp = pixels.format.bytesPerPixel
        let premultiply = self.premultiply
        pixels.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!
            for j in 0..<r.h {
                let row = base + (height - 1 - (r.y + j)) * rowBytes + r.x * bpp
                let o = out + j * stride
                switch kind {
                case .rgba: UnsafeMutableRawPointer(o).copyMemory(from: row, byteCount: r.w * 4)
                case .bgra: _wordsFromBGRA(row.assumingMemoryBound(to: UInt32.self), o, r.w)
                case .argb: _wordsFromARGB(row.assumingMemoryBound(to: UInt32.self), o, r.w)
                case .rgb24:
                    let s = row.assumingMemoryBound(to: UInt8.self)
                    for k in 0..<r.w {
                        o[k] = UInt32(s[3 &* k]) | UInt32(s[3 &* k &+ 1]) &<< 8 | UInt32(s[3 &* k &+ 2]) &<< 16 | 0xFF00_0000
                    }
                case .grey8:
                    _wordsFromGrey(row.assumingMemoryBound(to: UInt8.self), o, r.w)
                case .greyHalf, .greyFloat:
                    break
                }
                if premultiply, kind == .rgba || kind == .bgra || kind == .argb { _premultiplyWords(o, r.w) }
            }
        }
    }

    override func renderChannelInside(
        _ r: _IRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: _EvalContext
    ) {
        let height = pixels.height, rowBytes = pixels.bytesPerRow(), bpp = pixels.format.bytesPerPixel
        let kind = self.kind, premultiply = self.premultiply
        // Byte offset of the channel (and of alpha) inside a stored 4-byte pixel.
        let offsets: (c: Int, a: Int)
        switch kind {
        case .bgra: offsets = ([2, 1, 0, 3][channel], 3)
        case .argb: offsets = ([1, 2, 3, 0][channel], 0)
        default: offsets = (channel, 3)
        }
        pixels.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!
            for j in 0..<r.h {
                let row = base + (height - 1 - (r.y + j)) * rowBytes + r.x * bpp
                let o = out + j * stride
                switch kind {
                case .grey8:
                    let s = row.assumingMemoryBound(to: UInt8.self)
                    if channel == 3 { o.update(repeating: 1, count: r.w) } else { for k in 0..<r.w { o[k] = Float(s[k]) * (1 / 255) } }
                case .greyHalf:
                    let s = row.assumingMemoryBound(to: Float16.self)
                    if channel == 3 { o.update(repeating: 1, count: r.w) } else { for k in 0..<r.w { o[k] = Float(s[k]) } }
                case .greyFloat:
                    let s = row.assumingMemoryBound(to: Float.self)
                    if channel == 3 { o.update(repeating: 1, count: r.w) } else { o.update(from: s, count: r.w) }
                case .rgb24:
                    let s = row.assumingMemoryBound(to: UInt8.self)
                    if channel == 3 { o.update(repeating: 1, count: r.w) } else { for k in 0..<r.w { o[k] = Float(s[3 &* k &+ channel]) * (1 / 255) } }
                case .rgba, .bgra, .argb:
                    let s = row.assumingMemoryBound(to: UInt8.self)
                    if premultiply, channel != 3 {
                        for k in 0..<r.w {
                            o[k] = Float(s[4 &* k &+ offsets.c]) * Float(s[4 &* k &+ offsets.a]) * (1 / 65025)
                        }
                    } else {
                        for k in 0..<r.w { o[k] = Float(s[4 &* k &+ offsets.c]) * (1 / 255) }
                    }
                }
            }
        }
    }
}

/// A materialised float image (blur, Lanczos and high-quality downsampling outputs).
final class _MaterializedNode: _PlanNode, @unchecked Sendable {
    let image: _FloatImage
    init(image: _FloatImage, bounds: _IRect) {
        self.image = image
        super.init(bounds: bounds.intersection(image.rect))
    }
    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        for j in 0..<r.h {
            (out + j * stride).update(from: image.row(r.y + j) + (r.x - image.rect.x), count: r.w)
        }
    }
    override func renderChannelInside(
        _ r: _IRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: _EvalContext
    ) {
        for j in 0..<r.h {
            let source = image.row(r.y + j) + (r.x - image.rect.x), destination = out + j * stride
            for k in 0..<r.w { destination[k] = source[k][channel] }
        }
    }
}

/// The child, limited to narrower bounds (`cropped(to:)`); the clipping is done by `render`.
final class _CropNode: _PlanNode, @unchecked Sendable {
    let child: _PlanNode
    init(child: _PlanNode, bounds: _IRect) {
        self.child = child
        super.init(bounds: bounds.intersection(child.bounds))
    }
    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        child.render(r, out, stride, ctx)
    }
    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        child.renderBytes(r, out, stride, ctx)
    }
    override func renderChannelInside(
        _ r: _IRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: _EvalContext
    ) {
        child.renderChannel(r, channel, out, stride, ctx)
    }
}

/// The child moved by whole pixels: no resampling.
final class _TranslateNode: _PlanNode, @unchecked Sendable {
    let child: _PlanNode
    let dx: Int
    let dy: Int
    init(child: _PlanNode, dx: Int, dy: Int, bounds: _IRect) {
        self.child = child
        self.dx = dx
        self.dy = dy
        super.init(bounds: bounds.intersection(child.bounds.offsetBy(dx, dy)))
    }
    override func grey8Source(_ r: _IRect) -> (pixels: PixelBuffer, x: Int, y: Int)? {
        r.intersection(bounds) == r ? child.grey8Source(r.offsetBy(-dx, -dy)) : nil
    }
    override func rgbaSource(_ r: _IRect) -> (pixels: PixelBuffer, x: Int, y: Int, premultiply: Bool)? {
        r.intersection(bounds) == r ? child.rgbaSource(r.offsetBy(-dx, -dy)) : nil
    }
    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        child.render(r.offsetBy(-dx, -dy), out, stride, ctx)
    }
    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        child.renderBytes(r.offsetBy(-dx, -dy), out, stride, ctx)
    }
    override func renderChannelInside(
        _ r: _IRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: _EvalContext
    ) {
        child.renderChannel(r.offsetBy(-dx, -dy), channel, out, stride, ctx)
    }
}

/// The child's edge pixels repeated forever (`clampedToExtent()`).
final class _ClampNode: _PlanNode, @unchecked Sendable {
    let child: _PlanNode
    let area: _IRect
    let slot: Int
    init(child: _PlanNode, area: _IRect, slot: Int) {
        self.child = child
        self.area = area
        self.slot = slot
        super.init(bounds: area.isEmpty ? .empty : .infinite)
    }

    /// The part of `area` that clamping `r` reads.
    static func source(of r: _IRect, in area: _IRect) -> _IRect {
        func clamp(_ v: Int, _ lo: Int, _ hi: Int) -> Int { min(max(v, lo), hi) }
        let x0 = clamp(r.x, area.x, area.maxX - 1), x1 = clamp(r.maxX - 1, area.x, area.maxX - 1)
        let y0 = clamp(r.y, area.y, area.maxY - 1), y1 = clamp(r.maxY - 1, area.y, area.maxY - 1)
        return _IRect(x0: x0, y0: y0, x1: x1 + 1, y1: y1 + 1)
    }

    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        let s = _ClampNode.source(of: r, in: area)
        if s == r {
            child.render(r, out, stride, ctx)
            return
        }
        let buffer = ctx.pixels(slot, s.area)
        child.render(s, buffer, s.w, ctx)
        // Columns left of, inside and right of the source span.
        let left = min(max(s.x - r.x, 0), r.w)
        let right = min(max(r.maxX - s.maxX, 0), r.w - left)
        let middle = r.w - left - right
        for j in 0..<r.h {
            let sy = min(max(r.y + j, s.y), s.maxY - 1) - s.y
            let source = buffer + sy * s.w
            let row = out + j * stride
            if left > 0 { row.update(repeating: source[0], count: left) }
            if middle > 0 { (row + left).update(from: source + (r.x + left - s.x), count: middle) }
            if right > 0 { (row + left + middle).update(repeating: source[s.w - 1], count: right) }
        }
    }
}

/// An axis-aligned affine transform (scale and translation), sampled bilinearly.
///
/// Output pixel x samples source index `u = ax·(x + 0.5) + bx − 0.5`; similarly for y.
final class _AxisTransformNode: _PlanNode, @unchecked Sendable {
    let child: _PlanNode
    let ax: Double, bx: Double, ay: Double, by: Double
    let slot: Int
    let tableSlot: Int
    let rowSlot: Int
    /// Whether output pixel centres land exactly on source pixel centres (flips).
    let exact: Bool

    init(child: _PlanNode, inverse t: CGAffineTransform, bounds: _IRect, slots: (Int, Int, Int)) {
        self.child = child
        ax = Double(t.a)
        bx = Double(t.tx)
        ay = Double(t.d)
        by = Double(t.ty)
        (slot, tableSlot, rowSlot) = slots
        exact = abs(ax) == 1 && abs(ay) == 1 && bx == bx.rounded() && by == by.rounded()
        super.init(bounds: bounds)
    }

    /// Source column index and weight of each output column of `r`.
    private func columns(_ r: _IRect, _ s: _IRect, _ ctx: _EvalContext) -> (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Float>, Bool) {
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
        _ r: _IRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: _EvalContext
    ) {
        let s = sourceRect(r)
        if _split(r, s, out, stride, { self.renderChannelInside($0, channel, $1, stride, ctx) }) { return }
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

    /// Whether the 8-bit path resamples a stored 4-byte image with the byte kernels (default) or through the float tile
    /// path: tests compare the two.
    static let resamplesStoredBytes = Atomic<Bool>(true)

    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        guard exact else {
            if Self.resamplesStoredBytes.load(ordering: .relaxed), let source = child as? _SourceNode,
                let offsets = source.byteOffsets
            {
                resampleStoredBytes(source, offsets, r, out, stride, ctx)
            } else {
                super.renderBytesInside(r, out, stride, ctx)
            }
            return
        }
        let s = sourceRect(r)
        let buffer = ctx.raw(slot, bytes: s.area * 4).bindMemory(to: _Word.self, capacity: s.area)
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
        _ source: _SourceNode, _ offsets: SIMD4<Int32>, _ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int,
        _ ctx: _EvalContext
    ) {
        let s = sourceRect(r)
        if _split(r, s, out, stride, { self.resampleStoredBytes(source, offsets, $0, $1, stride, ctx) }) { return }
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
                cimg_axis_read4(
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
                cimg_axis_lerp(row0, row0 + s.w * 4, fy, temp, Int32(s.w * 4))
                source = UnsafePointer(temp)
            }
            cimg_axis_columns_rgba8(source, index, weight, integral ? 1 : 0, out + j * stride, Int32(r.w))
        }
    }

    /// The child pixels read for output rectangle `r`.
    func sourceRect(_ r: _IRect) -> _IRect {
        let u0 = ax * (Double(r.x) + 0.5) + bx - 0.5, u1 = ax * (Double(r.maxX - 1) + 0.5) + bx - 0.5
        let v0 = ay * (Double(r.y) + 0.5) + by - 0.5, v1 = ay * (Double(r.maxY - 1) + 0.5) + by - 0.5
        return _IRect(
            x0: _floorInt(min(u0, u1)), y0: _floorInt(min(v0, v1)), x1: _floorInt(max(u0, u1)) + 2,
            y1: _floorInt(max(v0, v1)) + 2)
    }

    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        let s = sourceRect(r)
        if _split(r, s, out, stride, { self.renderInside($0, $1, stride, ctx) }) { return }
        let buffer = ctx.pixels(slot, s.area)
        child.render(s, buffer, s.w, ctx)
        let (index, weight, integral) = columns(r, s, ctx)
        let temp = ctx.pixels(rowSlot, s.w)
        for j in 0..<r.h {
            let v = ay * (Double(r.y + j) + 0.5) + by - 0.5
            let j0 = v.rounded(.down)
            let fy = Float(v - j0)
            let row0 = buffer + (Int(j0) - s.y) * s.w
            let source: UnsafeMutablePointer<_Pixel>
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

/// Any other affine transform (rotation, shear, orientation), sampled bilinearly.
final class _AffineTransformNode: _PlanNode, @unchecked Sendable {
    let child: _PlanNode
    let inverse: CGAffineTransform
    let slot: Int
    /// For transforms that map pixel centres onto pixel centres: integer source index
    /// `u = a·x + c·y + u0`, `v = b·x + d·y + v0`.
    let exact: (a: Int, b: Int, c: Int, d: Int, u0: Int, v0: Int)?

    init(child: _PlanNode, inverse: CGAffineTransform, bounds: _IRect, slot: Int) {
        self.child = child
        self.inverse = inverse
        self.slot = slot
        let m = inverse
        let unit: Set<CGFloat> = [-1, 0, 1]
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
        super.init(bounds: bounds)
    }

    func sourceRect(_ r: _IRect) -> _IRect {
        let box = CGRect(x: r.x, y: r.y, width: r.w, height: r.h).applying(inverse)
        return _IRect(
            x0: _floorInt(Double(box.minX) - 0.5), y0: _floorInt(Double(box.minY) - 0.5),
            x1: _floorInt(Double(box.maxX) - 0.5) + 2, y1: _floorInt(Double(box.maxY) - 0.5) + 2)
    }

    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        guard let exact else {
            super.renderBytesInside(r, out, stride, ctx)
            return
        }
        // Quarter turns and mirrors: every output pixel is one source pixel.
        let s = sourceRect(r)
        let buffer = ctx.raw(slot, bytes: s.area * 4).bindMemory(to: _Word.self, capacity: s.area)
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

    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        let s = sourceRect(r)
        // A rotated strip's bounding box is mostly outside it: split the longer side.
        if s.area > 4 * r.area + 4096, r.w > 1 || r.h > 1 {
            if r.w >= r.h {
                let half = r.w / 2
                renderInside(_IRect(x: r.x, y: r.y, w: half, h: r.h), out, stride, ctx)
                renderInside(_IRect(x: r.x + half, y: r.y, w: r.w - half, h: r.h), out + half, stride, ctx)
            } else {
                let half = r.h / 2
                renderInside(_IRect(x: r.x, y: r.y, w: r.w, h: half), out, stride, ctx)
                renderInside(_IRect(x: r.x, y: r.y + half, w: r.w, h: r.h - half), out + half * stride, stride, ctx)
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

/// `CISourceOverCompositing`: `fg + bg·(1 − fg.a)`.
final class _CompositeNode: _PlanNode, @unchecked Sendable {
    let foreground: _PlanNode
    let background: _PlanNode
    let slot: Int
    init(foreground: _PlanNode, background: _PlanNode, bounds: _IRect, slot: Int) {
        self.foreground = foreground
        self.background = background
        self.slot = slot
        super.init(bounds: bounds.intersection(foreground.bounds.union(background.bounds)))
    }
    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        foreground.render(r, out, stride, ctx)
        if r.intersection(background.bounds).isEmpty { return }
        let b = ctx.pixels(slot, r.area)
        background.render(r, b, r.w, ctx)
        for j in 0..<r.h {
            let o = out + j * stride, bg = b + j * r.w
            for k in 0..<r.w {
                let f = o[k]
                o[k] = f + bg[k] * (1 - f[3])
            }
        }
    }

    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        foreground.renderBytes(r, out, stride, ctx)
        if r.intersection(background.bounds).isEmpty { return }
        let b = ctx.raw(slot, bytes: r.area * 4).bindMemory(to: _Word.self, capacity: r.area)
        background.renderBytes(r, b, r.w, ctx)
        for j in 0..<r.h { _overRow(out + j * stride, b + j * r.w, r.w) }
    }
}

/// `CIBlendWith…Mask`: `bg + m·(fg − bg)` with `m` one channel of the mask.
final class _BlendNode: _PlanNode, @unchecked Sendable {
    /// Whether the 8-bit path reads stored 8-bit masks and RGBA images straight from their rows (default) or renders
    /// them into tiles first, as for any other input: tests compare the two.
    static let readsStoredBytes = Atomic<Bool>(true)

    let foreground: _PlanNode
    let background: _PlanNode
    let mask: _PlanNode
    let channel: Int
    let backgroundSlot: Int
    let maskSlot: Int

    init(
        foreground: _PlanNode, background: _PlanNode, mask: _PlanNode, channel: Int, bounds: _IRect, slots: (Int, Int)
    ) {
        self.foreground = foreground
        self.background = background
        self.mask = mask
        self.channel = channel
        (backgroundSlot, maskSlot) = slots
        super.init(bounds: bounds.intersection(foreground.bounds.union(background.bounds)))
    }

    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
        if r.intersection(mask.bounds).isEmpty {
            // The mask is 0 everywhere here: only the background shows.
            background.render(r, out, stride, ctx)
            return
        }
        foreground.render(r, out, stride, ctx)
        let b = ctx.pixels(backgroundSlot, r.area)
        background.render(r, b, r.w, ctx)
        let m = ctx.pixels(maskSlot, r.area)
        mask.render(r, m, r.w, ctx)
        let c = channel
        for j in 0..<r.h {
            let o = out + j * stride, bg = b + j * r.w, mk = m + j * r.w
            switch c {
            case 0: for k in 0..<r.w { o[k] = bg[k] + (o[k] - bg[k]) * mk[k][0] }
            case 1: for k in 0..<r.w { o[k] = bg[k] + (o[k] - bg[k]) * mk[k][1] }
            case 2: for k in 0..<r.w { o[k] = bg[k] + (o[k] - bg[k]) * mk[k][2] }
            default: for k in 0..<r.w { o[k] = bg[k] + (o[k] - bg[k]) * mk[k][3] }
            }
        }
    }

    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
        if r.intersection(mask.bounds).isEmpty {
            background.renderBytes(r, out, stride, ctx)
            return
        }
        let direct = Self.readsStoredBytes.load(ordering: .relaxed)
        if direct, channel < 3, let grey = mask.grey8Source(r), let fg = foreground.rgbaSource(r),
            let bg = background.rgbaSource(r), !bg.premultiply
        {
            // Three stored 8-bit images (a photo, a backdrop, a Vision person mask): blended straight from their rows.
            fg.pixels.withUnsafeBytes { f in
                bg.pixels.withUnsafeBytes { b in
                    grey.pixels.withUnsafeBytes { m in
                        let fRow = fg.pixels.bytesPerRow(), bRow = bg.pixels.bytesPerRow(), mRow = grey.pixels.bytesPerRow()
                        for j in 0..<r.h {
                            let fp = f.baseAddress! + (fg.pixels.height - 1 - (fg.y + j)) * fRow + fg.x * 4
                            let bp = b.baseAddress! + (bg.pixels.height - 1 - (bg.y + j)) * bRow + bg.x * 4
                            let mp = m.baseAddress! + (grey.pixels.height - 1 - (grey.y + j)) * mRow + grey.x
                            cimg_blend_rgba_mask8(
                                fp.assumingMemoryBound(to: UInt32.self), fg.premultiply ? 1 : 0,
                                bp.assumingMemoryBound(to: UInt32.self), mp.assumingMemoryBound(to: UInt8.self),
                                out + j * stride, Int32(r.w))
                        }
                    }
                }
            }
            return
        }
        let b = ctx.raw(backgroundSlot, bytes: r.area * 4).bindMemory(to: _Word.self, capacity: r.area)
        background.renderBytes(r, b, r.w, ctx)
        guard direct else {
            // The reference path: every input rendered into tiles, the mask in float.
            foreground.renderBytes(r, out, stride, ctx)
            let m = ctx.raw(maskSlot, bytes: r.area * 4).bindMemory(to: Float.self, capacity: r.area)
            mask.renderChannel(r, channel, m, r.w, ctx)
            for j in 0..<r.h { _blendRow(out + j * stride, b + j * r.w, m + j * r.w, r.w) }
            return
        }
        // The photo: a stored RGBA image read in place (premultiplied on the way, as its tile would be), else its tile.
        let fg = foreground.rgbaSource(r)
        if fg == nil { foreground.renderBytes(r, out, stride, ctx) }
        func blend(row j: Int, weights w: UnsafePointer<UInt8>) {
            guard let fg else {
                cimg_blend_rgba_mask8(out + j * stride, 0, b + j * r.w, w, out + j * stride, Int32(r.w))
                return
            }
            fg.pixels.withUnsafeBytes { f in
                let fp = f.baseAddress! + (fg.pixels.height - 1 - (fg.y + j)) * fg.pixels.bytesPerRow() + fg.x * 4
                cimg_blend_rgba_mask8(
                    fp.assumingMemoryBound(to: UInt32.self), fg.premultiply ? 1 : 0, b + j * r.w, w, out + j * stride, Int32(r.w))
            }
        }
        // The weights as bytes: a stored 8-bit mask's own rows, or any other mask's channel rounded to bytes as
        // `_blendRow` rounds it (a Vision mask scaled to the photo, as Apple's sample does).
        if channel < 3, let grey = mask.grey8Source(r) {
            grey.pixels.withUnsafeBytes { m in
                let base = m.baseAddress!.assumingMemoryBound(to: UInt8.self), rowBytes = grey.pixels.bytesPerRow()
                for j in 0..<r.h { blend(row: j, weights: base + (grey.pixels.height - 1 - (grey.y + j)) * rowBytes + grey.x) }
            }
        } else {
            let raw = ctx.raw(maskSlot, bytes: r.area * 5)
            let m = raw.bindMemory(to: Float.self, capacity: r.area)
            mask.renderChannel(r, channel, m, r.w, ctx)
            let bytes = (raw + r.area * 4).bindMemory(to: UInt8.self, capacity: r.area)
            for j in 0..<r.h {
                _weightBytes(m + j * r.w, bytes + j * r.w, r.w)
                blend(row: j, weights: bytes + j * r.w)
            }
        }
    }
}

/// Per-pixel colour operations.
enum _PointOperation: Sendable {
    /// `CIMaximumComponent`: grey = max(r, g, b), alpha kept.
    case maximumComponent
    /// `CIGammaAdjust`: unpremultiplied colour `sign(c)·|c|^power`, alpha kept.
    case gamma(Float)
    /// `CIColorMatrix` on unpremultiplied RGBA: `(r·R, r·G, r·B, r·A) + bias`.
    case colorMatrix(r: SIMD4<Float>, g: SIMD4<Float>, b: SIMD4<Float>, a: SIMD4<Float>, bias: SIMD4<Float>)
}

final class _PointNode: _PlanNode, @unchecked Sendable {
    let child: _PlanNode
    let operation: _PointOperation

    init(child: _PlanNode, operation: _PointOperation, bounds: _IRect) {
        self.child = child
        self.operation = operation
        super.init(bounds: bounds)
    }

    override func renderBytesInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Word>, _ stride: Int, _ ctx: _EvalContext) {
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

    override func renderInside(_ r: _IRect, _ out: UnsafeMutablePointer<_Pixel>, _ stride: Int, _ ctx: _EvalContext) {
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
                        _signedPow(p[0] * inv, power) * a, _signedPow(p[1] * inv, power) * a,
                        _signedPow(p[2] * inv, power) * a, a)
                }
            }
        case .colorMatrix(let rv, let gv, let bv, let av, let bias):
            // Output channel i is dot(vector_i, input): accumulate the matrix's columns.
            let c0 = SIMD4(rv[0], gv[0], bv[0], av[0]), c1 = SIMD4(rv[1], gv[1], bv[1], av[1])
            let c2 = SIMD4(rv[2], gv[2], bv[2], av[2]), c3 = SIMD4(rv[3], gv[3], bv[3], av[3])
            for j in 0..<r.h {
                let o = out + j * stride
                for k in 0..<r.w {
                    let p = o[k]
                    let a = p[3]
                    let u = a > 0 ? SIMD4(p[0] / a, p[1] / a, p[2] / a, a) : .zero
                    var q: _Pixel = bias
                    q += c0 * u[0]
                    q += c1 * u[1]
                    q += c2 * u[2]
                    q += c3 * u[3]
                    let qa = q[3]
                    q *= SIMD4(qa, qa, qa, 1)
                    o[k] = q
                }
            }
        }
    }
}

@inline(__always) func _floorInt(_ v: Double) -> Int {
    let f = v.rounded(.down)
    if !(f > -Double(1 << 40)) { return -(1 << 40) }
    if !(f < Double(1 << 40)) { return 1 << 40 }
    return Int(f)
}

@inline(__always) func _signedPow(_ v: Float, _ p: Float) -> Float {
    v >= 0 ? Foundation.pow(v, p) : -Foundation.pow(-v, p)
}

/// Splits `r` in two and renders each half with `body` when its source rectangle `s` is much
/// larger than `r` (strong downscales); returns whether it did.
@inline(__always)
func _split<T>(
    _ r: _IRect, _ s: _IRect, _ out: UnsafeMutablePointer<T>, _ stride: Int, _ body: (_IRect, UnsafeMutablePointer<T>) -> Void
) -> Bool {
    guard s.area > max(4 * r.area, 1 << 16), r.h > 1 || r.w > 1 else { return false }
    if r.h > 1 {
        let half = r.h / 2
        body(_IRect(x: r.x, y: r.y, w: r.w, h: half), out)
        body(_IRect(x: r.x, y: r.y + half, w: r.w, h: r.h - half), out + half * stride)
    } else {
        let half = r.w / 2
        body(_IRect(x: r.x, y: r.y, w: half, h: 1), out)
        body(_IRect(x: r.x + half, y: r.y, w: r.w - half, h: 1), out + half)
    }
    return true
}

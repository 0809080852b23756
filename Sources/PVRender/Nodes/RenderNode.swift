// The nodes of a compiled render plan. Each renders any rectangle of the working space into
// a float tile; outside its bounds it is clear (transparent black), as Core Image images are.
// Nodes are immutable after compilation and shared by the render threads; scratch memory
// comes from the calling thread's `RenderScratch`.
import Foundation
import PVImaging

class RenderNode: @unchecked Sendable {
    /// The pixels that may be non-clear.
    let bounds: PixelRect

    init(bounds: PixelRect) { self.bounds = bounds }

    /// Clears the part of `r` outside ``bounds`` and returns the part inside with its origin in `out`.
    @inline(__always)
    private func clip<T>(_ r: PixelRect, _ out: UnsafeMutablePointer<T>, _ stride: Int, _ zero: T) -> (PixelRect, UnsafeMutablePointer<T>)? {
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
    final func render(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        if let (inside, origin) = clip(r, out, stride, FloatPixel.zero) { renderInside(inside, origin, stride, ctx) }
    }

    /// As ``render(_:_:_:_:)`` in premultiplied RGBA8 words (the 8-bit fast path).
    final func renderBytes(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        if let (inside, origin) = clip(r, out, stride, PixelWord(0)) { renderBytesInside(inside, origin, stride, ctx) }
    }

    /// One channel (0…3 = R, G, B, A, premultiplied) as floats.
    final func renderChannel(_ r: PixelRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: RenderScratch) {
        if let (inside, origin) = clip(r, out, stride, Float(0)) { renderChannelInside(inside, channel, origin, stride, ctx) }
    }

    /// When this node is a stored 8-bit one-component image (moved by whole pixels at most) that covers all of `r`:
    /// the image and where `r` lies in it (its bottom-up coordinates), so the 8-bit path can read a mask's bytes.
    func grey8Source(_ r: PixelRect) -> (pixels: PixelBuffer, x: Int, y: Int)? { nil }

    /// As ``grey8Source(_:)`` for a stored image in RGBA byte order, and whether it must be premultiplied (straight alpha).
    func rgbaSource(_ r: PixelRect) -> (pixels: PixelBuffer, x: Int, y: Int, premultiply: Bool)? { nil }

    /// Renders `r`, which lies inside ``bounds``.
    func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        preconditionFailure("abstract")
    }

    /// Default: render in float, then quantise.
    func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        let f = ctx.fallback(r.area)
        renderInside(r, f, r.w, ctx)
        for j in 0..<r.h { quantize(f + j * r.w, out + j * stride, r.w) }
    }

    /// Default: render in float, then take the channel.
    func renderChannelInside(_ r: PixelRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: RenderScratch) {
        let f = ctx.fallback(r.area)
        renderInside(r, f, r.w, ctx)
        for j in 0..<r.h {
            let source = f + j * r.w, destination = out + j * stride
            for k in 0..<r.w { destination[k] = source[k][channel] }
        }
    }
}

/// A node that reads one other node.
class UnaryNode: RenderNode, @unchecked Sendable {
    let child: RenderNode
    init(child: RenderNode, bounds: PixelRect) {
        self.child = child
        super.init(bounds: bounds)
    }
}

/// Nothing: always clear.
final class EmptyNode: RenderNode, @unchecked Sendable {
    init() { super.init(bounds: .empty) }
    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {}
}

/// One colour everywhere (`CIImage(color:)`).
final class ConstantNode: RenderNode, @unchecked Sendable {
    let color: FloatPixel
    init(color: FloatPixel) {
        self.color = color
        super.init(bounds: .infinite)
    }
    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        for j in 0..<r.h { (out + j * stride).update(repeating: color, count: r.w) }
    }
    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        let word = unsafeBitCast(byteClamped(color), to: PixelWord.self)
        for j in 0..<r.h { (out + j * stride).update(repeating: word, count: r.w) }
    }
    override func renderChannelInside(
        _ r: PixelRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: RenderScratch
    ) {
        for j in 0..<r.h { (out + j * stride).update(repeating: color[channel], count: r.w) }
    }
}

/// A materialised float image (blur, Lanczos and high-quality downsampling outputs).
final class MaterializedNode: RenderNode, @unchecked Sendable {
    let image: FloatImage
    init(image: FloatImage, bounds: PixelRect) {
        self.image = image
        super.init(bounds: bounds.intersection(image.rect))
    }
    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        for j in 0..<r.h {
            (out + j * stride).update(from: image.row(r.y + j) + (r.x - image.rect.x), count: r.w)
        }
    }
    override func renderChannelInside(
        _ r: PixelRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: RenderScratch
    ) {
        for j in 0..<r.h {
            let source = image.row(r.y + j) + (r.x - image.rect.x), destination = out + j * stride
            for k in 0..<r.w { destination[k] = source[k][channel] }
        }
    }
}

/// The child, limited to narrower bounds (`cropped(to:)`); the clipping is done by `render`.
final class CropNode: UnaryNode, @unchecked Sendable {
    override init(child: RenderNode, bounds: PixelRect) {
        super.init(child: child, bounds: bounds.intersection(child.bounds))
    }
    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        child.render(r, out, stride, ctx)
    }
    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        child.renderBytes(r, out, stride, ctx)
    }
    override func renderChannelInside(
        _ r: PixelRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: RenderScratch
    ) {
        child.renderChannel(r, channel, out, stride, ctx)
    }
}

/// The child moved by whole pixels: no resampling.
final class TranslateNode: UnaryNode, @unchecked Sendable {
    let dx: Int
    let dy: Int
    init(child: RenderNode, dx: Int, dy: Int, bounds: PixelRect) {
        (self.dx, self.dy) = (dx, dy)
        super.init(child: child, bounds: bounds.intersection(child.bounds.offsetBy(dx, dy)))
    }
    override func grey8Source(_ r: PixelRect) -> (pixels: PixelBuffer, x: Int, y: Int)? {
        r.intersection(bounds) == r ? child.grey8Source(r.offsetBy(-dx, -dy)) : nil
    }
    override func rgbaSource(_ r: PixelRect) -> (pixels: PixelBuffer, x: Int, y: Int, premultiply: Bool)? {
        r.intersection(bounds) == r ? child.rgbaSource(r.offsetBy(-dx, -dy)) : nil
    }
    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        child.render(r.offsetBy(-dx, -dy), out, stride, ctx)
    }
    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        child.renderBytes(r.offsetBy(-dx, -dy), out, stride, ctx)
    }
    override func renderChannelInside(
        _ r: PixelRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: RenderScratch
    ) {
        child.renderChannel(r.offsetBy(-dx, -dy), channel, out, stride, ctx)
    }
}

/// The child's edge pixels repeated forever (`clampedToExtent()`).
final class ClampNode: UnaryNode, @unchecked Sendable {
    let area: PixelRect
    let slot: Int
    init(child: RenderNode, area: PixelRect, slot: Int) {
        (self.area, self.slot) = (area, slot)
        super.init(child: child, bounds: area.isEmpty ? .empty : .infinite)
    }

    /// The part of `area` that clamping `r` reads.
    static func source(of r: PixelRect, in area: PixelRect) -> PixelRect {
        func clamp(_ v: Int, _ lo: Int, _ hi: Int) -> Int { min(max(v, lo), hi) }
        let x0 = clamp(r.x, area.x, area.maxX - 1), x1 = clamp(r.maxX - 1, area.x, area.maxX - 1)
        let y0 = clamp(r.y, area.y, area.maxY - 1), y1 = clamp(r.maxY - 1, area.y, area.maxY - 1)
        return PixelRect(x0: x0, y0: y0, x1: x1 + 1, y1: y1 + 1)
    }

    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        let s = ClampNode.source(of: r, in: area)
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

@inline(__always) func floorInt(_ v: Double) -> Int {
    let f = v.rounded(.down)
    if !(f > -Double(1 << 40)) { return -(1 << 40) }
    if !(f < Double(1 << 40)) { return 1 << 40 }
    return Int(f)
}

@inline(__always) func signedPow(_ v: Float, _ p: Float) -> Float {
    v >= 0 ? Foundation.pow(v, p) : -Foundation.pow(-v, p)
}

/// Splits `r` in two and renders each half with `body` when its source rectangle `s` is much
/// larger than `r` (strong downscales); returns whether it did.
@inline(__always)
func splitIfSparse<T>(
    _ r: PixelRect, _ s: PixelRect, _ out: UnsafeMutablePointer<T>, _ stride: Int, _ body: (PixelRect, UnsafeMutablePointer<T>) -> Void
) -> Bool {
    guard s.area > max(4 * r.area, 1 << 16), r.h > 1 || r.w > 1 else { return false }
    if r.h > 1 {
        let half = r.h / 2
        body(PixelRect(x: r.x, y: r.y, w: r.w, h: half), out)
        body(PixelRect(x: r.x, y: r.y + half, w: r.w, h: r.h - half), out + half * stride)
    } else {
        let half = r.w / 2
        body(PixelRect(x: r.x, y: r.y, w: half, h: 1), out)
        body(PixelRect(x: r.x + half, y: r.y, w: r.w - half, h: 1), out + half)
    }
    return true
}

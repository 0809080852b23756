// Source-over compositing and mask blends, in float and on 8-bit words.
import CRenderKernels
import Foundation
import PVImaging
import Synchronization

/// `CISourceOverCompositing`: `fg + bg·(1 − fg.a)`.
final class CompositeNode: RenderNode, @unchecked Sendable {
    let foreground: RenderNode
    let background: RenderNode
    let slot: Int
    init(foreground: RenderNode, background: RenderNode, bounds: PixelRect, slot: Int) {
        self.foreground = foreground
        self.background = background
        self.slot = slot
        super.init(bounds: bounds.intersection(foreground.bounds.union(background.bounds)))
    }
    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
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

    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        foreground.renderBytes(r, out, stride, ctx)
        if r.intersection(background.bounds).isEmpty { return }
        let b = ctx.raw(slot, bytes: r.area * 4).bindMemory(to: PixelWord.self, capacity: r.area)
        background.renderBytes(r, b, r.w, ctx)
        for j in 0..<r.h { overRow(out + j * stride, b + j * r.w, r.w) }
    }
}

/// `CIBlendWith…Mask`: `bg + m·(fg − bg)` with `m` one channel of the mask.
final class BlendNode: RenderNode, @unchecked Sendable {
    let foreground: RenderNode
    let background: RenderNode
    let mask: RenderNode
    let channel: Int
    let backgroundSlot: Int
    let maskSlot: Int

    init(
        foreground: RenderNode, background: RenderNode, mask: RenderNode, channel: Int, bounds: PixelRect, slots: (Int, Int)
    ) {
        self.foreground = foreground
        self.background = background
        self.mask = mask
        self.channel = channel
        (backgroundSlot, maskSlot) = slots
        super.init(bounds: bounds.intersection(foreground.bounds.union(background.bounds)))
    }

    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
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

    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        if r.intersection(mask.bounds).isEmpty {
            background.renderBytes(r, out, stride, ctx)
            return
        }
        let direct = RenderShortcuts.blendReadsStoredBytes.load(ordering: .relaxed)
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
                            crk_blend_rgba_mask8(
                                fp.assumingMemoryBound(to: UInt32.self), fg.premultiply ? 1 : 0,
                                bp.assumingMemoryBound(to: UInt32.self), mp.assumingMemoryBound(to: UInt8.self),
                                out + j * stride, Int32(r.w))
                        }
                    }
                }
            }
            return
        }
        let b = ctx.raw(backgroundSlot, bytes: r.area * 4).bindMemory(to: PixelWord.self, capacity: r.area)
        background.renderBytes(r, b, r.w, ctx)
        guard direct else {
            // The reference path: every input rendered into tiles, the mask in float.
            foreground.renderBytes(r, out, stride, ctx)
            let m = ctx.raw(maskSlot, bytes: r.area * 4).bindMemory(to: Float.self, capacity: r.area)
            mask.renderChannel(r, channel, m, r.w, ctx)
            for j in 0..<r.h { blendRow(out + j * stride, b + j * r.w, m + j * r.w, r.w) }
            return
        }
        // The photo: a stored RGBA image read in place (premultiplied on the way, as its tile would be), else its tile.
        let fg = foreground.rgbaSource(r)
        if fg == nil { foreground.renderBytes(r, out, stride, ctx) }
        func blend(row j: Int, weights w: UnsafePointer<UInt8>) {
            guard let fg else {
                crk_blend_rgba_mask8(out + j * stride, 0, b + j * r.w, w, out + j * stride, Int32(r.w))
                return
            }
            fg.pixels.withUnsafeBytes { f in
                let fp = f.baseAddress! + (fg.pixels.height - 1 - (fg.y + j)) * fg.pixels.bytesPerRow() + fg.x * 4
                crk_blend_rgba_mask8(
                    fp.assumingMemoryBound(to: UInt32.self), fg.premultiply ? 1 : 0, b + j * r.w, w, out + j * stride, Int32(r.w))
            }
        }
        // The weights as bytes: a stored 8-bit mask's own rows, or any other mask's channel rounded to bytes as
        // `blendRow` rounds it (a Vision mask scaled to the photo, as Apple's sample does).
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
                weightBytes(m + j * r.w, bytes + j * r.w, r.w)
                blend(row: j, weights: bytes + j * r.w)
            }
        }
    }
}

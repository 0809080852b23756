// Stored pixels as a plan node, read in every path the renderer has (float, 8-bit words, one channel).
import PVImaging

/// Pixels of a buffer placed at (0, 0): buffer row 0 (top in memory) is working row `height − 1`.
final class SourceNode: RenderNode, @unchecked Sendable {
    let pixels: PixelBuffer
    let premultiply: Bool
    let kind: SourceKind

    /// `pixels` must not be 4:2:0 (convert first).
    init(pixels: PixelBuffer, premultiply: Bool) {
        self.pixels = pixels
        self.premultiply = premultiply
        kind = SourceKind(pixels.format)
        super.init(bounds: PixelRect(x: 0, y: 0, w: pixels.width, h: pixels.height))
    }

    override func grey8Source(_ r: PixelRect) -> (pixels: PixelBuffer, x: Int, y: Int)? {
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

    override func rgbaSource(_ r: PixelRect) -> (pixels: PixelBuffer, x: Int, y: Int, premultiply: Bool)? {
        kind == .rgba && r.intersection(bounds) == r ? (pixels, r.x, r.y, premultiply) : nil
    }

    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        let kind = self.kind, premultiply = self.premultiply
        forEachRow(r) { j, row in readSourceRow(kind, row, out + j * stride, r.w, premultiply) }
    }

    /// Calls `body` with each row `j` of `r` (from the bottom) and the stored bytes of its first pixel.
    @inline(__always) private func forEachRow(_ r: PixelRect, _ body: (_ j: Int, _ row: UnsafeRawPointer) -> Void) {
        let height = pixels.height, rowBytes = pixels.bytesPerRow(), bpp = pixels.format.bytesPerPixel
        pixels.withUnsafeBytes { bytes in
            let base = bytes.baseAddress!
            for j in 0..<r.h { body(j, base + (height - 1 - (r.y + j)) * rowBytes + r.x * bpp) }
        }
    }

    override func renderBytesInside(_ r: PixelRect, _ out: UnsafeMutablePointer<PixelWord>, _ stride: Int, _ ctx: RenderScratch) {
        let kind = self.kind
        if kind == .greyHalf || kind == .greyFloat {
            super.renderBytesInside(r, out, stride, ctx)
            return
        }
        let premultiply = self.premultiply
        forEachRow(r) { j, row in
            let o = out + j * stride
            switch kind {
            case .rgba: UnsafeMutableRawPointer(o).copyMemory(from: row, byteCount: r.w * 4)
            case .bgra: RGBAWords.swapRedBlue(row, o, r.w)
            case .argb: RGBAWords.fromARGB(row, o, r.w)
            case .rgb24: RGBAWords.fromRGB(row.assumingMemoryBound(to: UInt8.self), o, r.w)
            case .grey8: RGBAWords.fromGrey(row.assumingMemoryBound(to: UInt8.self), o, r.w)
            case .greyHalf, .greyFloat:
                break
            }
            if premultiply, kind == .rgba || kind == .bgra || kind == .argb { premultiplyWords(o, r.w) }
        }
    }

    override func renderChannelInside(
        _ r: PixelRect, _ channel: Int, _ out: UnsafeMutablePointer<Float>, _ stride: Int, _ ctx: RenderScratch
    ) {
        let kind = self.kind, premultiply = self.premultiply
        // Byte offset of the channel (and of alpha) inside a stored 4-byte pixel.
        let offsets: (c: Int, a: Int)
        switch kind {
        case .bgra: offsets = ([2, 1, 0, 3][channel], 3)
        case .argb: offsets = ([1, 2, 3, 0][channel], 0)
        default: offsets = (channel, 3)
        }
        forEachRow(r) { j, row in
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

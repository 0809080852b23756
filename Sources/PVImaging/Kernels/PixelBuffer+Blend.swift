/// Which channel of a 4-channel mask holds the weight (one-component masks have only one).
import PVCore
public enum MaskChannel: Sendable, Hashable {
    /// Core Image's `CIBlendWithRedMask`.
    case red
    /// Core Image's `CIBlendWithMask` (it reads the mask's green channel).
    case green
    /// Core Image's `CIBlendWithAlphaMask`.
    case alpha
}

extension PixelBuffer {
    /// `background + m·(foreground − background)` per channel (alpha included), with `m` in 0…1
    /// read from `mask`.
    ///
    /// The three images must have one size; foreground and background one 8-bit RGB-like format,
    /// which the result has too. The mask is one-component (8-bit: value/255; half or float: value
    /// clamped to 0…1) or 8-bit RGB-like, read from `maskChannel` (an `rgb24` mask's alpha is 255).
    /// Results are exactly `round(background + m·(foreground − background))` for 8-bit masks; float
    /// masks are quantised to 1/255 first (≤ 1 LSB).
    ///
    /// ```swift
    /// let composite = try PixelBuffer.blend(foreground: frame, background: beach, mask: personMask)
    /// ```
    /// - Complexity: O(width·height), no allocations beyond the result.
    /// - Throws: ``ImagingError`` `.invalidArgument` for mismatched sizes or formats,
    ///   `.unsupportedPixelFormat` for a YUV image or mask.
    public static func blend(
        foreground: PixelBuffer, background: PixelBuffer, mask: PixelBuffer, maskChannel: MaskChannel = .green
    ) throws -> PixelBuffer {
        // The blend writes every pixel.
        var out = try PixelBuffer(
            uninitializedWidth: foreground.width, height: foreground.height, format: foreground.format,
            limits: .unlimitedForKernels)
        try blend(foreground: foreground, background: background, mask: mask, maskChannel: maskChannel, into: &out)
        return out
    }

    /// As ``blend(foreground:background:mask:maskChannel:)``, writing into `destination` (same size and
    /// format as `foreground`), which may be reused across frames.
    public static func blend(
        foreground: PixelBuffer, background: PixelBuffer, mask: PixelBuffer, maskChannel: MaskChannel = .green,
        into destination: inout PixelBuffer
    ) throws {
        guard let layout = RGBLayout(foreground.format) else { throw ImagingError.unsupported("blend", foreground.format) }
        guard background.format == foreground.format, destination.format == foreground.format else {
            throw ImagingError(
                .invalidArgument,
                "blend needs foreground, background and destination in one format, got \(foreground.format), \(background.format), \(destination.format)"
            )
        }
        for other in [background, mask, destination] where other.width != foreground.width || other.height != foreground.height {
            throw ImagingError.sizeMismatch("blend", foreground, other)
        }
        let maskReader = try MaskRowReader(mask.format, channel: maskChannel)
        let width = foreground.width, bpp = layout.bytesPerPixel
        foreground.withPlanes { f, _ in
            background.withPlanes { b, _ in
                mask.withPlanes { m, _ in
                    destination.withMutablePlanes { o, _ in
                        ImagingThreads.forEachBand(rows: foreground.height, workPerRow: width * bpp) { rows in
                            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: width * 5 + 64) { scratch in
                                let mrow = scratch.baseAddress!
                                let weights = mrow + width
                                for y in rows {
                                    let mp = maskReader.read(m.row(y), width: width, into: mrow)
                                    // Per-byte weights: the pixel's weight repeated bpp times.
                                    if bpp == 4 {
                                        let w32 = UnsafeMutableRawPointer(weights)
                                        for x in 0..<width {
                                            w32.storeBytes(
                                                of: UInt32(mp[x]) &* 0x0101_0101, toByteOffset: x &* 4, as: UInt32.self)
                                        }
                                    } else {
                                        for x in 0..<width {
                                            let v = mp[x]
                                            weights[3 &* x] = v
                                            weights[3 &* x &+ 1] = v
                                            weights[3 &* x &+ 2] = v
                                        }
                                    }
                                    blendBytes(
                                        f.row(y).assumingMemoryBound(to: UInt8.self),
                                        b.row(y).assumingMemoryBound(to: UInt8.self),
                                        UnsafePointer(weights), o.row(y).assumingMemoryBound(to: UInt8.self),
                                        count: width &* bpp)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `out = round((f·w + b·(255 − w)) / 255)` over bytes; auto-vectorised (16-bit lanes).
@inline(__always)
private func blendBytes(
    _ f: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ w: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>,
    count: Int
) {
    for i in 0..<count {
        let wi = UInt16(w[i])
        let t = UInt16(f[i]) &* wi &+ UInt16(b[i]) &* (255 &- wi) &+ 128
        out[i] = UInt8(truncatingIfNeeded: (t &+ (t &>> 8)) &>> 8)
    }
}

/// Reads one row of mask weights as bytes 0…255.
struct MaskRowReader {
    private enum Kind { case byte, half, float, interleaved(offset: Int, stride: Int), opaque }
    private let kind: Kind

    init(_ format: PixelFormat, channel: MaskChannel) throws {
        switch format {
        case .oneComponent8: kind = .byte
        case .oneComponent16Half: kind = .half
        case .oneComponent32Float: kind = .float
        case .rgba32, .bgra32, .argb32, .rgb24:
            let l = RGBLayout(format)!
            switch channel {
            case .red: kind = .interleaved(offset: l.r, stride: l.bytesPerPixel)
            case .green: kind = .interleaved(offset: l.g, stride: l.bytesPerPixel)
            case .alpha: kind = l.hasAlpha ? .interleaved(offset: l.a, stride: l.bytesPerPixel) : .opaque
            }
        case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange:
            throw ImagingError.unsupported("a mask", format)
        }
    }

    /// Returns a pointer to `width` weights: the row itself for 8-bit one-component masks, else `scratch`.
    @inline(__always)
    func read(_ row: UnsafeRawPointer, width: Int, into scratch: UnsafeMutablePointer<UInt8>) -> UnsafePointer<UInt8> {
        switch kind {
        case .byte:
            return row.assumingMemoryBound(to: UInt8.self)
        case .half:
            let p = row.assumingMemoryBound(to: Float16.self)
            for x in 0..<width { scratch[x] = clampToByte(Float(p[x]) * 255) }
        case .float:
            let p = row.assumingMemoryBound(to: Float.self)
            for x in 0..<width { scratch[x] = clampToByte(p[x] * 255) }
        case .interleaved(let offset, let stride):
            let p = row.assumingMemoryBound(to: UInt8.self) + offset
            for x in 0..<width { scratch[x] = p[x &* stride] }
        case .opaque:
            scratch.update(repeating: 255, count: width)
        }
        return UnsafePointer(scratch)
    }
}

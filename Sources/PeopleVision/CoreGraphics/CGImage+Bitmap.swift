import Foundation
import PVImaging

/// A source of an image's bytes, as Core Graphics' `CGDataProvider` (over bytes in memory or a file's contents).
public final class CGDataProvider: @unchecked Sendable {
    /// The bytes (Apple's `CGDataProvider.data`, a copy there; here the same bytes).
    public let data: CFData?

    /// A provider of `data` (Apple's `CGDataProvider(data:)`).
    public init?(data: CFData) { self.data = data }

    /// A provider of a file's contents, or nil when it cannot be read (Apple's `CGDataProvider(url:)`).
    public init?(url: CFURL) {
        guard let bytes = try? Data(contentsOf: url) else { return nil }
        data = bytes
    }

    /// A provider of a file's contents, or nil when it cannot be read (Apple's `CGDataProvider(filename:)`).
    public convenience init?(filename: String) { self.init(url: URL(fileURLWithPath: filename)) }
}

/// The number of bytes in `data` (Core Foundation's `CFDataGetLength`).
public func CFDataGetLength(_ data: CFData!) -> CFIndex { data?.count ?? 0 }

/// A pointer to `data`'s bytes (Core Foundation's `CFDataGetBytePtr`).
///
/// Valid while `data` — or, for a ``CGImage/dataProvider``'s bytes, the image — lives, as on Apple platforms.
/// `CFData` is `Data` here, which keeps byte strings of up to 14 bytes inline in the value; for those the bytes
/// are copied once into memory that is never freed, so that the pointer stays valid.
public func CFDataGetBytePtr(_ data: CFData!) -> UnsafePointer<UInt8>! {
    guard let data, !data.isEmpty else { return nil }
    return data.withUnsafeBytes { bytes -> UnsafePointer<UInt8> in
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard data.count <= 14 else { return base }
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: data.count)
        copy.initialize(from: base, count: data.count)
        return UnsafePointer(copy)
    }
}

extension CGImage {
    /// The image's bytes: rows of `bytesPerRow` bytes, R, G, B, A with straight alpha (``alphaInfo`` `.last`), or one
    /// grey byte per pixel. The bytes are the image's own, not a copy.
    public var dataProvider: CGDataProvider? {
        let storage = buffer
        let count = buffer.bytesPerRow() * height
        let bytes = buffer.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
        // The deallocator keeps the pixels alive as long as any copy of the bytes lives.
        let data = Data(bytesNoCopy: bytes, count: count, deallocator: .custom { _, _ in withExtendedLifetime(storage) {} })
        return CGDataProvider(data: data)
    }

    /// Where alpha is: `.last` (straight RGBA) or `.none` (grey).
    public var alphaInfo: CGImageAlphaInfo { buffer.format == .oneComponent8 ? .none : .last }
    /// The layout bits (the ``alphaInfo`` in the default byte order).
    public var bitmapInfo: CGBitmapInfo { CGBitmapInfo(rawValue: alphaInfo.rawValue) }
    /// The byte order (the default order).
    public var byteOrderInfo: CGImageByteOrderInfo { .orderDefault }
    /// Whether this is an image mask (never: masks here are grey images).
    public var isMask: Bool { false }
    /// Whether the image is interpolated when drawn at another size (always).
    public var shouldInterpolate: Bool { true }
    /// The rendering intent (informational: no colour management is done).
    public var renderingIntent: CGColorRenderingIntent { .defaultIntent }

    /// An image from bytes in memory, as Core Graphics' `CGImage(width:height:bitsPerComponent:bitsPerPixel:
    /// bytesPerRow:space:bitmapInfo:provider:decode:shouldInterpolate:intent:)`.
    ///
    /// Accepted: 8 bits per component; 8-bit grey; 24-bit RGB; 32-bit RGB with alpha (straight or premultiplied) or a
    /// skipped byte, first or last, default or 32-bit little-endian order. The pixels are copied. `decode` is ignored.
    /// - Returns: nil for another layout or when the provider holds fewer bytes than the rows need.
    public convenience init?(
        width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int, space: CGColorSpace,
        bitmapInfo: CGBitmapInfo, provider: CGDataProvider, decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool,
        intent: CGColorRenderingIntent
    ) {
        guard width > 0, height > 0, bitsPerComponent == 8, let source = provider.data,
              bitsPerPixel % 8 == 0, bytesPerRow >= width * bitsPerPixel / 8,
              bytesPerRow.multipliedReportingOverflow(by: height - 1).overflow == false,
              source.count >= bytesPerRow * (height - 1) + width * bitsPerPixel / 8,
              let unpack = Self.unpacker(bitsPerPixel: bitsPerPixel, space: space, info: bitmapInfo)
        else { return nil }
        let grey = bitsPerPixel == 8
        guard var out = try? PixelBuffer(width: width, height: height, format: grey ? .oneComponent8 : .rgba32) else { return nil }
        let stride = out.bytesPerRow(), bpp = bitsPerPixel / 8
        source.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                let s = src.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let d = dst.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for y in 0..<height {
                    for x in 0..<width { unpack(s + y * bytesPerRow + x * bpp, d + y * stride + x * (grey ? 1 : 4)) }
                }
            }
        }
        self.init(buffer: out)
    }

    /// A function that turns one source pixel into straight R, G, B, A bytes (or one grey byte).
    private static func unpacker(
        bitsPerPixel: Int, space: CGColorSpace, info: CGBitmapInfo
    ) -> ((UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Void)? {
        guard let alphaInfo = info.alphaInfo, info.byteOrder != nil, !info.contains(.floatComponents) else { return nil }
        switch (bitsPerPixel, space.model, alphaInfo) {
        case (8, .monochrome, .none): return { s, d in d[0] = s[0] }
        case (24, .rgb, .none): return { s, d in (d[0], d[1], d[2], d[3]) = (s[0], s[1], s[2], 255) }
        case (32, .rgb, _):
            guard let (r, g, b, a) = info.fourByteOffsets else { return nil }
            let hasAlpha = ![.noneSkipLast, .noneSkipFirst].contains(alphaInfo)
            let premultiplied = alphaInfo == .premultipliedLast || alphaInfo == .premultipliedFirst
            return { s, d in
                let alpha = hasAlpha ? s[a] : 255
                func straight(_ v: UInt8) -> UInt8 {
                    guard premultiplied, alpha < 255 else { return v }
                    return alpha == 0 ? 0 : UInt8(min(255, (Int(v) * 255 + Int(alpha) / 2) / Int(alpha)))
                }
                (d[0], d[1], d[2], d[3]) = (straight(s[r]), straight(s[g]), straight(s[b]), alpha)
            }
        default: return nil
        }
    }
}

/// Reads a ``CGImage``'s pixels as premultiplied colours at fractional positions, for drawing it into a context.
struct ImageSampler {
    let image: CGImage
    let nearest: Bool
    /// Source pixels per device pixel along each axis; above 1 the sampler averages the footprint.
    let footprintX: Double, footprintY: Double
    private let base: UnsafePointer<UInt8>
    private let stride: Int
    private let grey: Bool

    init(image: CGImage, quality: CGInterpolationQuality, footprintX: CGFloat, footprintY: CGFloat) {
        self.image = image
        nearest = quality == .none
        (self.footprintX, self.footprintY) = (Double(footprintX), Double(footprintY))
        // The image is immutable and kept alive by `self.image` for as long as the sampler is used.
        base = image.buffer.withUnsafeBytes { $0.baseAddress!.assumingMemoryBound(to: UInt8.self) }
        stride = image.buffer.bytesPerRow()
        grey = image.buffer.format == .oneComponent8
    }

    @inline(__always)
    private func pixel(_ x: Int, _ y: Int) -> SIMD4<Float> {
        let p = base + y * stride + x * (grey ? 1 : 4)
        if grey { let v = Float(p[0]) / 255; return SIMD4(v, v, v, 1) }
        let a = Float(p[3]) / 255
        return SIMD4(Float(p[0]) / 255 * a, Float(p[1]) / 255 * a, Float(p[2]) / 255 * a, a)
    }

    /// The colour at (`u`, `v`) in pixels from the image's top-left corner.
    func sample(u: Double, v: Double) -> PremultipliedColor {
        let w = image.width, h = image.height
        var c: SIMD4<Float>
        if nearest {
            c = pixel(min(w - 1, Int(u)), min(h - 1, Int(v)))
        } else if footprintX > 1.5 || footprintY > 1.5 {
            // Area average over the footprint, at most 16 samples per axis.
            let fx = max(1, footprintX), fy = max(1, footprintY)
            let nx = min(16, Int(fx.rounded(.up))), ny = min(16, Int(fy.rounded(.up)))
            c = .zero
            for j in 0..<ny {
                let sy = min(h - 1, max(0, Int(v - fy / 2 + (Double(j) + 0.5) * fy / Double(ny))))
                for i in 0..<nx {
                    let sx = min(w - 1, max(0, Int(u - fx / 2 + (Double(i) + 0.5) * fx / Double(nx))))
                    c += pixel(sx, sy)
                }
            }
            c /= Float(nx * ny)
        } else {
            let x = u - 0.5, y = v - 0.5
            let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
            let tx = Float(x - Double(x0)), ty = Float(y - Double(y0))
            func at(_ i: Int, _ j: Int) -> SIMD4<Float> { pixel(min(w - 1, max(0, i)), min(h - 1, max(0, j))) }
            let top = at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx
            let bottom = at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx
            c = top * (1 - ty) + bottom * ty
        }
        return PremultipliedColor(r: c.x, g: c.y, b: c.z, a: c.w)
    }
}

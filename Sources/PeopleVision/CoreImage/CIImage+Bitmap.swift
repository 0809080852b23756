import Foundation
import PVImaging
import PVRender

extension CIImage {
    /// An image of raw pixels in memory, as Core Image's `CIImage(bitmapData:bytesPerRow:size:format:colorSpace:)`.
    ///
    /// Rows run from the top of the picture down, `bytesPerRow` apart; four-channel pixels are premultiplied, as
    /// Core Image assumes. The pixels are copied now. 8-bit four-channel formats and the luminance formats keep their
    /// precision; `RGBA16`, `RGBAh`/`RGBAf` and the red-only and alpha-only formats are stored at 8 bits per channel. A red
    /// format reads as `(r, 0, 0, 1)` and an alpha format as black with that alpha, as on Apple platforms.
    /// `colorSpace` is accepted and ignored (no colour management is done).
    ///
    /// Core Image's initializer cannot fail; here a size that is not whole and positive, rows shorter than the width,
    /// data too short for the rows, or an unknown format give an image with no pixels (``empty()``'s).
    public convenience init(bitmapData data: Data, bytesPerRow: Int, size: CGSize, format: CIFormat, colorSpace: CGColorSpace?) {
        guard let pixels = Self.pixels(data, bytesPerRow: bytesPerRow, size: size, format: format) else {
            self.init(node: .empty, extent: .null)
            return
        }
        self.init(pixels: pixels, premultiplied: true)
    }

    /// An image of a Core Video image buffer, as Core Image's `CIImage(cvImageBuffer:)`: the same as
    /// ``init(cvPixelBuffer:)`` (every image buffer here is a pixel buffer).
    public convenience init(cvImageBuffer imageBuffer: CVImageBuffer) {
        self.init(cvPixelBuffer: imageBuffer, options: nil)
    }

    /// As ``init(cvImageBuffer:)``; the options are those of ``init(cvPixelBuffer:options:)``.
    public convenience init(cvImageBuffer imageBuffer: CVImageBuffer, options: [CIImageOption: Any]?) {
        self.init(cvPixelBuffer: imageBuffer, options: options)
    }

    /// The pixels of a bitmap, or nil when its description does not fit the data.
    static func pixels(_ data: Data, bytesPerRow: Int, size: CGSize, format: CIFormat) -> PixelBuffer? {
        guard size.width.isFinite, size.height.isFinite, size.width >= 1, size.height >= 1,
            size.width == size.width.rounded(), size.height == size.height.rounded(), size.width <= 65_535,
            size.height <= 65_535
        else { return nil }
        let width = Int(size.width), height = Int(size.height)
        let (target, sourceBytes): (PixelFormat, Int)
        switch format {
        case .RGBA8: (target, sourceBytes) = (.rgba32, 4)
        case .BGRA8: (target, sourceBytes) = (.bgra32, 4)
        case .ARGB8: (target, sourceBytes) = (.argb32, 4)
        case .ABGR8, .R8, .A8: (target, sourceBytes) = (.rgba32, format == .ABGR8 ? 4 : 1)
        case .RGBAh, .RGBA16: (target, sourceBytes) = (.rgba32, 8)
        case .RGBAf: (target, sourceBytes) = (.rgba32, 16)
        case .L8: (target, sourceBytes) = (.oneComponent8, 1)
        case .Lh: (target, sourceBytes) = (.oneComponent16Half, 2)
        case .Lf: (target, sourceBytes) = (.oneComponent32Float, 4)
        case .Rh: (target, sourceBytes) = (.rgba32, 2)
        case .Rf: (target, sourceBytes) = (.rgba32, 4)
        default: return nil
        }
        let rowBytes = width * sourceBytes
        guard bytesPerRow >= rowBytes, data.count >= bytesPerRow * (height - 1) + rowBytes,
            var pixels = try? PixelBuffer(width: width, height: height, format: target)
        else { return nil }
        let targetRow = pixels.bytesPerRow()
        data.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            pixels.withUnsafeMutableBytes(plane: 0) { out in
                for y in 0..<height {
                    let src = UnsafeRawBufferPointer(rebasing: source[(y * bytesPerRow)..<(y * bytesPerRow + rowBytes)])
                    let dst = out.baseAddress! + y * targetRow
                    if target.bytesPerPixel == sourceBytes && format != .ABGR8 {
                        dst.copyMemory(from: src.baseAddress!, byteCount: rowBytes)
                    } else {
                        for x in 0..<width { Self.convert(src, x, format, dst + x * 4) }
                    }
                }
            }
        }
        return pixels
    }

    /// Writes pixel `x` of a row of `format` as premultiplied RGBA8.
    private static func convert(_ row: UnsafeRawBufferPointer, _ x: Int, _ format: CIFormat, _ out: UnsafeMutableRawPointer) {
        func byte(_ v: Float) -> UInt8 { UInt8(max(0, min(255, (v * 255).rounded()))) }
        func half(_ i: Int) -> Float { Float(row.loadUnaligned(fromByteOffset: i * 2, as: Float16.self)) }
        func float(_ i: Int) -> Float { row.loadUnaligned(fromByteOffset: i * 4, as: Float.self) }
        func short(_ i: Int) -> UInt8 { UInt8((UInt32(row.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)) + 128) / 257) }
        let rgba: (UInt8, UInt8, UInt8, UInt8)
        switch format {
        case .ABGR8: rgba = (row[x * 4 + 3], row[x * 4 + 2], row[x * 4 + 1], row[x * 4])
        case .R8: rgba = (row[x], 0, 0, 255)
        case .A8: rgba = (0, 0, 0, row[x])
        case .Rh: rgba = (byte(half(x)), 0, 0, 255)
        case .Rf: rgba = (byte(float(x)), 0, 0, 255)
        case .RGBA16: rgba = (short(x * 4), short(x * 4 + 1), short(x * 4 + 2), short(x * 4 + 3))
        case .RGBAh: rgba = (byte(half(x * 4)), byte(half(x * 4 + 1)), byte(half(x * 4 + 2)), byte(half(x * 4 + 3)))
        default: rgba = (byte(float(x * 4)), byte(float(x * 4 + 1)), byte(float(x * 4 + 2)), byte(float(x * 4 + 3)))
        }
        out.storeBytes(of: rgba.0, toByteOffset: 0, as: UInt8.self)
        out.storeBytes(of: rgba.1, toByteOffset: 1, as: UInt8.self)
        out.storeBytes(of: rgba.2, toByteOffset: 2, as: UInt8.self)
        out.storeBytes(of: rgba.3, toByteOffset: 3, as: UInt8.self)
    }
}

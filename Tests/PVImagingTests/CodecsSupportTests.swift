import Foundation
import PVTestSupport
import Testing

@testable import PVImaging

/// Image generators, comparisons and tiny container builders for the codec tests. Everything
/// here is generated; nothing is read from disk except the installed sample images.
enum CodecFixtures {
    /// A smooth, asymmetric colour pattern (every corner differs), so lossy codecs keep it well
    /// and a wrong orientation shows.
    static func color(width: Int, height: Int, format: PixelFormat = .rgba32, alpha: Bool = false) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: format)
        let row = buffer.bytesPerRow(), bpp = format.bytesPerPixel
        buffer.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let fx = Double(x) / Double(max(width - 1, 1)), fy = Double(y) / Double(max(height - 1, 1))
                    let r = UInt8(20 + 215 * fx)
                    let g = UInt8(30 + 200 * fy)
                    let b = UInt8(128 + 100 * sin(3 * fx + 2 * fy) * 0.9)
                    let a: UInt8 = alpha ? UInt8(255 - Int(200 * fx * fy)) : 255
                    let p = y * row + x * bpp
                    switch format {
                    case .rgba32: (bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]) = (r, g, b, a)
                    case .bgra32: (bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]) = (b, g, r, a)
                    case .argb32: (bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]) = (a, r, g, b)
                    case .rgb24: (bytes[p], bytes[p + 1], bytes[p + 2]) = (r, g, b)
                    default: break
                    }
                }
            }
        }
        return buffer
    }

    /// A smooth grey pattern with a bright blob off-centre.
    static func gray(width: Int, height: Int, seed: Int = 0) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: .oneComponent8)
        let row = buffer.bytesPerRow()
        buffer.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                    let blob = exp(-(pow(fx - 0.3 - 0.05 * Double(seed % 5), 2) + pow(fy - 0.35, 2)) * 12)
                    bytes[y * row + x] = UInt8(min(255, 40 + 120 * fx + 90 * blob))
                }
            }
        }
        return buffer
    }

    /// Random bytes in every pixel (for exact lossless round trips).
    static func noise(width: Int, height: Int, format: PixelFormat, seed: UInt64) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: format)
        var random = SplitMix64(seed: seed)
        let row = buffer.bytesPerRow(), used = width * format.bytesPerPixel
        buffer.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<used { bytes[y * row + x] = UInt8(truncatingIfNeeded: random.next()) }
            }
        }
        return buffer
    }

    /// One-component float samples in 0…1 (multiples of 1/65535 so 16-bit PNG is exact).
    static func unitFloats(width: Int, height: Int) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: .oneComponent32Float)
        let row = buffer.bytesPerRow()
        buffer.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let code = (x * 7919 + y * 104_729) % 65536
                    bytes.storeBytes(of: Float(code) / 65535, toByteOffset: y * row + 4 * x, as: Float.self)
                }
            }
        }
        return buffer
    }

    /// The pixel's channels as integers (floats scaled by 65535).
    static func pixel(_ buffer: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        let bpp = buffer.format.bytesPerPixel, offset = y * buffer.bytesPerRow() + x * bpp
        return buffer.withUnsafeBytes { bytes in
            switch buffer.format {
            case .oneComponent32Float:
                return [Int((bytes.load(fromByteOffset: offset, as: Float.self) * 65535).rounded())]
            default: return (0..<bpp).map { Int(bytes[offset + $0]) }
            }
        }
    }

    /// The image as RGB(A) rows of Int, whatever its 8-bit format (grey is replicated).
    static func rgba(_ buffer: PixelBuffer) -> [[Int]] {
        var out: [[Int]] = []
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                let p = pixel(buffer, x, y)
                switch buffer.format {
                case .oneComponent8: out.append([p[0], p[0], p[0], 255])
                case .rgb24: out.append(p + [255])
                case .bgra32: out.append([p[2], p[1], p[0], p[3]])
                case .argb32: out.append([p[1], p[2], p[3], p[0]])
                default: out.append(p)
                }
            }
        }
        return out
    }

    /// The pixel's bytes, whatever the format.
    static func rawPixel(_ buffer: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let bpp = buffer.format.bytesPerPixel, offset = y * buffer.bytesPerRow() + x * bpp
        return buffer.withUnsafeBytes { Array($0[offset..<offset + bpp]) }
    }

    /// Whether two buffers hold the same pixel bytes (padding ignored).
    static func identical(_ a: PixelBuffer, _ b: PixelBuffer) -> Bool {
        guard a.width == b.width, a.height == b.height, a.format == b.format else { return false }
        for y in 0..<a.height {
            for x in 0..<a.width where rawPixel(a, x, y) != rawPixel(b, x, y) { return false }
        }
        return true
    }

    /// PSNR in dB over the first `channels` channels of two 8-bit images of equal size, compared as RGBA.
    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer, channels: Int = 3) -> Double {
        precondition(a.width == b.width && a.height == b.height, "sizes differ: \(a.width)×\(a.height) vs \(b.width)×\(b.height)")
        let x = rgba(a), y = rgba(b)
        var sum = 0.0
        for (p, q) in zip(x, y) {
            for c in 0..<channels { sum += pow(Double(p[c] - q[c]), 2) }
        }
        let mse = sum / Double(x.count * channels)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Largest absolute difference between two one-component images (8-bit or float, as 0…255).
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        func value(_ buffer: PixelBuffer, _ x: Int, _ y: Int) -> Double {
            let p = pixel(buffer, x, y)[0]
            return buffer.format == .oneComponent32Float ? Double(p) / 65535 * 255 : Double(p)
        }
        var worst = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width { worst = max(worst, abs(value(a, x, y) - value(b, x, y))) }
        }
        return worst
    }

    // MARK: Containers

    /// A minimal TIFF/EXIF structure whose IFD0 holds only the orientation tag.
    static func exifTIFF(orientation: Int, bigEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8 & 255), UInt8(v & 255)] : [UInt8(v & 255), UInt8(v >> 8 & 255)]
        }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        let header: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        return header + u16(42) + u32(8)  // byte order, magic, IFD0 at offset 8
            + u16(1)  // one entry
            + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)  // Orientation, SHORT, 1 value
            + u32(0)  // no next IFD
    }

    /// `jpeg` with an APP1 `Exif\0\0` segment holding `tiff` inserted right after SOI.
    static func jpegWithEXIF(_ jpeg: Data, tiff: [UInt8]) -> Data {
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 255)] + payload
        return Data(jpeg.prefix(2) + segment + jpeg.dropFirst(2))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

    /// A PNG chunk with its CRC.
    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(data.count) + body + bigEndian32(Int(crc32(body)))
    }

    /// `png` with an eXIf chunk inserted after IHDR (or before IEND when `afterImage`).
    static func pngWithEXIF(_ png: Data, tiff: [UInt8], afterImage: Bool = false) -> Data {
        let bytes = [UInt8](png)
        let at = afterImage ? bytes.count - 12 : 33  // IEND is the last 12 bytes; IHDR ends at 33
        return Data(bytes[..<at] + pngChunk("eXIf", tiff) + bytes[at...])
    }

    /// `png` with IHDR's width and height replaced (CRC fixed).
    static func pngWithSize(_ png: Data, width: Int, height: Int) -> Data {
        var bytes = [UInt8](png)
        bytes.replaceSubrange(16..<24, with: bigEndian32(width) + bigEndian32(height))
        bytes.replaceSubrange(29..<33, with: bigEndian32(Int(crc32(Array(bytes[12..<29])))))
        return Data(bytes)
    }

    static func littleEndian(_ v: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A simple-format WebP (one VP8/VP8L chunk) rewritten as an extended file with an EXIF chunk.
    static func webpWithEXIF(_ webp: Data, tiff: [UInt8], width: Int, height: Int) -> Data {
        let bytes = [UInt8](webp)
        let image = Array(bytes[12...])  // the VP8/VP8L chunk
        var vp8x = Array("VP8X".utf8) + littleEndian(10, 4)
        vp8x += [0x08, 0, 0, 0] + littleEndian(width - 1, 3) + littleEndian(height - 1, 3)  // EXIF flag
        var exif = Array("EXIF".utf8) + littleEndian(tiff.count, 4) + tiff
        if tiff.count % 2 == 1 { exif.append(0) }
        let body = Array("WEBP".utf8) + vp8x + image + exif
        return Data(Array("RIFF".utf8) + littleEndian(body.count, 4) + body)
    }

    /// A zlib stream of "stored" (uncompressed) deflate blocks: enough to hand-make PNGs.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out += [final] + littleEndian(count, 2) + littleEndian(~count & 0xFFFF, 2) + data[offset..<offset + count]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian32(Int(b << 16 | a))
    }

    /// A PNG written by hand, for colour types, bit depths and interlacing our encoder never
    /// writes. `scanlines` are packed rows without filter bytes (for Adam7: every pass's rows in
    /// order, see ``adam7``).
    static func handmadePNG(
        width: Int, height: Int, bitDepth: Int, colorType: Int, scanlines: [[UInt8]], palette: [UInt8]? = nil,
        transparency: [UInt8]? = nil, interlaced: Bool = false
    ) -> Data {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += pngChunk("IHDR", bigEndian32(width) + bigEndian32(height) + [UInt8(bitDepth), UInt8(colorType), 0, 0, interlaced ? 1 : 0])
        if let palette { png += pngChunk("PLTE", palette) }
        if let transparency { png += pngChunk("tRNS", transparency) }
        png += pngChunk("IDAT", zlibStored(scanlines.flatMap { [0] + $0 }))
        png += pngChunk("IEND", [])
        return Data(png)
    }

    /// The Adam7 pass rows of an image given as per-pixel byte arrays (row-major).
    static func adam7(_ pixels: [[UInt8]], width: Int, height: Int) -> [[UInt8]] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var rows: [[UInt8]] = []
        for (x0, y0, dx, dy) in passes where x0 < width && y0 < height {
            for y in stride(from: y0, to: height, by: dy) {
                rows.append(stride(from: x0, to: width, by: dx).flatMap { pixels[y * width + $0] })
            }
        }
        return rows
    }

    /// A scratch directory removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-codecs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Asserts `body` throws an ``ImagingError`` with `code` (and returns the error).
    @discardableResult
    static func expectError<T>(
        _ code: ImagingError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> T
    ) -> ImagingError? {
        do {
            _ = try body()
            Issue.record("expected \(code), got success. \(comment?.rawValue ?? "")", sourceLocation: sourceLocation)
        } catch let error as ImagingError {
            #expect(error.code == code, "\(comment?.rawValue ?? ""): \(error)", sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("expected ImagingError \(code), got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }
}

import Foundation
import PVImaging
import Testing

import PeopleVision

/// Helpers shared by the Core Image / Core Graphics tests.
enum CITest {
    /// A pixel buffer whose pixel (x, y) — top-left origin, as stored — has the bytes `fill(x, y)`
    /// in the buffer's own byte order (1 byte for `L008`, 4 for the 32-bit formats).
    static func buffer(
        _ width: Int, _ height: Int, _ format: OSType, _ fill: (Int, Int) -> [UInt8]
    ) -> CVPixelBuffer {
        var out: CVPixelBuffer?
        let status = CVPixelBufferCreate(nil, width, height, format, nil, &out)
        precondition(status == kCVReturnSuccess)
        let buffer = out!
        CVPixelBufferLockBaseAddress(buffer, [])
        let base = CVPixelBufferGetBaseAddress(buffer)!
        let row = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0..<height {
            for x in 0..<width {
                let bytes = fill(x, y)
                for (i, b) in bytes.enumerated() { base.storeBytes(of: b, toByteOffset: y * row + x * bytes.count + i, as: UInt8.self) }
            }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])
        return buffer
    }

    /// A one-component float or half buffer with values `fill(x, y)`.
    static func floatBuffer(_ width: Int, _ height: Int, half: Bool, _ fill: (Int, Int) -> Float) -> CVPixelBuffer {
        var out: CVPixelBuffer?
        let format = half ? kCVPixelFormatType_OneComponent16Half : kCVPixelFormatType_OneComponent32Float
        precondition(CVPixelBufferCreate(nil, width, height, format, nil, &out) == kCVReturnSuccess)
        let buffer = out!
        let base = CVPixelBufferGetBaseAddress(buffer)!
        let row = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0..<height {
            for x in 0..<width {
                if half {
                    base.storeBytes(of: Float16(fill(x, y)), toByteOffset: y * row + 2 * x, as: Float16.self)
                } else {
                    base.storeBytes(of: fill(x, y), toByteOffset: y * row + 4 * x, as: Float.self)
                }
            }
        }
        return buffer
    }

    /// The RGBA8 (premultiplied) pixels of `rect` of `image`, top row first: `[row][column]`.
    static func rgba(_ image: CIImage, _ rect: CGRect? = nil, context: CIContext = CIContext()) -> [[SIMD4<UInt8>]] {
        let r = (rect ?? image.extent).integral
        let w = Int(r.width), h = Int(r.height)
        var bytes = [UInt8](repeating: 0, count: w * h * 4)
        bytes.withUnsafeMutableBytes { raw in
            context.render(image, toBitmap: raw.baseAddress!, rowBytes: w * 4, bounds: r, format: .RGBA8, colorSpace: nil)
        }
        return (0..<h).map { y in
            (0..<w).map { x in
                let i = (y * w + x) * 4
                return SIMD4(bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
            }
        }
    }

    /// The float RGBA (premultiplied) pixels of `rect`, top row first.
    static func rgbaFloat(_ image: CIImage, _ rect: CGRect) -> [[SIMD4<Float>]] {
        let w = Int(rect.width), h = Int(rect.height)
        var values = [SIMD4<Float>](repeating: .zero, count: w * h)
        values.withUnsafeMutableBytes { raw in
            CIContext().render(image, toBitmap: raw.baseAddress!, rowBytes: w * 16, bounds: rect, format: .RGBAf, colorSpace: nil)
        }
        return (0..<h).map { y in Array(values[(y * w)..<(y * w + w)]) }
    }

    /// Pixel (x, y), top-left origin, of a 4-channel pixel buffer in the buffer's byte order.
    static func bytes(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> SIMD4<UInt8> {
        let base = CVPixelBufferGetBaseAddress(buffer)!
        let row = CVPixelBufferGetBytesPerRow(buffer)
        return base.loadUnaligned(fromByteOffset: y * row + 4 * x, as: SIMD4<UInt8>.self)
    }

    /// Byte (x, y) of a one-component 8-bit pixel buffer.
    static func byte(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> UInt8 {
        let base = CVPixelBufferGetBaseAddress(buffer)!
        return base.load(fromByteOffset: y * CVPixelBufferGetBytesPerRow(buffer) + x, as: UInt8.self)
    }

    /// A deterministic pseudo-random byte for (x, y, salt).
    static func noise(_ x: Int, _ y: Int, _ salt: Int) -> UInt8 {
        var z = UInt64(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663 ^ salt &* 83_492_791) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt8(truncatingIfNeeded: z ^ (z >> 31))
    }

    /// A fresh temporary directory for file tests.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-ci-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `jpeg` with an APP1 EXIF segment whose only tag is Orientation = `orientation` (little endian).
    static func jpegWithOrientation(_ jpeg: Data, _ orientation: Int) -> Data {
        let tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation), 0, 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 255)] + payload
        return Data(jpeg.prefix(2) + segment + jpeg.dropFirst(2))
    }

    static let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
    static let gray = CGColorSpace(name: CGColorSpace.genericGrayGamma2_2)!

    /// Largest absolute channel difference.
    static func maxDifference(_ a: SIMD4<UInt8>, _ b: SIMD4<UInt8>) -> Int {
        (0..<4).map { abs(Int(a[$0]) - Int(b[$0])) }.max()!
    }
}

import Foundation
import PVImaging

extension CGImage {
    /// The colour space: device grey for grey images, sRGB otherwise (Apple's `CGImage.colorSpace`).
    public var colorSpace: CGColorSpace? {
        buffer.format == .oneComponent8 ? CGColorSpaceCreateDeviceGray() : CGColorSpace(name: CGColorSpace.sRGB)
    }

    /// A copy of the pixels inside `rect`, as Core Graphics' `CGImage.cropping(to:)`.
    ///
    /// `rect` is in pixels with the origin at the image's **top-left** (Core Graphics' image
    /// space for cropping); it is made integral and intersected with the image's bounds.
    /// - Returns: nil when the intersection is empty.
    /// - Complexity: O(cropped pixels); Apple's version shares the pixels instead of copying.
    public func cropping(to rect: CGRect) -> CGImage? {
        guard !rect.isNull, !rect.isInfinite else { return rect.isInfinite ? self : nil }
        let clipped = rect.standardized.integral.intersection(CGRect(x: 0, y: 0, width: width, height: height))
        guard !clipped.isNull, clipped.width >= 1, clipped.height >= 1 else { return nil }
        let x0 = Int(clipped.minX), y0 = Int(clipped.minY), w = Int(clipped.width), h = Int(clipped.height)
        if x0 == 0, y0 == 0, w == width, h == height { return self }
        guard var out = try? PixelBuffer(width: w, height: h, format: buffer.format) else { return nil }
        let bpp = buffer.format.bytesPerPixel, sourceRow = buffer.bytesPerRow(), destinationRow = out.bytesPerRow()
        buffer.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { destination in
                for y in 0..<h {
                    (destination.baseAddress! + y * destinationRow).copyMemory(
                        from: source.baseAddress! + (y0 + y) * sourceRow + x0 * bpp, byteCount: w * bpp)
                }
            }
        }
        return CGImage(buffer: out)
    }
}

extension CGImage {
    /// The pixel at column `x`, row `y` (top-left origin) as straight-alpha R, G, B, A bytes
    /// (grey images give R = G = B = value, A = 255). For tests and tools.
    package func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)×\(height)")
        return buffer.withUnsafeBytes { bytes in
            let row = y * buffer.bytesPerRow()
            if buffer.format == .oneComponent8 {
                let v = bytes[row + x]
                return (v, v, v, 255)
            }
            let p = row + 4 * x
            return (bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3])
        }
    }
}

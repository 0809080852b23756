import Foundation
import PVImaging

/// EXIF orientation of an image, as ImageIO's `CGImagePropertyOrientation` (raw values 1–8).
public enum CGImagePropertyOrientation: UInt32, Sendable, CaseIterable {
    case up = 1, upMirrored = 2, down = 3, downMirrored = 4, leftMirrored = 5, right = 6, rightMirrored = 7, left = 8

    /// The same orientation in PVImaging's terms.
    package var imaging: Orientation { Orientation(rawValue: rawValue)! }
}

/// An immutable bitmap image, as Core Graphics' `CGImage` (8-bit RGBA or grey pixels in memory).
///
/// RGBA pixels hold **straight** (non-premultiplied) alpha, as decoded files do. Apple's
/// `CIContext.createCGImage` returns premultiplied pixels; the two differ only where alpha < 1.
public final class CGImage: @unchecked Sendable {
    /// The pixels: `.rgba32` (straight alpha) or `.oneComponent8`. Immutable after creation.
    package let buffer: PixelBuffer

    /// Wraps pixels (no copy).
    package init(buffer: PixelBuffer) { self.buffer = buffer }

    /// Width in pixels.
    public var width: Int { buffer.width }
    /// Height in pixels.
    public var height: Int { buffer.height }
    /// Bits per colour component (8).
    public var bitsPerComponent: Int { 8 }
    /// Bits per pixel (32 for RGBA, 8 for grey).
    public var bitsPerPixel: Int { buffer.format == .oneComponent8 ? 8 : 32 }
    /// Bytes from one row to the next.
    public var bytesPerRow: Int { buffer.bytesPerRow() }
}

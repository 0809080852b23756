/// How a stored image must be transformed to appear upright: the eight EXIF orientations.
///
/// Raw values are the EXIF `Orientation` tag (0x0112) and Core Graphics'
/// `CGImagePropertyOrientation`, so the public layer maps them one to one. Each case names where
/// the stored image's top row ends up, as in `CGImagePropertyOrientation`:
///
/// | case | EXIF | to display the stored pixels |
/// |---|---|---|
/// | ``up`` | 1 | as stored |
/// | ``upMirrored`` | 2 | flip left–right |
/// | ``down`` | 3 | rotate 180° |
/// | ``downMirrored`` | 4 | flip top–bottom |
/// | ``leftMirrored`` | 5 | transpose (mirror across the top-left–bottom-right diagonal) |
/// | ``right`` | 6 | rotate 90° clockwise |
/// | ``rightMirrored`` | 7 | transverse (mirror across the top-right–bottom-left diagonal) |
/// | ``left`` | 8 | rotate 90° counter-clockwise |
///
/// ```swift
/// let upright = try stored.applying(.right)          // what a viewer shows for EXIF 6
/// let back = try upright.applying(Orientation.right.inverse)  // the stored pixels again
/// ```
import PVCore
public enum Orientation: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// The orientation for an EXIF tag value, or nil when the value is outside 1…8.
    public init?(exifValue: Int) {
        guard (1...8).contains(exifValue) else { return nil }
        self.init(rawValue: UInt32(exifValue))
    }

    /// Whether applying this orientation swaps width and height (cases 5–8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The orientation that undoes this one: `image.applying(o).applying(o.inverse) == image`.
    /// Only the two quarter turns differ from their inverse (``right`` ↔ ``left``).
    public var inverse: Orientation {
        switch self {
        case .right: return .left
        case .left: return .right
        default: return self
        }
    }

    /// The size of a `width × height` stored image after applying this orientation.
    public func orientedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }

    /// Where the stored pixel `(x, y)` of a `width × height` image lands after applying this
    /// orientation (top-left origin, pixel indices).
    public func orientedPoint(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (width - 1 - x, y)
        case .down: return (width - 1 - x, height - 1 - y)
        case .downMirrored: return (x, height - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (height - 1 - y, x)
        case .rightMirrored: return (height - 1 - y, width - 1 - x)
        case .left: return (y, width - 1 - x)
        }
    }

    public var description: String {
        switch self {
        case .up: return "up"
        case .upMirrored: return "upMirrored"
        case .down: return "down"
        case .downMirrored: return "downMirrored"
        case .leftMirrored: return "leftMirrored"
        case .right: return "right"
        case .rightMirrored: return "rightMirrored"
        case .left: return "left"
        }
    }

    /// For output pixel (dx, dy) the source byte is `origin + dx·stepX + dy·stepY`, with
    /// `bpp` bytes per pixel and `row` bytes per source row of a `width × height` source.
    fileprivate func sourceWalk(width: Int, height: Int, bpp: Int, row: Int)
        -> (origin: Int, stepX: Int, stepY: Int)
    {
        let lastX = (width - 1) * bpp
        let lastY = (height - 1) * row
        switch self {
        case .up: return (0, bpp, row)
        case .upMirrored: return (lastX, -bpp, row)
        case .down: return (lastX + lastY, -bpp, -row)
        case .downMirrored: return (lastY, bpp, -row)
        case .leftMirrored: return (0, row, bpp)
        case .right: return (lastY, -row, bpp)
        case .rightMirrored: return (lastX + lastY, -row, -bpp)
        case .left: return (lastX, row, -bpp)
        }
    }
}

extension PixelBuffer {
    /// Returns the pixels transformed by `orientation`, for example the upright image of a photo
    /// whose EXIF orientation is `orientation`. Undo with `orientation.inverse`.
    ///
    /// Works for every single-plane format (the pixel bytes are moved, never reinterpreted).
    ///
    /// - Parameter orientation: The transform to apply; ``Orientation/up`` returns `self` unchanged.
    /// - Returns: A new buffer, with width and height swapped for orientations 5–8.
    /// - Throws: ``ImagingError`` `.unsupportedPixelFormat` for the bi-planar YUV formats.
    /// - Complexity: O(width × height); quarter turns walk 64 × 64 tiles to stay cache-friendly.
    public func applying(_ orientation: Orientation) throws -> PixelBuffer {
        guard format.planeCount == 1 else {
            throw ImagingError(.unsupportedPixelFormat, "cannot reorient a bi-planar \(format) buffer; convert it first")
        }
        if orientation == .up { return self }
        let size = orientation.orientedSize(width: width, height: height)
        var output = try PixelBuffer(
            width: size.width, height: size.height, format: format,
            limits: ImageLimits(maximumPixelCount: Int.max, maximumSide: Int.max))
        let bpp = format.bytesPerPixel
        let walk = orientation.sourceWalk(width: width, height: height, bpp: bpp, row: bytesPerRow())
        let destinationRow = output.bytesPerRow()
        let tile = orientation.swapsDimensions ? 64 : Swift.max(size.width, 1)
        withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                let copy = OrientationCopy(
                    source: source.baseAddress!, destination: destination.baseAddress!, walk: walk,
                    destinationRow: destinationRow, width: size.width, height: size.height, tile: tile)
                switch bpp {
                case 1: copy.run(UInt8.self)
                case 2: copy.run(UInt16.self)
                case 3: copy.run((UInt8, UInt8, UInt8).self)
                case 4: copy.run(UInt32.self)
                case 8: copy.run(UInt64.self)
                default: copy.runBytes(bpp)
                }
            }
        }
        return output
    }
}

/// The pixel-moving loop of ``PixelBuffer/applying(_:)``, generic over the pixel's size.
private struct OrientationCopy {
    let source: UnsafeRawPointer
    let destination: UnsafeMutableRawPointer
    let walk: (origin: Int, stepX: Int, stepY: Int)
    let destinationRow: Int
    let width: Int
    let height: Int
    let tile: Int

    func run<Pixel: BitwiseCopyable>(_: Pixel.Type) {
        let size = MemoryLayout<Pixel>.size
        for tileY in stride(from: 0, to: height, by: tile) {
            for tileX in stride(from: 0, to: width, by: tile) {
                let endX = Swift.min(tileX + tile, width)
                for y in tileY..<Swift.min(tileY + tile, height) {
                    var from = walk.origin + tileX * walk.stepX + y * walk.stepY
                    var to = y * destinationRow + tileX * size
                    for _ in tileX..<endX {
                        destination.storeBytes(of: source.loadUnaligned(fromByteOffset: from, as: Pixel.self),
                                               toByteOffset: to, as: Pixel.self)
                        from += walk.stepX
                        to += size
                    }
                }
            }
        }
    }

    func runBytes(_ size: Int) {
        for y in 0..<height {
            for x in 0..<width {
                (destination + y * destinationRow + x * size)
                    .copyMemory(from: source + (walk.origin + x * walk.stepX + y * walk.stepY), byteCount: size)
            }
        }
    }
}

import Foundation

/// Where an image's origin lies, as Vision's `CoordinateOrigin` (iOS 18): Vision's own coordinates use
/// ``lowerLeft``; Core Graphics drawing contexts on Apple platforms do too, UIKit-style views ``upperLeft``.
public enum CoordinateOrigin: Sendable, Hashable, Codable {
    /// y grows upward from the bottom edge (Vision's normalized coordinates).
    case lowerLeft
    /// y grows downward from the top edge (pixel rows).
    case upperLeft
}

/// A point in normalized image coordinates (0…1 on both axes, lower-left origin), as Vision's `NormalizedPoint`.
///
/// ```swift
/// let p = NormalizedPoint(x: 0.25, y: 0.75)
/// p.toImageCoordinates(CGSize(width: 400, height: 200), origin: .upperLeft)   // (100, 50)
/// ```
public struct NormalizedPoint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The point as a `CGPoint` in normalized coordinates.
    public let cgPoint: CGPoint

    /// A point at normalized `(x, y)`.
    public init(x: CGFloat, y: CGFloat) { cgPoint = CGPoint(x: x, y: y) }

    /// A point from a normalized `CGPoint`.
    public init(normalizedPoint: CGPoint) { cgPoint = normalizedPoint }

    /// The normalized point of a pixel position (lower-left origin) in an image of `imageSize`.
    public init(imagePoint: CGPoint, in imageSize: CGSize) {
        cgPoint = CGPoint(x: imagePoint.x / imageSize.width, y: imagePoint.y / imageSize.height)
    }

    /// The point of a pixel position (lower-left origin) of an image of `imageSize`, normalized to
    /// `regionOfInterest` (itself normalized to the image).
    public init(imagePoint: CGPoint, in imageSize: CGSize, normalizedTo regionOfInterest: NormalizedRect) {
        let r = regionOfInterest.toImageCoordinates(imageSize)
        cgPoint = CGPoint(x: (imagePoint.x - r.minX) / r.width, y: (imagePoint.y - r.minY) / r.height)
    }

    /// The normalized x coordinate.
    public var x: CGFloat { cgPoint.x }
    /// The normalized y coordinate (from the bottom).
    public var y: CGFloat { cgPoint.y }
    /// The origin.
    public static var zero: NormalizedPoint { NormalizedPoint(x: 0, y: 0) }

    /// The point in pixels of an image of `imageSize`, measured from the given origin.
    public func toImageCoordinates(_ imageSize: CGSize, origin: CoordinateOrigin = .lowerLeft) -> CGPoint {
        let p = origin == .lowerLeft ? cgPoint : verticallyFlipped().cgPoint
        return CGPoint(x: p.x * imageSize.width, y: p.y * imageSize.height)
    }

    /// The point, normalized to `regionOfInterest`, in pixels of the whole image of `imageSize`.
    public func toImageCoordinates(
        from regionOfInterest: NormalizedRect, imageSize: CGSize, origin: CoordinateOrigin = .lowerLeft
    ) -> CGPoint {
        let r = regionOfInterest.cgRect
        let inImage = NormalizedPoint(x: r.minX + x * r.width, y: r.minY + y * r.height)
        return inImage.toImageCoordinates(imageSize, origin: origin)
    }

    /// The point mirrored about the horizontal midline (`y` becomes `1 - y`): lower-left to upper-left origin and back.
    public func verticallyFlipped() -> NormalizedPoint { NormalizedPoint(x: x, y: 1 - y) }

    public var description: String { "NormalizedPoint(x: \(x), y: \(y))" }
}

/// A rectangle in normalized image coordinates (lower-left origin), as Vision's `NormalizedRect`.
///
/// ```swift
/// let box = NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.25)
/// box.toImageCoordinates(CGSize(width: 1000, height: 800), origin: .upperLeft)   // (100, 440, 500, 200)
/// ```
public struct NormalizedRect: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The rectangle as a `CGRect` in normalized coordinates.
    public let cgRect: CGRect

    /// A rectangle from normalized origin and size.
    public init(x: CGFloat, y: CGFloat, width: CGFloat, height: CGFloat) {
        cgRect = CGRect(x: x, y: y, width: width, height: height)
    }

    /// A rectangle from a normalized `CGRect`.
    public init(normalizedRect: CGRect) { cgRect = normalizedRect }

    /// The normalized rectangle of a pixel rectangle (lower-left origin) in an image of `imageSize`.
    public init(imageRect: CGRect, in imageSize: CGSize) {
        cgRect = CGRect(
            x: imageRect.minX / imageSize.width, y: imageRect.minY / imageSize.height,
            width: imageRect.width / imageSize.width, height: imageRect.height / imageSize.height)
    }

    /// A pixel rectangle (lower-left origin) of an image of `imageSize`, normalized to `regionOfInterest`.
    public init(imageRect: CGRect, in imageSize: CGSize, normalizedTo regionOfInterest: NormalizedRect) {
        let r = regionOfInterest.toImageCoordinates(imageSize)
        cgRect = CGRect(
            x: (imageRect.minX - r.minX) / r.width, y: (imageRect.minY - r.minY) / r.height,
            width: imageRect.width / r.width, height: imageRect.height / r.height)
    }

    /// The whole image, `(0, 0, 1, 1)`.
    public static var fullImage: NormalizedRect { NormalizedRect(x: 0, y: 0, width: 1, height: 1) }

    /// The lower-left corner.
    public var origin: CGPoint { cgRect.origin }
    /// The normalized width.
    public var width: CGFloat { cgRect.width }
    /// The normalized height.
    public var height: CGFloat { cgRect.height }

    /// The rectangle in pixels of an image of `imageSize`, its origin measured from the given corner.
    public func toImageCoordinates(_ imageSize: CGSize, origin: CoordinateOrigin = .lowerLeft) -> CGRect {
        let r = origin == .lowerLeft ? cgRect : verticallyFlipped().cgRect
        return CGRect(
            x: r.minX * imageSize.width, y: r.minY * imageSize.height,
            width: r.width * imageSize.width, height: r.height * imageSize.height)
    }

    /// The rectangle, normalized to `regionOfInterest`, in pixels of the whole image of `imageSize`.
    public func toImageCoordinates(
        from regionOfInterest: NormalizedRect, imageSize: CGSize, origin: CoordinateOrigin = .lowerLeft
    ) -> CGRect {
        let r = regionOfInterest.cgRect
        let inImage = NormalizedRect(
            x: r.minX + cgRect.minX * r.width, y: r.minY + cgRect.minY * r.height,
            width: cgRect.width * r.width, height: cgRect.height * r.height)
        return inImage.toImageCoordinates(imageSize, origin: origin)
    }

    /// The rectangle mirrored about the horizontal midline: its top edge becomes `1 - maxY` from the other side.
    public func verticallyFlipped() -> NormalizedRect {
        NormalizedRect(x: cgRect.minX, y: 1 - cgRect.maxY, width: cgRect.width, height: cgRect.height)
    }

    public var description: String { "NormalizedRect(x: \(origin.x), y: \(origin.y), width: \(width), height: \(height))" }
}

import Foundation

/// An immutable 2-D point, as Apple's `VNPoint`. Vision's points are normalized to the image (lower-left
/// origin) unless the API returning them says otherwise.
///
/// ```swift
/// let p = VNPoint(x: 0.25, y: 0.5)
/// p.distance(VNPoint.zero)   // 0.559…
/// ```
///
/// Mirrors Apple's iOS 14 class; ``VNVector`` holds the differences of points.
open class VNPoint: NSObject, NSCopying, @unchecked Sendable {
    /// The x coordinate.
    public let x: Double
    /// The y coordinate.
    public let y: Double

    /// A point at `(x, y)`.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
        super.init()
    }

    /// A point at `location`.
    public convenience init(location: CGPoint) {
        self.init(x: Double(location.x), y: Double(location.y))
    }

    /// The point as a `CGPoint`.
    public var location: CGPoint { CGPoint(x: x, y: y) }

    /// The origin `(0, 0)`.
    public class var zero: VNPoint { VNPoint(x: 0, y: 0) }

    /// The Euclidean distance to `point`.
    public func distance(_ point: VNPoint) -> Double {
        let dx = x - point.x, dy = y - point.y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// Points are immutable: the copy is the point itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? VNPoint, type(of: other) == type(of: self) else { return false }
        return x == other.x && y == other.y
    }

    open override var hash: Int { x.hashValue ^ (y.hashValue &* 31) }

    open override var description: String { "VNPoint(x: \(x), y: \(y))" }
}

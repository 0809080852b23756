import Foundation

/// An immutable 2-D vector, as Apple's `VNVector`: the difference of two ``VNPoint``s, in the same normalized
/// coordinates. `theta` is the angle from the x axis in radians (−π…π) and `r` the length.
///
/// ```swift
/// let arm = VNVector(vectorHead: wrist, tail: elbow)
/// let bend = acos(VNVector.dotProduct(of: VNVector.unitVector(for: arm), vector: VNVector.unitVector(for: forearm)))
/// ```
open class VNVector: NSObject, NSCopying, @unchecked Sendable {
    /// The x component.
    public let x: Double
    /// The y component.
    public let y: Double

    /// A vector with components `x` and `y`.
    public init(xComponent x: Double, yComponent y: Double) {
        self.x = x
        self.y = y
        super.init()
    }

    /// A vector of length `r` at angle `theta` (radians from the x axis).
    public convenience init(r: Double, theta: Double) {
        self.init(xComponent: r * cos(theta), yComponent: r * sin(theta))
    }

    /// The vector from `tail` to `head`.
    public convenience init(vectorHead head: VNPoint, tail: VNPoint) {
        self.init(xComponent: head.x - tail.x, yComponent: head.y - tail.y)
    }

    /// `v1 + v2`.
    public convenience init(byAdding v1: VNVector, to v2: VNVector) {
        self.init(xComponent: v1.x + v2.x, yComponent: v1.y + v2.y)
    }

    /// `v2 − v1` (Apple's order: `v1` is subtracted *from* `v2`).
    public convenience init(bySubtracting v1: VNVector, from v2: VNVector) {
        self.init(xComponent: v2.x - v1.x, yComponent: v2.y - v1.y)
    }

    /// `vector × scalar`.
    public convenience init(byMultiplying vector: VNVector, byScalar scalar: Double) {
        self.init(xComponent: vector.x * scalar, yComponent: vector.y * scalar)
    }

    /// The zero vector.
    public class var zero: VNVector { VNVector(xComponent: 0, yComponent: 0) }

    /// The length.
    public var length: Double { squaredLength.squareRoot() }
    /// The squared length.
    public var squaredLength: Double { x * x + y * y }
    /// The length (polar radius), as ``length``.
    public var r: Double { length }
    /// The angle from the x axis, radians in −π…π.
    public var theta: Double { atan2(y, x) }

    /// The vector of length 1 in the direction of `vector`; the zero vector stays zero.
    public class func unitVector(for vector: VNVector) -> VNVector {
        let n = vector.length
        return n > 0 ? VNVector(xComponent: vector.x / n, yComponent: vector.y / n) : .zero
    }

    /// The dot product `v1 · v2`.
    public class func dotProduct(of v1: VNVector, vector v2: VNVector) -> Double { v1.x * v2.x + v1.y * v2.y }

    /// Vectors are immutable: the copy is the vector itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? VNVector, type(of: other) == type(of: self) else { return false }
        return x == other.x && y == other.y
    }

    open override var hash: Int { x.hashValue ^ (y.hashValue &* 31) }

    open override var description: String { "VNVector(x: \(x), y: \(y))" }
}

extension VNPoint {
    /// `point` moved by `vector`.
    public class func apply(_ vector: VNVector, to point: VNPoint) -> VNPoint {
        VNPoint(x: point.x + vector.x, y: point.y + vector.y)
    }

    /// The Euclidean distance between two points.
    public class func distance(_ point1: VNPoint, _ point2: VNPoint) -> Double { point1.distance(point2) }
}

/// The element type of Vision's feature-print data, as Apple's `VNElementType`.
public enum VNElementType: UInt, Sendable {
    /// Unknown.
    case unknown = 0
    /// 32-bit float.
    case float = 1
    /// 64-bit float.
    case double = 2
}

/// Bytes per element of `elementType` (0 for `.unknown`).
public func VNElementTypeSize(_ elementType: VNElementType) -> Int {
    switch elementType {
    case .unknown: 0
    case .float: MemoryLayout<Float>.size
    case .double: MemoryLayout<Double>.size
    }
}

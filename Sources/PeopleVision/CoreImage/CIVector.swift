import Foundation

/// An immutable vector of `CGFloat`s, as Core Image's `CIVector` (used for filter parameters
/// such as `CIColorMatrix`'s `inputRVector`).
///
/// Out-of-range reads return 0, as Apple's `value(at:)` does.
///
/// ```swift
/// filter.setValue(CIVector(x: 0, y: 0, z: 0, w: 1), forKey: "inputAVector")
/// ```
public final class CIVector: Sendable, Hashable, CustomStringConvertible {
    private let values: [CGFloat]

    /// A vector of `count` values read from `values` (Apple's `CIVector(values:count:)`;
    /// a Swift array converts implicitly).
    public init(values: UnsafePointer<CGFloat>, count: Int) {
        self.values = Array(UnsafeBufferPointer(start: values, count: max(0, count)))
    }

    /// A vector of values from an array.
    package init(_ values: [CGFloat]) { self.values = values }

    /// A one-component vector.
    public convenience init(x: CGFloat) { self.init([x]) }
    /// A two-component vector.
    public convenience init(x: CGFloat, y: CGFloat) { self.init([x, y]) }
    /// A three-component vector.
    public convenience init(x: CGFloat, y: CGFloat, z: CGFloat) { self.init([x, y, z]) }
    /// A four-component vector.
    public convenience init(x: CGFloat, y: CGFloat, z: CGFloat, w: CGFloat) { self.init([x, y, z, w]) }
    /// `(x, y)` of a point.
    public convenience init(cgPoint p: CGPoint) { self.init([p.x, p.y]) }
    /// `(x, y, width, height)` of a rectangle.
    public convenience init(cgRect r: CGRect) { self.init([r.origin.x, r.origin.y, r.size.width, r.size.height]) }
    /// `(a, b, c, d, tx, ty)` of a transform.
    public convenience init(cgAffineTransform t: CGAffineTransform) { self.init([t.a, t.b, t.c, t.d, t.tx, t.ty]) }

    /// A vector parsed from `"[1 2 3]"`-style text (Apple's `CIVector(string:)`).
    public convenience init(string representation: String) {
        let trimmed = representation.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        self.init(trimmed.split(whereSeparator: { $0 == " " || $0 == "," }).map { CGFloat(Double($0) ?? 0) })
    }

    /// Number of components.
    public var count: Int { values.count }
    /// The component at `index`, or 0 when out of range.
    public func value(at index: Int) -> CGFloat { index >= 0 && index < values.count ? values[index] : 0 }
    /// Component 0.
    public var x: CGFloat { value(at: 0) }
    /// Component 1.
    public var y: CGFloat { value(at: 1) }
    /// Component 2.
    public var z: CGFloat { value(at: 2) }
    /// Component 3.
    public var w: CGFloat { value(at: 3) }
    /// Components 0–1 as a point.
    public var cgPointValue: CGPoint { CGPoint(x: x, y: y) }
    /// Components 0–3 as a rectangle.
    public var cgRectValue: CGRect { CGRect(x: x, y: y, width: z, height: w) }
    /// Components 0–5 as a transform.
    public var cgAffineTransformValue: CGAffineTransform {
        CGAffineTransform(a: value(at: 0), b: value(at: 1), c: value(at: 2), d: value(at: 3), tx: value(at: 4), ty: value(at: 5))
    }
    /// `"[x y z w]"`.
    public var stringRepresentation: String { "[" + values.map { "\($0)" }.joined(separator: " ") + "]" }
    public var description: String { "CIVector\(stringRepresentation)" }

    public static func == (lhs: CIVector, rhs: CIVector) -> Bool { lhs.values == rhs.values }
    public func hash(into hasher: inout Hasher) { hasher.combine(values) }

    /// The first four components as floats (missing ones 0).
    var simd4: SIMD4<Float> { SIMD4(Float(x), Float(y), Float(z), Float(w)) }
}

import Foundation

/// How a path's inside is decided, as Core Graphics' `CGPathFillRule`.
public enum CGPathFillRule: Int, Sendable {
    /// Inside where the path winds around the point a non-zero number of times.
    case winding = 0
    /// Inside where a ray from the point crosses the path an odd number of times.
    case evenOdd = 1
}

/// The kind of a path element, as Core Graphics' `CGPathElementType`.
public enum CGPathElementType: Int32, Sendable {
    /// Starts a subpath at one point.
    case moveToPoint = 0
    /// A straight line to one point.
    case addLineToPoint = 1
    /// A quadratic curve: a control point, then the end point.
    case addQuadCurveToPoint = 2
    /// A cubic curve: two control points, then the end point.
    case addCurveToPoint = 3
    /// Closes the subpath (no points).
    case closeSubpath = 4
}

/// An immutable 2-D path of lines and curves, as Core Graphics' `CGPath`; build one with ``CGMutablePath``.
///
/// Paths are geometry only here (nothing draws them): their bounds, hit testing with ``contains(_:using:transform:)``
/// and their elements. Vision apps use them to outline contours, face landmarks and body-pose skeletons.
public class CGPath: Equatable, CustomStringConvertible {
    /// One element: its type and points (end point last).
    struct Element: Equatable {
        var type: CGPathElementType
        var points: [CGPoint]
    }
    var elements: [Element]

    init(elements: [Element]) { self.elements = elements }

    /// A closed rectangle, transformed (Apple's `CGPath(rect:transform:)`).
    public convenience init(rect: CGRect, transform: UnsafePointer<CGAffineTransform>?) {
        let path = CGMutablePath()
        path.addRect(rect, transform: transform?.pointee ?? .identity)
        self.init(elements: path.elements)
    }

    /// A closed ellipse inscribed in `rect`, transformed (Apple's `CGPath(ellipseIn:transform:)`).
    public convenience init(ellipseIn rect: CGRect, transform: UnsafePointer<CGAffineTransform>?) {
        let path = CGMutablePath()
        path.addEllipse(in: rect, transform: transform?.pointee ?? .identity)
        self.init(elements: path.elements)
    }

    /// Whether the path has no elements.
    public var isEmpty: Bool { elements.isEmpty }

    /// The end point of the last element (after a close, the start of that subpath); `.zero` for an empty path.
    public var currentPoint: CGPoint {
        var start = CGPoint.zero, current = CGPoint.zero
        for e in elements {
            switch e.type {
            case .moveToPoint: (start, current) = (e.points[0], e.points[0])
            case .closeSubpath: current = start
            default: current = e.points[e.points.count - 1]
            }
        }
        return current
    }

    /// The smallest rectangle holding every point of the path, control points included; `CGRect.null` when empty.
    public var boundingBox: CGRect { Self.bounds(of: elements.flatMap(\.points)) }

    /// The smallest rectangle holding the path itself (curves sampled finely rather than their control points);
    /// `CGRect.null` when empty.
    public var boundingBoxOfPath: CGRect { Self.bounds(of: polygons().flatMap { $0 }) }

    /// Whether `point` is inside the path's filled area: every subpath closed, inside decided by `rule`, after the
    /// path is transformed by `transform`. Points exactly on an edge may fall either way.
    public func contains(
        _ point: CGPoint, using rule: CGPathFillRule = .winding, transform: CGAffineTransform = .identity
    ) -> Bool {
        var winding = 0, crossings = 0
        for polygon in polygons() where polygon.count > 1 {
            let vertices = polygon.map { $0.applying(transform) }
            for i in vertices.indices {
                let a = vertices[i], b = vertices[(i + 1) % vertices.count]
                guard (a.y <= point.y) != (b.y <= point.y) else { continue }
                let x = a.x + (point.y - a.y) / (b.y - a.y) * (b.x - a.x)
                guard x > point.x else { continue }
                crossings += 1
                winding += b.y > a.y ? 1 : -1
            }
        }
        return rule == .winding ? winding != 0 : crossings % 2 == 1
    }

    /// A mutable copy (Apple's `mutableCopy()`).
    public func mutableCopy() -> CGMutablePath? { CGMutablePath(elements: elements) }

    /// An immutable copy (Apple's `copy()`).
    public func copy() -> CGPath? { CGPath(elements: elements) }

    /// A transformed immutable copy (Apple's `copy(using:)`).
    public func copy(using transform: UnsafePointer<CGAffineTransform>?) -> CGPath? {
        let t = transform?.pointee ?? .identity
        return CGPath(elements: elements.map { Element(type: $0.type, points: $0.points.map { $0.applying(t) }) })
    }

    /// Calls `block` with each element's type and points, in order (the points of Apple's `CGPathElement`).
    public func forEachElement(_ block: (CGPathElementType, [CGPoint]) -> Void) {
        for e in elements { block(e.type, e.points) }
    }

    public static func == (a: CGPath, b: CGPath) -> Bool { a.elements == b.elements }

    public var description: String { "CGPath(\(elements.count) elements, bounding box \(boundingBox))" }

    // MARK: Geometry

    static func bounds(of points: [CGPoint]) -> CGRect {
        guard let first = points.first else { return .null }
        var (minX, minY, maxX, maxY) = (first.x, first.y, first.x, first.y)
        for p in points.dropFirst() {
            (minX, maxX) = (Swift.min(minX, p.x), Swift.max(maxX, p.x))
            (minY, maxY) = (Swift.min(minY, p.y), Swift.max(maxY, p.y))
        }
        return CGRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// Each subpath as a polygon, curves flattened into 32 segments each.
    func polygons() -> [[CGPoint]] {
        var result: [[CGPoint]] = [], current: [CGPoint] = []
        func finish() {
            if !current.isEmpty { result.append(current) }
            current = []
        }
        for e in elements {
            let last = current.last ?? .zero
            switch e.type {
            case .moveToPoint:
                finish()
                current = [e.points[0]]
            case .addLineToPoint: current.append(e.points[0])
            case .addQuadCurveToPoint, .addCurveToPoint:
                let control = [last] + e.points
                current += (1...32).map { Self.bezier(control, t: CGFloat($0) / 32) }
            case .closeSubpath:
                let start = current.first
                finish()
                if let start { current = [start] }
            }
        }
        finish()
        return result
    }

    /// De Casteljau's evaluation of a Bézier curve with these control points.
    static func bezier(_ points: [CGPoint], t: CGFloat) -> CGPoint {
        var p = points
        while p.count > 1 {
            p = (0..<(p.count - 1)).map { i in
                CGPoint(x: p[i].x + t * (p[i + 1].x - p[i].x), y: p[i].y + t * (p[i + 1].y - p[i].y))
            }
        }
        return p[0]
    }
}

/// A path you build element by element, as Core Graphics' `CGMutablePath`.
///
/// ```swift
/// let path = CGMutablePath()
/// path.addLines(between: skeleton.map { $0.location })
/// path.addEllipse(in: CGRect(x: 0.4, y: 0.8, width: 0.2, height: 0.2))
/// ```
///
/// Each method takes an optional transform applied to its points. Adding a line or curve to an empty path starts
/// it at that element's first point (Core Graphics logs an error and does the same).
public final class CGMutablePath: CGPath {
    /// An empty path.
    public init() { super.init(elements: []) }

    override init(elements: [Element]) { super.init(elements: elements) }

    /// Starts a new subpath at `point`.
    public func move(to point: CGPoint, transform: CGAffineTransform = .identity) {
        elements.append(Element(type: .moveToPoint, points: [point.applying(transform)]))
    }

    /// A straight line from the current point to `point`.
    public func addLine(to point: CGPoint, transform: CGAffineTransform = .identity) {
        append(.addLineToPoint, [point], transform)
    }

    /// A quadratic curve to `end` with one control point.
    public func addQuadCurve(to end: CGPoint, control: CGPoint, transform: CGAffineTransform = .identity) {
        append(.addQuadCurveToPoint, [control, end], transform)
    }

    /// A cubic curve to `end` with two control points.
    public func addCurve(
        to end: CGPoint, control1: CGPoint, control2: CGPoint, transform: CGAffineTransform = .identity
    ) {
        append(.addCurveToPoint, [control1, control2, end], transform)
    }

    /// Closes the current subpath with a line back to its start.
    public func closeSubpath() {
        guard !elements.isEmpty, elements.last?.type != .closeSubpath else { return }
        elements.append(Element(type: .closeSubpath, points: []))
    }

    /// A new subpath through `points`: a move to the first, lines to the others (nothing when `points` is empty).
    public func addLines(between points: [CGPoint], transform: CGAffineTransform = .identity) {
        guard let first = points.first else { return }
        move(to: first, transform: transform)
        for p in points.dropFirst() { addLine(to: p, transform: transform) }
    }

    /// A closed rectangle: a move to `(minX, minY)`, lines counter-clockwise through the other corners, a close.
    public func addRect(_ rect: CGRect, transform: CGAffineTransform = .identity) {
        let r = rect.standardized
        addLines(
            between: [
                CGPoint(x: r.minX, y: r.minY), CGPoint(x: r.maxX, y: r.minY), CGPoint(x: r.maxX, y: r.maxY),
                CGPoint(x: r.minX, y: r.maxY),
            ], transform: transform)
        closeSubpath()
    }

    /// Several closed rectangles.
    public func addRects(_ rects: [CGRect], transform: CGAffineTransform = .identity) {
        for r in rects { addRect(r, transform: transform) }
    }

    /// A closed ellipse inscribed in `rect`: four cubic curves counter-clockwise from the middle of the right edge.
    public func addEllipse(in rect: CGRect, transform: CGAffineTransform = .identity) {
        let r = rect.standardized
        let (cx, cy, rx, ry) = (r.midX, r.midY, r.width / 2, r.height / 2)
        // The control-point distance that makes a cubic curve closest to a quarter circle.
        let k: CGFloat = 0.552_284_749_831
        func p(_ x: CGFloat, _ y: CGFloat) -> CGPoint { CGPoint(x: cx + x * rx, y: cy + y * ry) }
        move(to: p(1, 0), transform: transform)
        addCurve(to: p(0, 1), control1: p(1, k), control2: p(k, 1), transform: transform)
        addCurve(to: p(-1, 0), control1: p(-k, 1), control2: p(-1, k), transform: transform)
        addCurve(to: p(0, -1), control1: p(-1, -k), control2: p(-k, -1), transform: transform)
        addCurve(to: p(1, 0), control1: p(k, -1), control2: p(1, -k), transform: transform)
        closeSubpath()
    }

    /// Appends another path's elements, transformed.
    public func addPath(_ path: CGPath, transform: CGAffineTransform = .identity) {
        for e in path.elements {
            elements.append(Element(type: e.type, points: e.points.map { $0.applying(transform) }))
        }
    }

    private func append(_ type: CGPathElementType, _ points: [CGPoint], _ transform: CGAffineTransform) {
        let mapped = points.map { $0.applying(transform) }
        if elements.isEmpty { elements.append(Element(type: .moveToPoint, points: [mapped[0]])) }
        elements.append(Element(type: type, points: mapped))
    }
}

import Foundation

/// A rectangle of whole pixels in the working space.
package struct PixelRect: Equatable, Sendable, CustomStringConvertible {
    /// The lower-left pixel.
    package var x: Int
    package var y: Int
    /// The size in pixels (never negative).
    package var w: Int
    package var h: Int

    /// Coordinates are clamped to ±2³⁰, which stands for "infinite".
    package static let limit = 1 << 30
    /// No pixels.
    package static let empty = PixelRect(x: 0, y: 0, w: 0, h: 0)
    /// Every pixel (as far as ±2³⁰).
    package static let infinite = PixelRect(x: -limit, y: -limit, w: 2 * limit, h: 2 * limit)

    /// A rectangle at (`x`, `y`); a negative size counts as empty.
    package init(x: Int, y: Int, w: Int, h: Int) {
        self.x = x
        self.y = y
        self.w = max(0, w)
        self.h = max(0, h)
    }

    /// The pixels from (`x0`, `y0`) up to, not including, (`x1`, `y1`).
    package init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.init(x: x0, y: y0, w: x1 - x0, h: y1 - y0)
    }

    /// The pixels whose centres lie inside `rect` (x + 0.5 ∈ [minX, maxX)); infinite and huge
    /// rectangles are clamped to ``infinite``.
    package init(covering rect: CGRect) {
        if rect.isNull || rect.isEmpty {
            self = .empty
            return
        }
        if rect.isInfinite {
            self = .infinite
            return
        }
        let r = rect.standardized
        func edge(_ v: CGFloat) -> Int {
            let e = (v - 0.5).rounded(.up)
            if !(e > -CGFloat(PixelRect.limit)) { return -PixelRect.limit }
            if !(e < CGFloat(PixelRect.limit)) { return PixelRect.limit }
            return Int(e)
        }
        self.init(x0: edge(r.minX), y0: edge(r.minY), x1: edge(r.maxX), y1: edge(r.maxY))
    }

    /// A rectangle for rendering: `rect` made integral after snapping coordinates within 1/1000
    /// of a whole number (so 1919.9999999 stays 1920).
    package init(integral rect: CGRect) {
        func snap(_ v: CGFloat) -> CGFloat {
            let r = v.rounded()
            return abs(v - r) < 1e-3 ? r : v
        }
        let r = rect.standardized
        let x0 = snap(r.minX).rounded(.down), y0 = snap(r.minY).rounded(.down)
        let x1 = snap(r.maxX).rounded(.up), y1 = snap(r.maxY).rounded(.up)
        let lim = CGFloat(PixelRect.limit)
        guard x0 > -lim, y0 > -lim, x1 < lim, y1 < lim else {
            self = .infinite
            return
        }
        self.init(x0: Int(x0), y0: Int(y0), x1: Int(x1), y1: Int(y1))
    }

    /// The first column and row past the rectangle.
    package var maxX: Int { x + w }
    package var maxY: Int { y + h }
    package var isEmpty: Bool { w <= 0 || h <= 0 }
    package var area: Int { w * h }
    /// Whether an edge reaches the ±2³⁰ that stands for infinity.
    package var isInfinite: Bool { x <= -PixelRect.limit || y <= -PixelRect.limit || maxX >= PixelRect.limit || maxY >= PixelRect.limit }
    /// The same rectangle as a `CGRect`.
    package var cgRect: CGRect { CGRect(x: x, y: y, width: w, height: h) }

    /// The pixels in both (empty when they do not meet).
    package func intersection(_ o: PixelRect) -> PixelRect {
        let x0 = max(x, o.x), y0 = max(y, o.y), x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        return x1 > x0 && y1 > y0 ? PixelRect(x0: x0, y0: y0, x1: x1, y1: y1) : .empty
    }

    /// The smallest rectangle holding both (an empty one counts as absent).
    package func union(_ o: PixelRect) -> PixelRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        return PixelRect(x0: min(x, o.x), y0: min(y, o.y), x1: max(maxX, o.maxX), y1: max(maxY, o.maxY))
    }

    /// Moved by whole pixels (coordinates clamped to ±2³¹).
    package func offsetBy(_ dx: Int, _ dy: Int) -> PixelRect {
        isEmpty ? self : PixelRect(x: clampCoordinate(x + dx), y: clampCoordinate(y + dy), w: w, h: h)
    }

    /// Shrunk by `d` pixels on every side (grown when `d` is negative).
    package func insetBy(_ d: Int) -> PixelRect {
        isEmpty ? self : PixelRect(x0: clampCoordinate(x + d), y0: clampCoordinate(y + d), x1: clampCoordinate(maxX - d), y1: clampCoordinate(maxY - d))
    }

    /// Whether every pixel of `o` is in this rectangle (an empty `o` always is).
    package func contains(_ o: PixelRect) -> Bool {
        o.isEmpty || (o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY)
    }

    private func clampCoordinate(_ v: Int) -> Int { min(max(v, -2 * PixelRect.limit), 2 * PixelRect.limit) }

    package var description: String { "(\(x), \(y), \(w)×\(h))" }
}


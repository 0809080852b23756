import Foundation

/// Per-pixel coverage (0…1) of a shape over a rectangle of a canvas whose rows run top-down.
struct Coverage {
    /// The covered rectangle: columns `x0..<x0 + width`, rows `y0..<y0 + height` (row 0 is the canvas's top).
    let x0: Int, y0: Int, width: Int, height: Int
    var values: [Float]

    subscript(x: Int, y: Int) -> Float { values[(y - y0) * width + (x - x0)] }
}

/// Scan conversion of polygons into coverage, with 4 sub-scanlines per row and exact horizontal coverage.
enum Rasterizer {
    private struct Edge {
        var xTop: Double, yTop: Double, yBottom: Double, slope: Double, direction: Int
    }

    /// The coverage of `polygons` (device space: y up, origin at the canvas's bottom-left) on a canvas of
    /// `width` × `height` pixels; nil when nothing is covered.
    static func coverage(
        of polygons: [[CGPoint]], rule: CGPathFillRule, width: Int, height: Int, antialias: Bool
    ) -> Coverage? {
        var edges: [Edge] = []
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for polygon in polygons where polygon.count >= 3 {
            for i in polygon.indices {
                let p = polygon[i], q = polygon[(i + 1) % polygon.count]
                // Rows run top-down on the canvas.
                let (px, py, qx, qy) = (Double(p.x), Double(height) - Double(p.y), Double(q.x), Double(height) - Double(q.y))
                guard px.isFinite, py.isFinite, qx.isFinite, qy.isFinite else { return nil }
                (minX, maxX) = (min(minX, px, qx), max(maxX, px, qx))
                (minY, maxY) = (min(minY, py, qy), max(maxY, py, qy))
                guard py != qy else { continue }
                let down = py < qy
                let (top, bottom) = down ? ((px, py), (qx, qy)) : ((qx, qy), (px, py))
                edges.append(Edge(xTop: top.0, yTop: top.1, yBottom: bottom.1,
                                  slope: (bottom.0 - top.0) / (bottom.1 - top.1), direction: down ? 1 : -1))
            }
        }
        let x0 = max(0, Int(minX.rounded(.down))), x1 = min(width, Int(maxX.rounded(.up)))
        let y0 = max(0, Int(minY.rounded(.down))), y1 = min(height, Int(maxY.rounded(.up)))
        guard !edges.isEmpty, x0 < x1, y0 < y1 else { return nil }
        var result = Coverage(x0: x0, y0: y0, width: x1 - x0, height: y1 - y0, values: .init(repeating: 0, count: (x1 - x0) * (y1 - y0)))
        edges.sort { $0.yTop < $1.yTop }
        let samples = antialias ? 4 : 1
        var next = 0, active: [Edge] = [], crossings: [(x: Double, direction: Int)] = []
        for row in y0..<y1 {
            for k in 0..<samples {
                let sy = Double(row) + (Double(k) + 0.5) / Double(samples)
                while next < edges.count, edges[next].yTop <= sy {
                    active.append(edges[next])
                    next += 1
                }
                active.removeAll { $0.yBottom <= sy }
                crossings.removeAll(keepingCapacity: true)
                for e in active where e.yTop <= sy {
                    crossings.append((e.xTop + (sy - e.yTop) * e.slope, e.direction))
                }
                crossings.sort { $0.x < $1.x }
                var winding = 0
                for (i, c) in crossings.enumerated() {
                    winding += c.direction
                    let inside = rule == .evenOdd ? (i + 1) % 2 == 1 : winding != 0
                    guard inside, i + 1 < crossings.count else { continue }
                    addSpan(crossings[i].x, crossings[i + 1].x, row: row, weight: 1 / Float(samples),
                            antialias: antialias, into: &result)
                }
            }
        }
        return result
    }

    private static func addSpan(_ a: Double, _ b: Double, row: Int, weight: Float, antialias: Bool, into c: inout Coverage) {
        let lo = max(a, Double(c.x0)), hi = min(b, Double(c.x0 + c.width))
        guard lo < hi else { return }
        let base = (row - c.y0) * c.width - c.x0
        if !antialias {
            let first = max(Int((lo - 0.5).rounded(.up)), c.x0), last = min(Int((hi - 0.5).rounded(.up)), c.x0 + c.width)
            if first < last { for x in first..<last { c.values[base + x] = 1 } }
            return
        }
        let first = Int(lo.rounded(.down)), last = min(Int(hi.rounded(.down)), c.x0 + c.width - 1)
        for x in first...max(first, last) {
            let overlap = min(hi, Double(x + 1)) - max(lo, Double(x))
            if overlap > 0 { c.values[base + x] = min(1, c.values[base + x] + Float(overlap) * weight) }
        }
    }
}

/// Outlines of stroked polylines, in the space the line width is measured in.
struct StrokeOutliner {
    var halfWidth: CGFloat
    var cap: CGLineCap
    var join: CGLineJoin
    var miterLimit: CGFloat
    /// Segments per full circle for round caps and joins.
    var circleSegments: Int

    /// Polygons whose non-zero union is the stroke of `line` (every polygon counter-clockwise).
    func outline(_ line: [CGPoint], closed: Bool) -> [[CGPoint]] {
        var points: [CGPoint] = []
        for p in line where points.last.map({ hypot($0.x - p.x, $0.y - p.y) > 1e-9 }) ?? true { points.append(p) }
        if closed, points.count > 2, let first = points.first, let last = points.last,
           hypot(first.x - last.x, first.y - last.y) <= 1e-9 {
            points.removeLast()
        }
        guard points.count > 1 else { return points.first.map(dot) ?? [] }
        var pieces: [[CGPoint]] = []
        let count = closed ? points.count : points.count - 1
        for i in 0..<count {
            var a = points[i], b = points[(i + 1) % points.count]
            if !closed, cap == .square {
                let d = unit(a, b)
                if i == 0 { a = CGPoint(x: a.x - d.x * halfWidth, y: a.y - d.y * halfWidth) }
                if i == count - 1 { b = CGPoint(x: b.x + d.x * halfWidth, y: b.y + d.y * halfWidth) }
            }
            pieces.append(segment(a, b))
        }
        let joints = closed ? Array(points.indices) : Array(points.indices.dropFirst().dropLast())
        for i in joints {
            let previous = points[(i + points.count - 1) % points.count], next = points[(i + 1) % points.count]
            pieces += joinPieces(previous, points[i], next)
        }
        if !closed, cap == .round { pieces += [circle(points[0]), circle(points[points.count - 1])] }
        return pieces.map(counterClockwise)
    }

    private func dot(_ p: CGPoint) -> [[CGPoint]] {
        switch cap {
        case .butt: return []
        case .round: return [circle(p)]
        case .square:
            let h = halfWidth
            return [[CGPoint(x: p.x - h, y: p.y - h), CGPoint(x: p.x + h, y: p.y - h), CGPoint(x: p.x + h, y: p.y + h),
                     CGPoint(x: p.x - h, y: p.y + h)]]
        }
    }

    private func unit(_ a: CGPoint, _ b: CGPoint) -> CGPoint {
        let length = hypot(b.x - a.x, b.y - a.y)
        return CGPoint(x: (b.x - a.x) / length, y: (b.y - a.y) / length)
    }

    private func normal(_ a: CGPoint, _ b: CGPoint) -> CGPoint {
        let d = unit(a, b)
        return CGPoint(x: -d.y, y: d.x)
    }

    private func segment(_ a: CGPoint, _ b: CGPoint) -> [CGPoint] {
        let n = normal(a, b), h = halfWidth
        return [CGPoint(x: a.x + n.x * h, y: a.y + n.y * h), CGPoint(x: a.x - n.x * h, y: a.y - n.y * h),
                CGPoint(x: b.x - n.x * h, y: b.y - n.y * h), CGPoint(x: b.x + n.x * h, y: b.y + n.y * h)]
    }

    private func joinPieces(_ a: CGPoint, _ p: CGPoint, _ b: CGPoint) -> [[CGPoint]] {
        if join == .round { return [circle(p)] }
        let d0 = unit(a, p), d1 = unit(p, b)
        let turn = d0.x * d1.y - d0.y * d1.x
        guard abs(turn) > 1e-12 else { return [] }
        // The outer side of the corner is to the right of a left turn and to the left of a right turn.
        let side: CGFloat = turn > 0 ? -1 : 1
        let n0 = normal(a, p), n1 = normal(p, b), h = halfWidth * side
        let e0 = CGPoint(x: p.x + n0.x * h, y: p.y + n0.y * h), e1 = CGPoint(x: p.x + n1.x * h, y: p.y + n1.y * h)
        let sum = CGPoint(x: n0.x + n1.x, y: n0.y + n1.y), sumSquared = sum.x * sum.x + sum.y * sum.y
        if join == .miter, sumSquared > 1e-12, 2 / sumSquared.squareRoot() <= miterLimit {
            let tip = CGPoint(x: p.x + sum.x * h * 2 / sumSquared, y: p.y + sum.y * h * 2 / sumSquared)
            return [[p, e0, tip, e1]]
        }
        return [[p, e0, e1]]
    }

    private func circle(_ c: CGPoint) -> [CGPoint] {
        (0..<circleSegments).map { i in
            let t = CGFloat(i) * 2 * .pi / CGFloat(circleSegments)
            return CGPoint(x: c.x + halfWidth * cos(t), y: c.y + halfWidth * sin(t))
        }
    }

    private func counterClockwise(_ polygon: [CGPoint]) -> [CGPoint] {
        var area: CGFloat = 0
        for i in polygon.indices {
            let p = polygon[i], q = polygon[(i + 1) % polygon.count]
            area += p.x * q.y - q.x * p.y
        }
        return area < 0 ? polygon.reversed() : polygon
    }

    /// The dashes of a polyline: its pieces that fall on the "on" lengths of `pattern`, starting `phase` into it.
    static func dashes(_ line: [CGPoint], closed: Bool, pattern: [CGFloat], phase: CGFloat) -> [[CGPoint]] {
        let total = pattern.reduce(0, +)
        guard total > 0, line.count > 1 else { return [line] }
        var points = line
        if closed, let first = line.first { points.append(first) }
        var index = 0, remaining = pattern[0], on = true
        var offset = phase.truncatingRemainder(dividingBy: total)
        if offset < 0 { offset += total }
        while offset > 0 {
            let step = min(offset, remaining)
            (offset, remaining) = (offset - step, remaining - step)
            if remaining <= 0 { (index, on) = ((index + 1) % pattern.count, !on); remaining = pattern[index] }
        }
        var result: [[CGPoint]] = [], current: [CGPoint] = on ? [points[0]] : []
        for i in 0..<(points.count - 1) {
            var a = points[i]
            let b = points[i + 1]
            var length = hypot(b.x - a.x, b.y - a.y)
            while length > remaining {
                let t = remaining / length
                let cut = CGPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
                if on { current.append(cut); result.append(current); current = [] } else { current = [cut] }
                (a, length) = (cut, length - remaining)
                (index, on) = ((index + 1) % pattern.count, !on)
                remaining = pattern[index]
            }
            remaining -= length
            if on { current.append(b) }
        }
        if on, current.count > 1 { result.append(current) }
        return result
    }
}

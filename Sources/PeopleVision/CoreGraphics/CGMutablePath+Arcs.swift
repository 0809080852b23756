import Foundation

extension CGMutablePath {
    /// A circular arc about `center` from `startAngle` to `endAngle` (radians from the +x axis), counter-clockwise in
    /// y-up coordinates unless `clockwise` (which looks counter-clockwise on a y-down screen), as Core Graphics'
    /// `addArc(center:radius:startAngle:endAngle:clockwise:transform:)`. A line joins the current point to the arc's
    /// start, or the arc starts a subpath when the path is empty. A sweep of a whole turn or more draws a circle.
    public func addArc(
        center: CGPoint, radius: CGFloat, startAngle: CGFloat, endAngle: CGFloat, clockwise: Bool,
        transform: CGAffineTransform = .identity
    ) {
        let turn = 2 * CGFloat.pi
        var sweep = endAngle - startAngle
        if clockwise {
            if sweep > 0 { sweep = sweep.truncatingRemainder(dividingBy: turn) - turn }
            sweep = max(sweep, -turn)
        } else {
            if sweep < 0 { sweep = sweep.truncatingRemainder(dividingBy: turn) + turn }
            sweep = min(sweep, turn)
        }
        func point(_ angle: CGFloat) -> CGPoint {
            CGPoint(x: center.x + radius * cos(angle), y: center.y + radius * sin(angle))
        }
        if isEmpty {
            move(to: point(startAngle), transform: transform)
        } else {
            addLine(to: point(startAngle), transform: transform)
        }
        guard sweep.isFinite, sweep != 0, radius.isFinite else { return }
        // Quarter turns at most per cubic segment; control points 4/3·tan(θ/4) radii along the tangents.
        let count = Int((abs(sweep) / (CGFloat.pi / 2)).rounded(.up))
        let step = sweep / CGFloat(count)
        let k = 4 / 3 * tan(step / 4) * radius
        for i in 0..<count {
            let a0 = startAngle + CGFloat(i) * step, a1 = a0 + step
            let p0 = point(a0), p1 = point(a1)
            addCurve(
                to: p1, control1: CGPoint(x: p0.x - k * sin(a0), y: p0.y + k * cos(a0)),
                control2: CGPoint(x: p1.x + k * sin(a1), y: p1.y - k * cos(a1)), transform: transform)
        }
    }

    /// A closed rectangle with elliptical corners `cornerWidth` × `cornerHeight` (each at most half the side; larger
    /// values are reduced), as Core Graphics' `addRoundedRect(in:cornerWidth:cornerHeight:transform:)`.
    public func addRoundedRect(
        in rect: CGRect, cornerWidth: CGFloat, cornerHeight: CGFloat, transform: CGAffineTransform = .identity
    ) {
        let r = rect.standardized
        let w = min(max(cornerWidth, 0), r.width / 2), h = min(max(cornerHeight, 0), r.height / 2)
        guard w > 0, h > 0 else {
            addRect(r, transform: transform)
            return
        }
        let k: CGFloat = 0.552_284_749_831
        func p(_ x: CGFloat, _ y: CGFloat) -> CGPoint { CGPoint(x: x, y: y) }
        move(to: p(r.minX + w, r.minY), transform: transform)
        addLine(to: p(r.maxX - w, r.minY), transform: transform)
        addCurve(
            to: p(r.maxX, r.minY + h), control1: p(r.maxX - w + k * w, r.minY), control2: p(r.maxX, r.minY + h - k * h),
            transform: transform)
        addLine(to: p(r.maxX, r.maxY - h), transform: transform)
        addCurve(
            to: p(r.maxX - w, r.maxY), control1: p(r.maxX, r.maxY - h + k * h), control2: p(r.maxX - w + k * w, r.maxY),
            transform: transform)
        addLine(to: p(r.minX + w, r.maxY), transform: transform)
        addCurve(
            to: p(r.minX, r.maxY - h), control1: p(r.minX + w - k * w, r.maxY), control2: p(r.minX, r.maxY - h + k * h),
            transform: transform)
        addLine(to: p(r.minX, r.minY + h), transform: transform)
        addCurve(
            to: p(r.minX + w, r.minY), control1: p(r.minX, r.minY + h - k * h), control2: p(r.minX + w - k * w, r.minY),
            transform: transform)
        closeSubpath()
    }
}

extension CGPath {
    /// A closed rounded rectangle, transformed (Apple's `CGPath(roundedRect:cornerWidth:cornerHeight:transform:)`).
    public convenience init(
        roundedRect rect: CGRect, cornerWidth: CGFloat, cornerHeight: CGFloat,
        transform: UnsafePointer<CGAffineTransform>?
    ) {
        let path = CGMutablePath()
        path.addRoundedRect(
            in: rect, cornerWidth: cornerWidth, cornerHeight: cornerHeight, transform: transform?.pointee ?? .identity)
        self.init(elements: path.elements)
    }
}

import Foundation
import PeopleVision
import Testing

/// Core Graphics paths as Vision apps build them: skeleton lines, face outlines, boxes.
@Suite struct CGPathTests {
    @Test func rectanglesAndLines() {
        let path = CGMutablePath()
        #expect(path.isEmpty && path.boundingBox.isNull)
        path.addRect(CGRect(x: 1, y: 2, width: 4, height: 3))
        #expect(path.boundingBox == CGRect(x: 1, y: 2, width: 4, height: 3))
        #expect(path.contains(CGPoint(x: 3, y: 3)))
        #expect(!path.contains(CGPoint(x: 6, y: 3)))
        #expect(path.currentPoint == CGPoint(x: 1, y: 2))  // closed: back at the start
        path.move(to: CGPoint(x: 10, y: 10))
        path.addLine(to: CGPoint(x: 12, y: -1))
        #expect(path.boundingBox == CGRect(x: 1, y: -1, width: 11, height: 11))
        #expect(path.currentPoint == CGPoint(x: 12, y: -1))
        let lines = CGMutablePath()
        lines.addLines(between: [CGPoint(x: 0, y: 0), CGPoint(x: 4, y: 0), CGPoint(x: 0, y: 4)])
        lines.closeSubpath()
        // The triangle x + y ≤ 4 (filled as closed).
        #expect(lines.contains(CGPoint(x: 1, y: 1)) && !lines.contains(CGPoint(x: 3, y: 3)))
    }

    @Test func ellipsesAndFillRules() {
        let circle = CGPath(ellipseIn: CGRect(x: -2, y: -2, width: 4, height: 4), transform: nil)
        #expect(circle.boundingBox == CGRect(x: -2, y: -2, width: 4, height: 4))
        let tight = circle.boundingBoxOfPath
        #expect(abs(tight.width - 4) < 0.01 && abs(tight.minY + 2) < 0.01)
        #expect(circle.contains(CGPoint(x: 1.3, y: 1.3)))  // radius 1.84 < 2
        #expect(!circle.contains(CGPoint(x: 1.5, y: 1.5)))  // radius 2.12 > 2
        // Two nested squares wound the same way: inside the inner one the winding number is 2 (filled) but the ray
        // crosses the path twice (even-odd: a hole).
        let nested = CGMutablePath()
        nested.addRects([CGRect(x: 0, y: 0, width: 10, height: 10), CGRect(x: 3, y: 3, width: 4, height: 4)])
        #expect(nested.contains(CGPoint(x: 5, y: 5), using: .winding))
        #expect(!nested.contains(CGPoint(x: 5, y: 5), using: .evenOdd))
        #expect(nested.contains(CGPoint(x: 1, y: 5), using: .evenOdd))
    }

    @Test func transformsApplyToPoints() {
        let path = CGMutablePath()
        path.addRect(CGRect(x: 0, y: 0, width: 1, height: 1), transform: CGAffineTransform(scaleX: 640, y: 480))
        #expect(path.boundingBox == CGRect(x: 0, y: 0, width: 640, height: 480))
        #expect(path.contains(CGPoint(x: 0.5, y: 0.5), transform: CGAffineTransform(translationX: 100, y: 0)) == false)
        #expect(path.contains(CGPoint(x: 200, y: 240), transform: CGAffineTransform(translationX: 100, y: 0)))
        var types: [CGPathElementType] = []
        path.forEachElement { type, _ in types.append(type) }
        #expect(types == [.moveToPoint, .addLineToPoint, .addLineToPoint, .addLineToPoint, .closeSubpath])
        #expect(path.copy() == path)
        #expect(CGFloat(truncating: NSNumber(value: 0.25)) == 0.25)
    }
}

/// Arcs and rounded rectangles.
@Suite struct CGPathArcTests {
    @Test func arcsFollowTheCircle() {
        let path = CGMutablePath()
        path.addArc(center: CGPoint(x: 1, y: 1), radius: 2, startAngle: 0, endAngle: .pi / 2, clockwise: false)
        // A quarter circle from (3, 1) to (1, 3) through (1 + √2, 1 + √2).
        #expect(abs(path.currentPoint.x - 1) < 1e-9 && abs(path.currentPoint.y - 3) < 1e-9)
        let box = path.boundingBoxOfPath
        #expect(abs(box.minX - 1) < 0.01 && abs(box.maxX - 3) < 0.01 && abs(box.maxY - 3) < 0.01)
        // Clockwise from 0 to π/2 is the other three quarters: down through (1, −1).
        let long = CGMutablePath()
        long.addArc(center: CGPoint(x: 1, y: 1), radius: 2, startAngle: 0, endAngle: .pi / 2, clockwise: true)
        #expect(abs(long.boundingBoxOfPath.minY + 1) < 0.01 && abs(long.boundingBoxOfPath.minX + 1) < 0.01)
        // A full circle (end = start + 2π) contains its centre and not a point beyond the radius.
        let circle = CGMutablePath()
        circle.addArc(center: .zero, radius: 1, startAngle: 0, endAngle: 2 * .pi, clockwise: false)
        #expect(circle.contains(.zero) && !circle.contains(CGPoint(x: 0.8, y: 0.8)))
    }

    @Test func roundedRectanglesCutTheirCorners() {
        let rounded = CGPath(roundedRect: CGRect(x: 0, y: 0, width: 10, height: 6), cornerWidth: 2, cornerHeight: 2, transform: nil)
        #expect(rounded.boundingBox == CGRect(x: 0, y: 0, width: 10, height: 6))
        #expect(rounded.contains(CGPoint(x: 5, y: 0.1)) && rounded.contains(CGPoint(x: 1, y: 1)))
        // The corner point (0.2, 0.2) lies outside the quarter circle of radius 2 about (2, 2).
        #expect(!rounded.contains(CGPoint(x: 0.2, y: 0.2)))
    }
}

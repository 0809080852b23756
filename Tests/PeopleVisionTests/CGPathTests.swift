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

import Foundation
import PeopleVision
import Testing

/// Bitmap contexts: layouts, coverage (areas of known shapes), strokes, dashes, fill rules, blend modes, clipping,
/// transforms and images.
@Suite struct CGContextTests {
    static func rgba(_ width: Int, _ height: Int) -> CGContext {
        CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                  space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)!
    }

    /// The bytes of pixel (x, y), y counted from the top row of memory.
    static func bytes(_ c: CGContext, _ x: Int, _ y: Int) -> [UInt8] {
        let p = c.data!.assumingMemoryBound(to: UInt8.self) + y * c.bytesPerRow + x * c.bitsPerPixel / 8
        return (0..<(c.bitsPerPixel / 8)).map { p[$0] }
    }

    /// The painted area: the sum of alpha over every pixel, in pixels.
    static func area(_ c: CGContext) -> Double {
        var sum = 0.0
        for y in 0..<c.height { for x in 0..<c.width { sum += Double(bytes(c, x, y)[3]) / 255 } }
        return sum
    }

    @Test func layoutsAsCoreGraphicsAcceptsThem() {
        let rgb = CGColorSpaceCreateDeviceRGB(), grey = CGColorSpaceCreateDeviceGray()
        func make(_ info: UInt32, space: CGColorSpace = rgb, bpc: Int = 8, bytesPerRow: Int = 0) -> CGContext? {
            CGContext(data: nil, width: 4, height: 4, bitsPerComponent: bpc, bytesPerRow: bytesPerRow, space: space, bitmapInfo: info)
        }
        #expect(make(CGImageAlphaInfo.last.rawValue) == nil)  // straight alpha: refused by Core Graphics too
        #expect(make(CGImageAlphaInfo.none.rawValue) == nil)  // 24-bit RGB
        #expect(make(CGImageAlphaInfo.premultipliedLast.rawValue, bpc: 16) == nil)
        #expect(make(CGImageAlphaInfo.premultipliedLast.rawValue, bytesPerRow: 15) == nil)
        #expect(make(CGImageAlphaInfo.premultipliedLast.rawValue, space: grey) == nil)
        #expect(make(CGImageAlphaInfo.none.rawValue, space: grey)?.bitsPerPixel == 8)
        #expect(make(CGImageAlphaInfo.alphaOnly.rawValue)?.colorSpace == nil)

        // premultipliedFirst in 32-bit little-endian words is B, G, R, A in memory, as camera frames are.
        let bgra = try! #require(make(CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue))
        bgra.setFillColor(red: 1, green: 0.5, blue: 0, alpha: 1)
        bgra.fill(CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(Self.bytes(bgra, 1, 1) == [0, 128, 255, 255])
        // RGBX: the skipped byte is written opaque; premultiplied colours in RGBA.
        let rgbx = try! #require(make(CGImageAlphaInfo.noneSkipLast.rawValue))
        rgbx.setFillColor(red: 0, green: 0, blue: 1, alpha: 1)
        rgbx.fill(CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(Self.bytes(rgbx, 0, 0) == [0, 0, 255, 255])
        let c = Self.rgba(4, 4)
        c.setFillColor(red: 1, green: 0, blue: 0, alpha: 0.5)
        c.fill(CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(Self.bytes(c, 0, 0) == [128, 0, 0, 128])
        // makeImage gives straight alpha.
        let image = try! #require(c.makeImage())
        let p = CFDataGetBytePtr(image.dataProvider!.data)!
        #expect([p[0], p[1], p[2], p[3]] == [255, 0, 0, 128])
        // Grey: Rec. 709 luma of red; alpha-only: the alpha.
        let g = try! #require(make(CGImageAlphaInfo.none.rawValue, space: grey))
        g.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        g.fill(CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(Self.bytes(g, 2, 2) == [54])
        let a = try! #require(make(CGImageAlphaInfo.alphaOnly.rawValue))
        a.setFillColor(gray: 0.2, alpha: 0.6)
        a.fill(CGRect(x: 0, y: 0, width: 2, height: 4))
        #expect(Self.bytes(a, 0, 0) == [153] && Self.bytes(a, 3, 0) == [0])
    }

    @Test func coverageIsTheShapesArea() {
        let c = Self.rgba(64, 64)
        c.fill(CGRect(x: 10.5, y: 10.25, width: 20, height: 10))
        #expect(abs(Self.area(c) - 200) < 0.6)
        // The lower-left origin: a rectangle at y 0..<8 fills the bottom rows of memory.
        let bottom = Self.rgba(16, 16)
        bottom.fill(CGRect(x: 0, y: 0, width: 16, height: 8))
        #expect(Self.bytes(bottom, 3, 15)[3] == 255 && Self.bytes(bottom, 3, 0)[3] == 0)
        let e = Self.rgba(64, 64)
        e.fillEllipse(in: CGRect(x: 2, y: 2, width: 60, height: 60))
        #expect(abs(Self.area(e) - Double.pi * 900) / (Double.pi * 900) < 0.01)
    }

    @Test func strokesCapsJoinsAndDashes() {
        func line(_ cap: CGLineCap, dash: [CGFloat] = []) -> Double {
            let c = Self.rgba(160, 40)
            c.setLineWidth(4)
            c.setLineCap(cap)
            c.setLineDash(phase: 0, lengths: dash)
            c.move(to: CGPoint(x: 30, y: 20))
            c.addLine(to: CGPoint(x: 130, y: 20))
            c.strokePath()
            #expect(c.isPathEmpty)
            return Self.area(c)
        }
        #expect(abs(line(.butt) - 400) < 1)
        #expect(abs(line(.square) - 416) < 1)
        #expect(abs(line(.round) - (400 + Double.pi * 4)) < 1.5)
        #expect(abs(line(.butt, dash: [10, 10]) - 200) < 1)
        // A closed square's outline with miter joins: the outer square minus the inner one.
        let c = Self.rgba(64, 64)
        c.setLineWidth(2)
        c.stroke(CGRect(x: 10, y: 10, width: 40, height: 40))
        #expect(abs(Self.area(c) - (42 * 42 - 38 * 38)) < 1)
    }

    @Test func fillRules() {
        for rule in [CGPathFillRule.winding, .evenOdd] {
            let c = Self.rgba(40, 40)
            c.addRect(CGRect(x: 0, y: 0, width: 40, height: 40))
            c.addRect(CGRect(x: 10, y: 10, width: 20, height: 20))  // same direction as the outer one
            c.fillPath(using: rule)
            #expect(abs(Self.area(c) - (rule == .winding ? 1600 : 1200)) < 0.5)
        }
    }

    @Test func blendModesOnPremultipliedColours() {
        func blended(_ mode: CGBlendMode, under: (CGFloat, CGFloat), over: (CGFloat, CGFloat)) -> [UInt8] {
            let c = Self.rgba(2, 2)
            c.setFillColor(gray: under.0, alpha: under.1)
            c.fill(CGRect(x: 0, y: 0, width: 2, height: 2))
            c.setBlendMode(mode)
            c.setFillColor(gray: over.0, alpha: over.1)
            c.fill(CGRect(x: 0, y: 0, width: 2, height: 2))
            return Self.bytes(c, 0, 0)
        }
        #expect(blended(.multiply, under: (0.4, 1), over: (0.6, 1)) == [61, 61, 61, 255])
        #expect(blended(.screen, under: (0.4, 1), over: (0.6, 1)) == [194, 194, 194, 255])
        #expect(blended(.normal, under: (1, 1), over: (0, 0.5)) == [128, 128, 128, 255])
        #expect(blended(.copy, under: (1, 1), over: (0, 0)) == [0, 0, 0, 0])
        #expect(blended(.destinationOut, under: (1, 1), over: (0, 0.75)) == [64, 64, 64, 64])
        #expect(blended(.destinationIn, under: (1, 1), over: (0, 0.25)) == [64, 64, 64, 64])
        #expect(blended(.difference, under: (0.8, 1), over: (0.2, 1)) == [153, 153, 153, 255])
        #expect(blended(.clear, under: (1, 1), over: (1, 1)) == [0, 0, 0, 0])
        // Every mode keeps components within their alpha.
        for mode in CGBlendMode.allCases {
            let p = blended(mode, under: (0.3, 0.8), over: (0.9, 0.6))
            #expect(p[0] <= p[3], "\(mode) gives \(p)")
        }
    }

    @Test func clipsAndSavedStates() {
        let c = Self.rgba(40, 40)
        c.saveGState()
        c.clip(to: CGRect(x: 0, y: 0, width: 10, height: 40))
        c.fill(CGRect(x: 0, y: 0, width: 40, height: 40))
        #expect(abs(Self.area(c) - 400) < 0.5)
        #expect(c.boundingBoxOfClipPath == CGRect(x: 0, y: 0, width: 10, height: 40))
        c.restoreGState()
        c.fill(CGRect(x: 20, y: 0, width: 10, height: 40))
        #expect(abs(Self.area(c) - 800) < 0.5)
        // Clip to a mask image: white shows, black hides.
        let mask = Self.rgba(2, 1)
        mask.setFillColor(gray: 1, alpha: 1)
        mask.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        mask.setFillColor(gray: 0, alpha: 1)
        mask.fill(CGRect(x: 1, y: 0, width: 1, height: 1))
        let masked = Self.rgba(20, 10)
        masked.setInterpolationNone()
        masked.clip(to: CGRect(x: 0, y: 0, width: 20, height: 10), mask: mask.makeImage()!)
        masked.fill(CGRect(x: 0, y: 0, width: 20, height: 10))
        #expect(Self.bytes(masked, 5, 5)[3] == 255 && Self.bytes(masked, 15, 5)[3] == 0)
    }

    @Test func transformsMovePathsWhenTheyAreAdded() {
        let c = Self.rgba(40, 40)
        c.translateBy(x: 0, y: 40)
        c.scaleBy(x: 1, y: -1)
        c.move(to: CGPoint(x: 0, y: 0))
        c.addLine(to: CGPoint(x: 10, y: 0))
        c.addLine(to: CGPoint(x: 10, y: 10))
        c.addLine(to: CGPoint(x: 0, y: 10))
        c.closePath()
        c.scaleBy(x: 2, y: 2)  // after the points: they do not move
        c.fillPath()
        // Top-left origin after the flip: the square is in the first rows of memory.
        #expect(Self.bytes(c, 5, 5)[3] == 255 && Self.bytes(c, 15, 5)[3] == 0 && Self.bytes(c, 5, 35)[3] == 0)
        // The scale does apply to the line width of later strokes.
        c.setLineWidth(1)
        c.move(to: CGPoint(x: 0, y: 15))
        c.addLine(to: CGPoint(x: 20, y: 15))
        c.strokePath()
        #expect(abs(Self.area(c) - 100 - 80) < 1)
    }

    @Test func imagesScaleAndTile() {
        let source = Self.rgba(2, 1)
        source.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        source.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        source.setFillColor(red: 0, green: 0, blue: 1, alpha: 1)
        source.fill(CGRect(x: 1, y: 0, width: 1, height: 1))
        let image = source.makeImage()!
        let nearest = Self.rgba(8, 2)
        nearest.interpolationQuality = .none
        nearest.draw(image, in: CGRect(x: 0, y: 0, width: 8, height: 2))
        #expect(Self.bytes(nearest, 3, 0) == [255, 0, 0, 255] && Self.bytes(nearest, 4, 1) == [0, 0, 255, 255])
        // Bilinear: the middle is a mix.
        let smooth = Self.rgba(8, 2)
        smooth.draw(image, in: CGRect(x: 0, y: 0, width: 8, height: 2))
        let middle = Self.bytes(smooth, 4, 0)
        #expect(middle[0] > 60 && middle[2] > 60)
        // Tiled at 2×1: the pattern repeats across the canvas.
        let tiled = Self.rgba(8, 2)
        tiled.interpolationQuality = .none
        tiled.draw(image, in: CGRect(x: 0, y: 0, width: 2, height: 1), byTiling: true)
        #expect(Self.bytes(tiled, 6, 1) == [255, 0, 0, 255] && Self.bytes(tiled, 7, 0) == [0, 0, 255, 255])
    }
}

extension CGContext {
    fileprivate func setInterpolationNone() { interpolationQuality = .none }
}

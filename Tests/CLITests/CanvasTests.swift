import PVImaging
import Testing

@testable import peoplevision

/// The overlay canvas: shapes land where asked, antialiased, and nothing else changes.
@Suite struct CanvasTests {
    static func grey(_ width: Int = 64, _ height: Int = 48) throws -> PixelBuffer {
        var b = try PixelBuffer(width: width, height: height, format: .rgba32)
        b.withUnsafeMutableBytes { p in for k in 0..<p.count { p[k] = k % 4 == 3 ? 255 : 100 } }
        return b
    }

    static func pixel(_ c: Canvas, _ x: Int, _ y: Int) -> [UInt8] {
        c.picture.withUnsafeBytes { p in
            let o = y * c.picture.bytesPerRow() + 4 * x
            return [p[o], p[o + 1], p[o + 2], p[o + 3]]
        }
    }

    @Test func lineCoversItsPixelsOnly() throws {
        var c = try Canvas(Self.grey())
        c.line(SIMD2(10, 20.5), SIMD2(50, 20.5), color: .red, width: 2.5)
        #expect(Self.pixel(c, 30, 20) == [235, 40, 40, 255])
        #expect(Self.pixel(c, 30, 10) == [100, 100, 100, 255])
        #expect(Self.pixel(c, 5, 20) == [100, 100, 100, 255])
        // The next row's centre is 1 px from the axis, 0.25 px outside the half-width: partly covered.
        #expect(Self.pixel(c, 30, 22) == [100, 100, 100, 255])
        let edge = Self.pixel(c, 30, 21)
        #expect(edge[0] > 100 && edge[0] < 235)
    }

    @Test func shapesOutsideThePictureAreClipped() throws {
        var c = try Canvas(Self.grey())
        c.line(SIMD2(-100, -100), SIMD2(-10, -50), color: .red)
        c.dot(SIMD2(1000, 1000), radius: 5, color: .red)
        c.text("far away", at: SIMD2(500, 500), color: .white)
        c.line(SIMD2(.nan, 0), SIMD2(3, 3), color: .red)
        let before = try Self.grey()
        let same = c.picture.withUnsafeBytes { a in before.withUnsafeBytes { b in a.elementsEqual(b) } }
        #expect(same)
    }

    @Test func textDrawsGlyphPixelsInsideItsBox() throws {
        var c = try Canvas(Self.grey(80, 30))
        c.text("I1", at: SIMD2(2, 2), color: .white, scale: 2)
        // "I": top bar spans columns 1-3 of the glyph; glyph pixel (2, 0) → canvas (2 + 2 + 4, 2 + 2).
        #expect(Self.pixel(c, 8, 4) == [255, 255, 255, 255])
        // Box background darkens, beyond the box nothing changes.
        #expect(Self.pixel(c, 3, 3)[0] < 100)
        #expect(Self.pixel(c, 2 + Canvas.textWidth("I1", scale: 2) + 1, 4) == [100, 100, 100, 255])
        #expect(BitmapFont.glyph(for: "a") == BitmapFont.glyph(for: "A"))
        #expect(BitmapFont.glyph(for: "€") == BitmapFont.glyph(for: "?"))
    }

    @Test func tintFollowsTheMask() throws {
        var c = try Canvas(Self.grey(4, 2))
        var mask = try PixelBuffer(width: 4, height: 2, format: .oneComponent8)
        mask.withUnsafeMutableBytes { p in p[0] = 255 }
        try c.tint(mask: mask, color: .black, opacity: 1)
        #expect(Self.pixel(c, 0, 0) == [0, 0, 0, 255])
        #expect(Self.pixel(c, 3, 1) == [100, 100, 100, 255])
    }

    @Test func normalizedPointsHaveALowerLeftOrigin() throws {
        let c = try Canvas(Self.grey(200, 100))
        #expect(c.point(normalized: SIMD2(0, 0)) == SIMD2(0, 100))
        #expect(c.point(normalized: SIMD2(0.5, 0.75)) == SIMD2(100, 25))
    }

    @Test func huesAreSaturated() {
        #expect(Canvas.Color(hue: 0) == Canvas.Color(r: 255, g: 0, b: 0))
        #expect(Canvas.Color(hue: 1.0 / 3) == Canvas.Color(r: 0, g: 255, b: 0))
        #expect(Canvas.Color(hue: -1.0 / 3) == Canvas.Color(r: 0, g: 0, b: 255))
    }
}

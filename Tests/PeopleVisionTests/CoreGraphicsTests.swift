import Foundation
import PVImaging
import Testing

import PeopleVision

@Suite("Core Graphics: affine transforms, geometry, colour spaces, CGImage")
struct CoreGraphicsTests {
    func close(_ a: CGAffineTransform, _ b: CGAffineTransform, _ tolerance: CGFloat = 1e-9) -> Bool {
        abs(a.a - b.a) < tolerance && abs(a.b - b.b) < tolerance && abs(a.c - b.c) < tolerance && abs(a.d - b.d) < tolerance
            && abs(a.tx - b.tx) < tolerance && abs(a.ty - b.ty) < tolerance
    }

    @Test("constructors and the C functions agree")
    func constructors() {
        #expect(CGAffineTransform.identity.isIdentity)
        #expect(CGAffineTransform() == CGAffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 0, ty: 0))
        #expect(CGAffineTransformMakeScale(2, 3) == CGAffineTransform(scaleX: 2, y: 3))
        #expect(CGAffineTransformMakeTranslation(4, 5) == CGAffineTransform(translationX: 4, y: 5))
        #expect(CGAffineTransformMakeRotation(0.3) == CGAffineTransform(rotationAngle: 0.3))
        #expect(__CGAffineTransformMake(1, 2, 3, 4, 5, 6) == CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6))
        #expect(CGAffineTransformMake(1, 2, 3, 4, 5, 6) == CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6))
        #expect(CGAffineTransformIsIdentity(.identity))
    }

    @Test("points map as (a·x + c·y + tx, b·x + d·y + ty); rotation is counter-clockwise")
    func pointMapping() {
        let t = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        #expect(CGPoint(x: 1, y: 1).applying(t) == CGPoint(x: 9, y: 12))
        let r = CGPoint(x: 1, y: 0).applying(CGAffineTransform(rotationAngle: .pi / 2))
        #expect(abs(r.x) < 1e-12 && abs(r.y - 1) < 1e-12)
        #expect(CGSize(width: 2, height: 3).applying(CGAffineTransform(scaleX: 2, y: -1).translatedBy(x: 100, y: 100)) == CGSize(width: 4, height: -3))
    }

    @Test("concatenating applies self first; scaledBy/translatedBy/rotated apply the new step first")
    func composition() {
        let scale = CGAffineTransform(scaleX: 2, y: 2), move = CGAffineTransform(translationX: 10, y: 0)
        let p = CGPoint(x: 1, y: 1)
        #expect(p.applying(scale.concatenating(move)) == CGPoint(x: 12, y: 2))
        #expect(p.applying(move.concatenating(scale)) == CGPoint(x: 22, y: 2))
        #expect(move.scaledBy(x: 2, y: 2) == scale.concatenating(move))
        #expect(scale.translatedBy(x: 10, y: 0) == move.concatenating(scale))
        #expect(close(move.rotated(by: 0.5), CGAffineTransform(rotationAngle: 0.5).concatenating(move)))
        #expect(CGAffineTransformConcat(scale, move) == scale.concatenating(move))
    }

    @Test("inverted undoes a transform; a singular one comes back unchanged")
    func inversion() {
        let t = CGAffineTransform(a: 2, b: 1, c: -1, d: 3, tx: 7, ty: -4)
        #expect(close(t.concatenating(t.inverted()), .identity))
        let p = CGPoint(x: 3, y: -2)
        let back = p.applying(t).applying(t.inverted())
        #expect(abs(back.x - p.x) < 1e-12 && abs(back.y - p.y) < 1e-12)
        let singular = CGAffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 1, ty: 1)
        #expect(singular.inverted() == singular)
        #expect(CGAffineTransformInvert(t) == t.inverted())
    }

    @Test("rects map to the bounding box of their corners; null and infinite stay so")
    func rectMapping() {
        let r = CGRect(x: 0, y: 0, width: 4, height: 2)
        #expect(r.applying(CGAffineTransform(scaleX: 2, y: -1)) == CGRect(x: 0, y: -2, width: 8, height: 2))
        let rotated = r.applying(CGAffineTransform(rotationAngle: .pi / 2))
        #expect(abs(rotated.minX + 2) < 1e-12 && abs(rotated.width - 2) < 1e-12 && abs(rotated.height - 4) < 1e-12)
        #expect(CGRect.null.applying(CGAffineTransform(scaleX: 2, y: 2)).isNull)
        #expect(CGRect.infinite.applying(CGAffineTransform(scaleX: 2, y: 2)).isInfinite)
    }

    @Test("colour spaces by name, models, device spaces")
    func colorSpaces() throws {
        #expect(try #require(CGColorSpace(name: CGColorSpace.sRGB)).model == .rgb)
        #expect(try #require(CGColorSpace(name: CGColorSpace.linearSRGB)).isLinear)
        #expect(try #require(CGColorSpace(name: CGColorSpace.extendedSRGB)).numberOfComponents == 3)
        #expect(try #require(CGColorSpace(name: CGColorSpace.genericGrayGamma2_2)).model == .monochrome)
        #expect(try #require(CGColorSpace(name: CGColorSpace.linearGray)).numberOfComponents == 1)
        #expect(CGColorSpace(name: "no such space") == nil)
        #expect(CGColorSpaceCreateDeviceRGB().model == .rgb)
        #expect(CGColorSpaceGetModel(CGColorSpaceCreateDeviceGray()) == .monochrome)
        #expect(CGColorSpace.sRGB == "kCGColorSpaceSRGB")
    }

    @Test("CGImage.cropping(to:) uses top-left pixel coordinates and clips")
    func cropping() throws {
        var pixels = try PixelBuffer(width: 4, height: 3, format: .rgba32)
        let row = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { bytes in
            for y in 0..<3 { for x in 0..<4 { bytes[y * row + 4 * x] = UInt8(10 * y + x); bytes[y * row + 4 * x + 3] = 255 } }
        }
        let image = CGImage(buffer: pixels)
        let crop = try #require(image.cropping(to: CGRect(x: 1, y: 1, width: 10, height: 10)))
        #expect(crop.width == 3 && crop.height == 2)
        #expect(crop.pixel(x: 0, y: 0).r == 11)
        #expect(crop.pixel(x: 2, y: 1).r == 23)
        #expect(image.cropping(to: CGRect(x: 5, y: 5, width: 2, height: 2)) == nil)
        #expect(image.colorSpace?.model == .rgb)
    }
}

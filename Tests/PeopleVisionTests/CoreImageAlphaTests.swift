import Foundation
import PeopleVision
import Testing

/// Alpha handling, opacity, metadata and 16-bit pixels of CIImage.
@Suite("Core Image: alpha, opacity and metadata")
struct CoreImageAlphaTests {
    /// One pixel of premultiplied RGBA bytes.
    func pixel(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8) -> CIImage {
        CIImage(bitmapData: Data([r, g, b, a]), bytesPerRow: 4, size: CGSize(width: 1, height: 1), format: .RGBA8, colorSpace: nil)
    }

    @Test func premultiplyingAndUnpremultiplying() {
        // Premultiplied (50, 100, 0, 128) is straight (99.6, 199.2, 0) at alpha 128/255.
        let straight = CITest.rgba(pixel(50, 100, 0, 128).unpremultiplyingAlpha())[0][0]
        #expect(abs(Int(straight[0]) - 100) <= 1 && abs(Int(straight[1]) - 199) <= 1 && straight[3] == 128)
        // Straight (200, 100, 50) at alpha 51 (0.2) premultiplies to (40, 20, 10).
        let premultiplied = CITest.rgba(pixel(200, 100, 50, 51).premultiplyingAlpha())[0][0]
        #expect(premultiplied == SIMD4(40, 20, 10, 51))
        let roundTrip = CITest.rgba(pixel(50, 100, 0, 128).unpremultiplyingAlpha().premultiplyingAlpha())[0][0]
        #expect(CITest.maxDifference(roundTrip, SIMD4(50, 100, 0, 128)) <= 1)
    }

    @Test func settingAlphaOneMakesAnOpaqueImageOverBlack() {
        let image = pixel(50, 100, 0, 128)
        #expect(!image.isOpaque)
        let opaque = image.settingAlphaOne(in: CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(opaque.isOpaque)
        #expect(opaque.extent == CGRect(x: 0, y: 0, width: 2, height: 1))
        let out = CITest.rgba(opaque)
        // The pixel over black, and opaque black where the image was clear.
        #expect(out[0][0] == SIMD4(50, 100, 0, 255) && out[0][1] == SIMD4(0, 0, 0, 255))
        #expect(CIImage(color: .red).isOpaque && !CIImage(color: .clear).isOpaque)
        let grey = CIImage(bitmapData: Data([9]), bytesPerRow: 1, size: CGSize(width: 1, height: 1), format: .L8, colorSpace: nil)
        #expect(grey.isOpaque && grey.cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1)).isOpaque)
    }

    @Test func sixteenBitPixelsRoundTrip() {
        // 0x8080 / 257 = 128; 0xFFFF = 255.
        let words: [UInt16] = [0x8080, 0, 0x2020, 0xFFFF]
        let data = words.withUnsafeBytes { Data($0) }
        let image = CIImage(bitmapData: data, bytesPerRow: 8, size: CGSize(width: 1, height: 1), format: .RGBA16, colorSpace: nil)
        #expect(CITest.rgba(image)[0][0] == SIMD4(128, 0, 32, 255))
        var out = [UInt16](repeating: 1, count: 4)
        out.withUnsafeMutableBytes { raw in
            CIContext().render(
                image, toBitmap: raw.baseAddress!, rowBytes: 8, bounds: image.extent, format: .RGBA16, colorSpace: nil)
        }
        // 8-bit storage, widened: 128·257, 0, 32·257, 65535.
        #expect(out == [128 * 257, 0, 32 * 257, 65535])
    }

    @Test func metadataAndOrientation() throws {
        let directory = try CITest.temporaryDirectory()
        let url = directory.appendingPathComponent("one.png")
        try CIContext().writePNGRepresentation(
            of: pixel(1, 2, 3, 255), to: url, format: .RGBA8, colorSpace: CITest.sRGB)
        let image = try #require(CIImage(contentsOf: url))
        #expect(image.url == url)
        #expect(pixel(1, 2, 3, 255).url == nil)
        let tagged = image.settingProperties(["Orientation": 6, 7: "dropped"])
        #expect(tagged.properties["Orientation"] as? Int == 6 && tagged.properties.count == 1)
        #expect(tagged.url == url)
        let wide = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 2))
        #expect(wide.orientationTransform(forExifOrientation: 6) == wide.orientationTransform(for: .right))
        #expect(wide.orientationTransform(forExifOrientation: 9) == .identity)
        #expect(CIColor(red: 0.5, green: 0.25, blue: 1).alpha == 1)
    }
}

/// `samplingNearest()`: scaled-up pixels keep hard edges.
@Suite("Core Image: nearest sampling")
struct CoreImageSamplingTests {
    @Test func nearestSamplingCopiesWholePixels() {
        // Two pixels, black then white, scaled up 4×: nearest sampling gives 4 black then 4 white columns.
        let image = CIImage(
            bitmapData: Data([0, 255]), bytesPerRow: 2, size: CGSize(width: 2, height: 1), format: .L8, colorSpace: nil)
        let scale = CGAffineTransform(scaleX: 4, y: 4)
        let nearest = CITest.rgba(image.samplingNearest().transformed(by: scale))
        #expect(nearest.count == 4 && nearest[0].count == 8)
        for row in nearest { #expect(row.map { $0[0] } == [0, 0, 0, 0, 255, 255, 255, 255]) }
        // Bilinear sampling blends across the edge; samplingLinear() undoes samplingNearest().
        let linear = CITest.rgba(image.samplingNearest().samplingLinear().transformed(by: scale))
        #expect(linear[0][3][0] > 0 && linear[0][3][0] < 255)
        // A rotation by a quarter turn about a point that is not a pixel corner still copies pixels.
        let turned = image.samplingNearest().transformed(by: CGAffineTransform(rotationAngle: .pi / 2).scaledBy(x: 3, y: 3))
        let values = Set(CITest.rgba(turned).flatMap { $0 }.filter { $0[3] == 255 }.map { $0[0] })
        #expect(values == [0, 255])
    }
}

import Foundation
import PVImaging
import PeopleVision
import Testing

@Suite("Core Image: coordinates, extents and sources")
struct CoreImageCoordinateTests {
    /// 4 × 3 BGRA buffer: the top row (first in memory) red, the bottom row blue, the middle green;
    /// column 0 has alpha 254 to tell columns apart.
    func stripes() -> CVPixelBuffer {
        CITest.buffer(4, 3, kCVPixelFormatType_32BGRA) { x, y in
            let a: UInt8 = x == 0 ? 254 : 255
            switch y {
            case 0: return [0, 0, a, a]  // red (B, G, R, A)
            case 1: return [0, a, 0, a]
            default: return [a, 0, 0, a]
            }
        }
    }

    @Test("a buffer's extent is (0, 0, w, h) and its first row in memory is the top strip y ∈ [h−1, h)")
    func lowerLeftOrigin() {
        let image = CIImage(cvPixelBuffer: stripes())
        #expect(image.extent == CGRect(x: 0, y: 0, width: 4, height: 3))
        let top = CITest.rgba(image, CGRect(x: 0, y: 2, width: 4, height: 1))
        #expect(top[0][1] == SIMD4(255, 0, 0, 255))
        let bottom = CITest.rgba(image, CGRect(x: 0, y: 0, width: 4, height: 1))
        #expect(bottom[0][1] == SIMD4(0, 0, 255, 255))
        // Rendering the whole extent returns rows top first, as stored.
        let all = CITest.rgba(image)
        #expect(all[0][3] == SIMD4(255, 0, 0, 255) && all[1][3] == SIMD4(0, 255, 0, 255) && all[2][3] == SIMD4(0, 0, 255, 255))
        // Columns run left to right.
        #expect(all[0][0][3] == 254 && all[0][1][3] == 255)
    }

    @Test("a pixel at the top of a CVPixelBuffer appears at the top of a written PNG")
    func topStaysTopInFiles() throws {
        let directory = try CITest.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("stripes.png")
        try CIContext().writePNGRepresentation(
            of: CIImage(cvPixelBuffer: stripes()), to: url, format: .RGBA8, colorSpace: CITest.sRGB)
        let decoded = try ImageDecoder.decode(contentsOf: url).pixels
        #expect(decoded.width == 4 && decoded.height == 3)
        decoded.withUnsafeBytes { bytes in
            let row = decoded.bytesPerRow()
            #expect(Array(bytes[4..<8]) == [255, 0, 0, 255])  // top row, column 1: red
            #expect(Array(bytes[(2 * row + 4)..<(2 * row + 8)]) == [0, 0, 255, 255])  // bottom row: blue
        }
        // And back in: the PNG's top row is again the top strip.
        let reloaded = try #require(CIImage(contentsOf: url))
        #expect(CITest.rgba(reloaded, CGRect(x: 1, y: 2, width: 1, height: 1))[0][0] == SIMD4(255, 0, 0, 255))
    }

    @Test("cropping keeps working-space coordinates; outside the extent is clear")
    func crops() {
        let image = CIImage(cvPixelBuffer: stripes())
        let top = image.cropped(to: CGRect(x: 1, y: 2, width: 10, height: 10))
        #expect(top.extent == CGRect(x: 1, y: 2, width: 3, height: 1))
        let pixels = CITest.rgba(top, CGRect(x: 0, y: 1, width: 4, height: 2))
        #expect(pixels[0][0] == .zero && pixels[0][1] == SIMD4(255, 0, 0, 255))  // y = 2 row: x = 0 cropped away
        #expect(pixels[1][1] == .zero)  // y = 1 is outside the crop
        #expect(image.cropped(to: CGRect(x: 10, y: 10, width: 1, height: 1)).extent.isEmpty)
    }

    @Test("transforms move extents: translation, scale, rotation bounding box, merged chains")
    func transformExtents() {
        let image = CIImage(cvPixelBuffer: stripes())
        #expect(image.transformed(by: CGAffineTransform(translationX: 5, y: -2)).extent == CGRect(x: 5, y: -2, width: 4, height: 3))
        #expect(image.transformed(by: CGAffineTransform(scaleX: 2.5, y: 2)).extent == CGRect(x: 0, y: 0, width: 10, height: 6))
        let rotated = image.transformed(by: CGAffineTransform(rotationAngle: .pi / 2)).extent
        #expect(abs(rotated.minX + 3) < 1e-9 && abs(rotated.width - 3) < 1e-9 && abs(rotated.height - 4) < 1e-9)
        let back = image.transformed(by: CGAffineTransform(scaleX: 2, y: 2)).transformed(by: CGAffineTransform(scaleX: 0.5, y: 0.5))
        #expect(back.extent == image.extent)
        #expect(CITest.rgba(back) == CITest.rgba(image))
        // A whole-pixel translation copies pixels exactly.
        let moved = image.transformed(by: CGAffineTransform(translationX: 10, y: 20))
        #expect(CITest.rgba(moved) == CITest.rgba(image))
    }

    @Test("scaling a mask to the image size samples bilinearly with clear beyond the edges, as Core Image")
    func bilinearScale() {
        // 2 × 1 grey mask 0 | 255 scaled ×4 horizontally.
        let mask = CIImage(cvPixelBuffer: CITest.buffer(2, 1, kCVPixelFormatType_OneComponent8) { x, _ in [x == 0 ? 0 : 255] })
        let scaled = mask.transformed(by: CGAffineTransform(scaleX: 4, y: 1))
        #expect(scaled.extent == CGRect(x: 0, y: 0, width: 8, height: 1))
        let red = CITest.rgba(scaled)[0].map { Int($0[0]) }
        // Source positions (x + 0.5)/4 − 0.5: −0.375, −0.125, 0.125, 0.375, 0.625, 0.875, 1.125, 1.375.
        // Premultiplied red: beyond x = 1 the clear neighbour pulls it down with the alpha.
        let expected = [0, 0, 0.125, 0.375, 0.625, 0.875, 0.875, 0.625].map { Int(($0 * 255).rounded()) }
        #expect(zip(red, expected).allSatisfy { abs($0 - $1) <= 1 }, "\(red) vs \(expected)")
        // Alpha fades at the outer edges (clear beyond the extent) …
        let alpha = CITest.rgba(scaled)[0].map { Int($0[3]) }
        #expect(alpha == [159, 223, 255, 255, 255, 255, 223, 159], "\(alpha)")
        // … unless the image is clamped first.
        let clamped = mask.clampedToExtent().transformed(by: CGAffineTransform(scaleX: 4, y: 1)).cropped(to: scaled.extent)
        #expect(CITest.rgba(clamped)[0].allSatisfy { $0[3] == 255 })
    }

    @Test("oriented(_:) matches PVImaging's EXIF orientation for all eight cases, extent at the origin", arguments: CGImagePropertyOrientation.allCases)
    func orientation(_ orientation: CGImagePropertyOrientation) throws {
        var pixels = try PixelBuffer(width: 5, height: 3, format: .rgba32)
        let row = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { bytes in
            for y in 0..<3 { for x in 0..<5 { bytes[y * row + 4 * x] = UInt8(10 * y + x); bytes[y * row + 4 * x + 3] = 255 } }
        }
        let expected = try pixels.applying(Orientation(rawValue: orientation.rawValue)!)
        let image = CIImage(cvPixelBuffer: CITest.buffer(5, 3, kCVPixelFormatType_32RGBA) { x, y in [UInt8(10 * y + x), 0, 0, 255] })
            .transformed(by: CGAffineTransform(translationX: 7, y: -3))  // the origin must not matter
        let oriented = image.oriented(orientation)
        #expect(oriented.extent == CGRect(x: 0, y: 0, width: expected.width, height: expected.height))
        let rendered = CITest.rgba(oriented)
        expected.withUnsafeBytes { bytes in
            for y in 0..<expected.height {
                for x in 0..<expected.width {
                    #expect(rendered[y][x][0] == bytes[y * expected.bytesPerRow() + 4 * x], "(\(x), \(y))")
                }
            }
        }
        #expect(CITest.rgba(image.oriented(forExifOrientation: Int32(orientation.rawValue))) == rendered)
    }

    @Test("one-component buffers read as grey with opaque alpha: value in R, G and B", arguments: ["L008", "L00h", "L00f"])
    func oneComponent(_ kind: String) {
        let buffer: CVPixelBuffer
        switch kind {
        case "L008": buffer = CITest.buffer(3, 2, kCVPixelFormatType_OneComponent8) { x, y in [UInt8(40 * x + 100 * y)] }
        default: buffer = CITest.floatBuffer(3, 2, half: kind == "L00h") { x, y in Float(40 * x + 100 * y) / 255 }
        }
        let pixels = CITest.rgba(CIImage(cvPixelBuffer: buffer))
        for y in 0..<2 {
            for x in 0..<3 {
                let v = 40 * x + 100 * y
                let p = pixels[y][x]
                #expect(abs(Int(p[0]) - v) <= 0 && p[0] == p[1] && p[1] == p[2] && p[3] == 255, "\(kind) (\(x), \(y)): \(p)")
            }
        }
    }

    @Test("4:2:0 buffers are converted to RGB like PVImaging does")
    func yuvSource() throws {
        var rgba = try PixelBuffer(width: 4, height: 4, format: .rgba32)
        let row = rgba.bytesPerRow()
        rgba.withUnsafeMutableBytes { bytes in
            for i in 0..<(4 * row) where i % 4 != 3 { bytes[i] = 128 }
            for y in 0..<4 { for x in 0..<4 { bytes[y * row + 4 * x + 3] = 255 } }
        }
        var out: CVPixelBuffer?
        CVPixelBufferCreate(nil, 4, 4, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, nil, &out)
        let yuv = try #require(out)
        var converted = yuv.pixelBuffer
        try rgba.convert(into: &converted)
        yuv.replace(with: converted)
        let pixel = CITest.rgba(CIImage(cvPixelBuffer: yuv))[1][1]
        #expect(CITest.maxDifference(pixel, SIMD4(128, 128, 128, 255)) <= 1)
    }

    @Test("colours are infinite; crops make them finite; composites take the union")
    func colorsAndUnions() {
        let red = CIImage(color: .red)
        #expect(red.extent.isInfinite)
        let square = red.cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        #expect(square.extent == CGRect(x: 0, y: 0, width: 2, height: 2))
        let other = CIImage(color: CIColor(red: 0, green: 0, blue: 1, alpha: 0.5)).cropped(to: CGRect(x: 1, y: 1, width: 3, height: 3))
        let composite = other.composited(over: square)
        #expect(composite.extent == CGRect(x: 0, y: 0, width: 4, height: 4))
        let pixels = CITest.rgba(composite)
        // Top row (y = 3): only the half-transparent blue.
        #expect(CITest.maxDifference(pixels[0][1], SIMD4(0, 0, 128, 128)) <= 1)
        // (1, 1): blue at 50% over red.
        #expect(CITest.maxDifference(pixels[2][1], SIMD4(128, 0, 128, 255)) <= 1)
        #expect(CIImage.empty().extent.isNull)
        #expect(CIImage.black.extent.isInfinite)
    }

    @Test("clampedToExtent repeats edge pixels forever")
    func clamp() {
        let image = CIImage(cvPixelBuffer: stripes())
        let clamped = image.clampedToExtent()
        #expect(clamped.extent.isInfinite)
        let far = CITest.rgba(clamped, CGRect(x: -5, y: 10, width: 1, height: 1))[0][0]  // above-left: top-left pixel
        #expect(far == SIMD4(254, 0, 0, 254))
        let below = CITest.rgba(clamped, CGRect(x: 100, y: -50, width: 1, height: 1))[0][0]  // below-right: bottom-right
        #expect(below == SIMD4(0, 0, 255, 255))
    }

    @Test("CGImage sources: straight alpha is premultiplied on read and restored by createCGImage")
    func cgImageRoundTrip() throws {
        var pixels = try PixelBuffer(width: 3, height: 2, format: .rgba32)
        let row = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { bytes in
            for y in 0..<2 { for x in 0..<3 { for c in 0..<4 { bytes[y * row + 4 * x + c] = CITest.noise(x, y, c) | (c == 3 ? 0x80 : 0) } } }
        }
        let context = CIContext()
        let image = CIImage(pixels: pixels)
        let cg = try #require(context.createCGImage(image, from: image.extent))
        #expect(cg.width == 3 && cg.height == 2)
        for y in 0..<2 {
            for x in 0..<3 {
                let p = cg.pixel(x: x, y: y)
                pixels.withUnsafeBytes { bytes in
                    let i = y * row + 4 * x
                    #expect(abs(Int(p.r) - Int(bytes[i])) <= 1 && abs(Int(p.g) - Int(bytes[i + 1])) <= 1)
                    #expect(abs(Int(p.b) - Int(bytes[i + 2])) <= 1 && p.a == bytes[i + 3])
                }
            }
        }
        let again = try #require(context.createCGImage(CIImage(cgImage: cg), from: CGRect(x: 0, y: 0, width: 3, height: 2)))
        for y in 0..<2 { for x in 0..<3 { #expect(again.pixel(x: x, y: y) == cg.pixel(x: x, y: y)) } }
        #expect(CIImage(cgImage: cg).cgImage === cg)
    }
}

import Foundation
import PVTestSupport
import Testing

@testable import PVImaging

/// Encode → decode round trips of every format and pixel type, on generated images.
/// Lossless paths must be exact; lossy paths are held to a PSNR floor.
@Suite struct CodecsRoundTripTests {
    static let eightBitFormats: [PixelFormat] = [.oneComponent8, .rgb24, .rgba32, .bgra32, .argb32]

    @Test("PNG 8-bit round trip is exact", arguments: eightBitFormats)
    func png8(format: PixelFormat) throws {
        let image = try CodecFixtures.noise(width: 37, height: 23, format: format, seed: 7)
        let data = try ImageEncoder.encode(image, as: .png)
        #expect(try ImageFormat(sniffing: data) == .png)
        let decoded = try ImageDecoder.decode(data: data)
        #expect(decoded.format == .png)
        #expect(decoded.pixels.format == (format == .oneComponent8 ? .oneComponent8 : .rgba32))
        #expect(decoded.hasAlpha == [.rgba32, .bgra32, .argb32].contains(format))
        #expect(CodecFixtures.rgba(decoded.pixels) == CodecFixtures.rgba(image))
    }

    @Test("PNG of large images, in one band or several, decodes to the pixels and EXIF it was given", arguments: eightBitFormats)
    func pngBands(format: PixelFormat) throws {
        // Odd sizes leave a short last band; 3 threads make three bands, each starting mid-image.
        let image = try CodecFixtures.noise(width: 613, height: 577, format: format, seed: 11)
        let exif = CodecFixtures.exifTIFF(orientation: 1, bigEndian: false)
        let single = try PNGCodec.encode(image, exif: exif, threads: 1)
        for threads in [1, 2, 3] {
            let banded = threads == 1 ? single : try PNGCodec.encode(image, exif: exif, threads: threads)
            #expect(threads == 1 || banded != single, "\(threads) threads: the bands are joined into one stream")
            let decoded = try ImageDecoder.decode(data: banded)
            // Counted, not compared as arrays: a failed comparison of 350,000 pixels would take the test runner ages to print.
            let wrong = zip(CodecFixtures.rgba(decoded.pixels), CodecFixtures.rgba(image)).filter { $0 != $1 }.count
            #expect(decoded.pixels.width == image.width && decoded.pixels.height == image.height)
            #expect(wrong == 0, "\(threads) threads: \(wrong) pixels differ")
            #expect(decoded.exif.map { [UInt8]($0) } == exif, "\(threads) threads: EXIF kept")
            #expect(decoded.hasAlpha == [.rgba32, .bgra32, .argb32].contains(format))
        }
        // Smooth content compresses: the banded file is no bigger than a tenth above the one-piece file.
        let smooth = try CodecFixtures.color(width: 700, height: 600, format: format == .oneComponent8 ? .rgba32 : format)
        let one = try PNGCodec.encode(smooth, threads: 1), two = try PNGCodec.encode(smooth, threads: 2)
        #expect(Double(two.count) <= 1.1 * Double(one.count), "\(two.count) against \(one.count) bytes")
        let wrong = zip(CodecFixtures.rgba(try ImageDecoder.decode(data: two).pixels), CodecFixtures.rgba(smooth)).filter { $0 != $1 }.count
        #expect(wrong == 0, "\(wrong) pixels differ")
    }

    @Test func png16BitGrayIsExactAsFloatAndRoundedAs8Bit() throws {
        let image = try CodecFixtures.unitFloats(width: 41, height: 19)
        let data = try ImageEncoder.encode(image, as: .png)
        #expect([UInt8](data)[24] == 16)  // IHDR bit depth
        #expect([UInt8](data)[25] == 0)  // grey
        let exact = try ImageDecoder.decode(data: data, options: .init(keepsSixteenBitGray: true))
        #expect(exact.pixels.format == .oneComponent32Float)
        #expect(CodecFixtures.identical(exact.pixels, image))

        let rounded = try ImageDecoder.decode(data: data)
        #expect(rounded.pixels.format == .oneComponent8)
        #expect(CodecFixtures.maxDifference(rounded.pixels, image) <= 0.5 + 1e-9)
    }

    @Test func halfFloatEncodesAs16BitPNG() throws {
        var image = try PixelBuffer(width: 16, height: 4, format: .oneComponent16Half)
        let row = image.bytesPerRow()
        // Half bits of k/8 for k = 0...8: exact in half precision.
        let halves: [UInt16] = [0x0000, 0x3000, 0x3400, 0x3600, 0x3800, 0x3900, 0x3A00, 0x3B00, 0x3C00]
        image.withUnsafeMutableBytes { bytes in
            for y in 0..<4 {
                for x in 0..<16 {
                    bytes.storeBytes(of: halves[(x + y) % 9], toByteOffset: y * row + 2 * x, as: UInt16.self)
                }
            }
        }
        let decoded = try ImageDecoder.decode(
            data: try ImageEncoder.encode(image, as: .png), options: .init(keepsSixteenBitGray: true))
        for y in 0..<4 {
            for x in 0..<16 {
                let expected = Double((x + y) % 9) / 8 * 65535
                #expect(abs(Double(CodecFixtures.pixel(decoded.pixels, x, y)[0]) - expected) <= 0.5)
            }
        }
    }

    @Test("JPEG colour round trip within PSNR", arguments: [PixelFormat.rgba32, .rgb24, .bgra32, .argb32])
    func jpegColor(format: PixelFormat) throws {
        let image = try CodecFixtures.color(width: 96, height: 64, format: format)
        for quality in [75, 95] {
            let decoded = try ImageDecoder.decode(data: try ImageEncoder.encode(image, as: .jpeg(quality: quality)))
            #expect(decoded.format == .jpeg)
            #expect(decoded.pixels.format == .rgba32)
            #expect(decoded.pixels.width == 96 && decoded.pixels.height == 64)
            #expect(CodecFixtures.psnr(decoded.pixels, image) > (quality == 95 ? 40 : 34))
            #expect(CodecFixtures.pixel(decoded.pixels, 5, 5)[3] == 255)
        }
    }

    @Test func jpegGrayStaysOneComponent() throws {
        let image = try CodecFixtures.gray(width: 80, height: 50)
        let data = try ImageEncoder.encode(image, as: .jpeg(quality: 92))
        let decoded = try ImageDecoder.decode(data: data)
        #expect(decoded.pixels.format == .oneComponent8)
        #expect(CodecFixtures.psnr(decoded.pixels, image) > 40)
        let expanded = try ImageDecoder.decode(data: data, options: .init(keepsGrayscale: false))
        #expect(expanded.pixels.format == .rgba32)
        #expect(CodecFixtures.psnr(expanded.pixels, image) > 40)
    }

    @Test func jpegDropsAlpha() throws {
        let image = try CodecFixtures.color(width: 40, height: 40, alpha: true)
        let decoded = try ImageDecoder.decode(data: try ImageEncoder.encode(image, as: .jpeg()))
        #expect(!decoded.hasAlpha)
        #expect(CodecFixtures.rgba(decoded.pixels).allSatisfy { $0[3] == 255 })
    }

    @Test("WebP lossless round trip is exact", arguments: [PixelFormat.rgba32, .rgb24, .bgra32, .argb32, .oneComponent8])
    func webpLossless(format: PixelFormat) throws {
        var image = try CodecFixtures.noise(width: 33, height: 21, format: format, seed: 11)
        if format == .rgba32 {  // include fully transparent pixels: `exact` must keep their RGB
            let row = image.bytesPerRow()
            image.withUnsafeMutableBytes { bytes in
                for x in 0..<10 { bytes[row * 3 + 4 * x + 3] = 0 }
            }
        }
        let decoded = try ImageDecoder.decode(data: try ImageEncoder.encode(image, as: .webpLossless))
        #expect(decoded.format == .webp)
        #expect(decoded.pixels.format == .rgba32)
        #expect(CodecFixtures.rgba(decoded.pixels) == CodecFixtures.rgba(image))
    }

    @Test func webpLossyWithinPSNR() throws {
        let image = try CodecFixtures.color(width: 120, height: 80, alpha: true)
        let decoded = try ImageDecoder.decode(data: try ImageEncoder.encode(image, as: .webp(quality: 90)))
        #expect(decoded.hasAlpha)
        #expect(CodecFixtures.psnr(decoded.pixels, image) > 32)
        // Alpha is coded separately (losslessly at the default alpha quality).
        let alpha = zip(CodecFixtures.rgba(decoded.pixels), CodecFixtures.rgba(image)).map { abs($0[3] - $1[3]) }
        #expect(alpha.max()! <= 2)
    }

    @Test("HEIC colour round trip within PSNR", arguments: [(64, 48), (33, 17), (130, 70)])
    func heicColor(size: (Int, Int)) throws {
        let image = try CodecFixtures.color(width: size.0, height: size.1)
        let decoded = try ImageDecoder.decode(data: try ImageEncoder.encode(image, as: .heic(quality: 90)))
        #expect(decoded.format == .heic)
        #expect(decoded.pixels.format == .rgba32)
        #expect(decoded.pixels.width == size.0 && decoded.pixels.height == size.1)
        #expect(!decoded.hasAlpha)
        #expect(CodecFixtures.psnr(decoded.pixels, image) > 32)
    }

    @Test func heicAlphaRoundTrip() throws {
        let image = try CodecFixtures.color(width: 64, height: 40, alpha: true)
        let data = try ImageEncoder.encode(image, as: .heic(quality: 90))
        let decoded = try ImageDecoder.decode(data: data)
        #expect(decoded.hasAlpha)
        #expect(CodecFixtures.psnr(decoded.pixels, image) > 32)
        let alphaError = zip(CodecFixtures.rgba(decoded.pixels), CodecFixtures.rgba(image)).map { abs($0[3] - $1[3]) }
        #expect(Double(alphaError.reduce(0, +)) / Double(alphaError.count) < 3)
        // libheif stores the alpha as its own auxiliary image.
        let reader = try HEICReader(data: data)
        #expect(reader.auxiliaryImages.map(\.type) == [.alpha])
    }

    @Test func heicGrayStaysOneComponent() throws {
        let image = try CodecFixtures.gray(width: 70, height: 45)
        let data = try ImageEncoder.encode(image, as: .heic(quality: 90))
        let decoded = try ImageDecoder.decode(data: data)
        #expect(decoded.pixels.format == .oneComponent8)
        #expect(CodecFixtures.psnr(decoded.pixels, image) > 35)
        #expect(try ImageDecoder.info(data: data).isGray)
    }

    @Test func floatSourcesQuantizeForLossyFormats() throws {
        let image = try CodecFixtures.unitFloats(width: 24, height: 24)
        for format in [ImageEncoder.Format.jpeg(quality: 100), .webpLossless, .heic(quality: 100)] {
            let decoded = try ImageDecoder.decode(data: try ImageEncoder.encode(image, as: format))
            #expect(decoded.pixels.width == 24, "\(format)")
        }
    }

    @Test("write(to:) then decode(contentsOf:)", arguments: [
        ImageEncoder.Format.jpeg(quality: 90), .png, .webp(quality: 90), .webpLossless, .heic(quality: 90),
    ])
    func fileRoundTrip(format: ImageEncoder.Format) throws {
        let directory = try CodecFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = try CodecFixtures.color(width: 50, height: 30)
        let url = directory.appendingPathComponent("image.\(format.imageFormat.fileExtension)")
        try ImageEncoder.write(image, to: url, as: format)
        let decoded = try ImageDecoder.decode(contentsOf: url)
        #expect(decoded.format == format.imageFormat)
        #expect(CodecFixtures.psnr(decoded.pixels, image) > 30)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["image.\(format.imageFormat.fileExtension)"])
        let info = try ImageDecoder.info(contentsOf: url)
        #expect(info.width == 50 && info.height == 30 && info.format == format.imageFormat && !info.isGray)
    }

    @Test func installedSampleImagesDecode() throws {
        let astronaut = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png"))
        #expect(astronaut.pixels.width == 512 && astronaut.pixels.height == 512)
        #expect(astronaut.pixels.format == .rgba32)
        let camera = try ImageDecoder.decode(contentsOf: try TestFiles.installed("camera.png"))
        #expect(camera.pixels.format == .oneComponent8)
        let rocket = try ImageDecoder.decode(contentsOf: try TestFiles.installed("rocket.jpg"))
        #expect(rocket.format == .jpeg && rocket.pixels.format == .rgba32)
        let chelsea = try ImageDecoder.decode(contentsOf: try TestFiles.installed("chelsea.png"))
        #expect(chelsea.pixels.width > 0)
        // A photo survives every lossy codec at a sane quality.
        for format in [ImageEncoder.Format.jpeg(quality: 90), .webp(quality: 90), .heic(quality: 90)] {
            let again = try ImageDecoder.decode(data: try ImageEncoder.encode(astronaut.pixels, as: format))
            #expect(CodecFixtures.psnr(again.pixels, astronaut.pixels) > 30, "\(format)")
        }
        let lossless = try ImageDecoder.decode(data: try ImageEncoder.encode(astronaut.pixels, as: .webpLossless))
        #expect(CodecFixtures.identical(lossless.pixels, astronaut.pixels))
    }
}

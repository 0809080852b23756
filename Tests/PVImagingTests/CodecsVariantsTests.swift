import Foundation
import Testing

@testable import PVImaging

/// Source variants our encoders never produce: PNG colour types, bit depths, palettes,
/// transparency and interlacing (hand-made files), progressive and CMYK JPEG.
@Suite struct CodecsVariantsTests {
    /// Packs `values` (each < 2^bits) MSB-first into bytes, one row.
    func pack(_ values: [Int], bits: Int) -> [UInt8] {
        var out: [UInt8] = []
        var current = 0, used = 0
        for value in values {
            current = current << bits | value
            used += bits
            if used == 8 {
                out.append(UInt8(current))
                current = 0
                used = 0
            }
        }
        if used > 0 { out.append(UInt8(current << (8 - used))) }
        return out
    }

    @Test("low bit depth grey expands to 0…255", arguments: [1, 2, 4])
    func lowBitGray(bits: Int) throws {
        let width = 11, height = 3, top = (1 << bits) - 1
        let values = (0..<height).map { y in (0..<width).map { x in (x + y) % (top + 1) } }
        let data = CodecFixtures.handmadePNG(
            width: width, height: height, bitDepth: bits, colorType: 0, scanlines: values.map { pack($0, bits: bits) })
        let image = try ImageDecoder.decode(data: data).pixels
        #expect(image.format == .oneComponent8)
        for y in 0..<height {
            for x in 0..<width { #expect(CodecFixtures.pixel(image, x, y)[0] == values[y][x] * 255 / top) }
        }
    }

    @Test func sixteenBitColorAndGrayAlphaScale() throws {
        let samples: [UInt16] = [0, 257, 32768, 65535, 1000, 50000]
        func bytes(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 255)] }
        let scaled = samples.map { Int((Double($0) / 257).rounded()) }
        // RGB 16: one row of two pixels.
        let rgb = CodecFixtures.handmadePNG(
            width: 2, height: 1, bitDepth: 16, colorType: 2, scanlines: [samples.flatMap(bytes)])
        #expect(CodecFixtures.rgba(try ImageDecoder.decode(data: rgb).pixels) == [Array(scaled[0..<3]) + [255], Array(scaled[3..<6]) + [255]])
        // RGBA 16.
        let rgba = CodecFixtures.handmadePNG(
            width: 1, height: 1, bitDepth: 16, colorType: 6, scanlines: [Array(samples[0..<4]).flatMap(bytes)])
        #expect(CodecFixtures.rgba(try ImageDecoder.decode(data: rgba).pixels) == [Array(scaled[0..<4])])
        // Grey + alpha, 8 and 16 bit.
        let ga8 = CodecFixtures.handmadePNG(width: 2, height: 1, bitDepth: 8, colorType: 4, scanlines: [[10, 200, 99, 0]])
        let decoded = try ImageDecoder.decode(data: ga8)
        #expect(decoded.hasAlpha && decoded.pixels.format == .rgba32)
        #expect(CodecFixtures.rgba(decoded.pixels) == [[10, 10, 10, 200], [99, 99, 99, 0]])
        let ga16 = CodecFixtures.handmadePNG(
            width: 1, height: 1, bitDepth: 16, colorType: 4, scanlines: [bytes(50000) + bytes(257)])
        #expect(CodecFixtures.rgba(try ImageDecoder.decode(data: ga16).pixels) == [[scaled[5], scaled[5], scaled[5], 1]])
    }

    @Test func grayWithTransparencyKeyBecomesRGBA() throws {
        let data = CodecFixtures.handmadePNG(
            width: 3, height: 1, bitDepth: 8, colorType: 0, scanlines: [[0x10, 0x80, 0xF0]], transparency: [0, 0x80])
        let image = try ImageDecoder.decode(data: data)
        #expect(image.hasAlpha && image.pixels.format == .rgba32)
        #expect(CodecFixtures.rgba(image.pixels) == [[0x10, 0x10, 0x10, 255], [0x80, 0x80, 0x80, 0], [0xF0, 0xF0, 0xF0, 255]])
    }

    @Test("palettes expand, with tRNS alpha", arguments: [1, 2, 4, 8])
    func palette(bits: Int) throws {
        let colors = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [9, 99, 199]].prefix(min(4, 1 << bits))
        let palette = colors.flatMap { $0.map(UInt8.init) }
        let alpha: [UInt8] = [128]  // entry 0 half transparent, the rest opaque
        let width = 9, height = 2
        let indices = (0..<height).map { y in (0..<width).map { x in (x + y) % colors.count } }
        let data = CodecFixtures.handmadePNG(
            width: width, height: height, bitDepth: bits, colorType: 3, scanlines: indices.map { pack($0, bits: bits) },
            palette: palette, transparency: alpha)
        let image = try ImageDecoder.decode(data: data)
        #expect(image.pixels.format == .rgba32 && image.hasAlpha)
        let pixels = CodecFixtures.rgba(image.pixels)
        for y in 0..<height {
            for x in 0..<width {
                let index = indices[y][x]
                #expect(pixels[y * width + x] == colors[index] + [index == 0 ? 128 : 255])
            }
        }
    }

    @Test("Adam7 interlaced PNG", arguments: [(PixelFormat.rgba32, 6), (.oneComponent8, 0), (.rgb24, 2)])
    func interlaced(format: PixelFormat, colorType: Int) throws {
        for (width, height) in [(13, 11), (1, 1), (3, 9), (8, 8)] {
            let image = try CodecFixtures.noise(width: width, height: height, format: format, seed: UInt64(width * height))
            let pixels = (0..<height).flatMap { y in (0..<width).map { x in CodecFixtures.rawPixel(image, x, y) } }
            let data = CodecFixtures.handmadePNG(
                width: width, height: height, bitDepth: 8, colorType: colorType,
                scanlines: CodecFixtures.adam7(pixels, width: width, height: height), interlaced: true)
            let decoded = try ImageDecoder.decode(data: data)
            #expect(CodecFixtures.rgba(decoded.pixels) == CodecFixtures.rgba(image), "\(format) \(width)×\(height)")
        }
    }

    @Test func corruptImageDataIsAnError() throws {
        var bytes = [UInt8](
            CodecFixtures.handmadePNG(width: 4, height: 4, bitDepth: 8, colorType: 0, scanlines: Array(repeating: [1, 2, 3, 4], count: 4)))
        let idat = try #require((0..<(bytes.count - 4)).first { bytes[$0..<$0 + 4].elementsEqual(Array("IDAT".utf8)) })
        bytes[idat + 6] ^= 0xFF  // inside the zlib stream; the chunk CRC no longer matches either
        CodecFixtures.expectError(.corruptData) { try ImageDecoder.decode(data: Data(bytes)) }
        // Missing image data (IDAT too short for the declared size).
        let short = CodecFixtures.handmadePNG(width: 4, height: 4, bitDepth: 8, colorType: 0, scanlines: [[1, 2, 3, 4]])
        CodecFixtures.expectError(.corruptData) { try ImageDecoder.decode(data: short) }
    }

    @Test func progressiveJPEGDecodesAndScales() throws {
        let image = try CodecFixtures.color(width: 160, height: 96)
        let data = try JPEGCodec.encode(image, quality: 90, progressive: true)
        let full = try ImageDecoder.decode(data: data)
        #expect(CodecFixtures.psnr(full.pixels, image) > 35)
        let quarter = try ImageDecoder.decode(data: data, minimumSize: (40, 24))
        #expect(quarter.scaleDenominator == 4 && quarter.pixels.width == 40)
        CodecFixtures.expectError(.truncatedData) { try ImageDecoder.decode(data: data.prefix(data.count / 2)) }
    }

    @Test func cmykJPEGBecomesRGB() throws {
        // Adobe-inverted CMYK (255 = no ink): white, black (full K), cyan, a 50 % grey of K.
        let inks: [[UInt8]] = [[255, 255, 255, 255], [255, 255, 255, 0], [0, 255, 255, 255], [255, 255, 255, 128]]
        let expected = [[255, 255, 255], [0, 0, 0], [0, 255, 255], [128, 128, 128]]
        var image = try PixelBuffer(width: 64, height: 16, format: .rgba32)
        let row = image.bytesPerRow()
        image.withUnsafeMutableBytes { bytes in
            for y in 0..<16 {
                for x in 0..<64 { for c in 0..<4 { bytes[y * row + 4 * x + c] = inks[x / 16][c] } }
            }
        }
        let decoded = try ImageDecoder.decode(data: try JPEGCodec.encode(image, quality: 95, cmyk: true))
        #expect(decoded.pixels.format == .rgba32)
        let pixels = CodecFixtures.rgba(decoded.pixels)
        for (block, colour) in expected.enumerated() {
            let p = pixels[8 * 64 + block * 16 + 8]
            #expect(zip(p, colour).allSatisfy { abs($0 - $1) <= 6 } && p[3] == 255, "block \(block): \(p)")
        }
    }
}

import Foundation
import Testing

@testable import PVImaging

/// libjpeg-turbo's DCT-domain downscaling, chosen from `minimumSize`.
@Suite struct CodecsJPEGScalingTests {
    @Test("scale chosen from minimumSize", arguments: [
        ((64, 48), 8, 64, 48), ((65, 48), 4, 128, 96), ((100, 50), 4, 128, 96), ((200, 150), 2, 256, 192),
        ((300, 100), 1, 512, 384), ((1, 1), 8, 64, 48), ((0, 0), 8, 64, 48),
    ])
    func scale(minimum: (Int, Int), denominator: Int, width: Int, height: Int) throws {
        let image = try CodecFixtures.color(width: 512, height: 384)
        let data = try ImageEncoder.encode(image, as: .jpeg(quality: 92))
        let decoded = try ImageDecoder.decode(data: data, minimumSize: (minimum.0, minimum.1))
        #expect(decoded.scaleDenominator == denominator)
        #expect(decoded.pixels.width == width && decoded.pixels.height == height)
        #expect(decoded.storedWidth == 512 && decoded.storedHeight == 384)
        if denominator > 1 {
            // The reduced decode looks like the full image shrunk (a smooth pattern, so compare
            // against a box-filtered full decode).
            let full = try ImageDecoder.decode(data: data).pixels
            let shrunk = try boxShrink(full, by: denominator)
            #expect(CodecFixtures.psnr(decoded.pixels, shrunk) > 30)
        }
    }

    @Test func oddSizesRoundUp() throws {
        let data = try ImageEncoder.encode(try CodecFixtures.gray(width: 101, height: 57), as: .jpeg())
        let decoded = try ImageDecoder.decode(data: data, minimumSize: (10, 7))
        #expect(decoded.scaleDenominator == 8)
        #expect(decoded.pixels.width == 13 && decoded.pixels.height == 8)  // ceil(101/8), ceil(57/8)
        #expect(decoded.pixels.format == .oneComponent8)
    }

    @Test func minimumSizeIsInTheUprightFrame() throws {
        // Stored 512×384 with EXIF 6 shows as 384×512; asking for 48×64 upright allows 1/8.
        let data = CodecFixtures.jpegWithEXIF(
            try ImageEncoder.encode(try CodecFixtures.color(width: 512, height: 384), as: .jpeg()),
            tiff: CodecFixtures.exifTIFF(orientation: 6, bigEndian: false))
        let upright = try ImageDecoder.decode(data: data, minimumSize: (48, 64))
        #expect(upright.scaleDenominator == 8)
        #expect(upright.pixels.width == 48 && upright.pixels.height == 64)
        // 64×48 upright is not covered by a 48×64 image: 1/4 (96×128).
        let wide = try ImageDecoder.decode(data: data, minimumSize: (64, 48))
        #expect(wide.scaleDenominator == 4)
        #expect(wide.pixels.width == 96 && wide.pixels.height == 128)
        // Not applying the orientation: the size is asked of the stored frame.
        let stored = try ImageDecoder.decode(data: data, minimumSize: (64, 48), applyOrientation: false)
        #expect(stored.scaleDenominator == 8 && stored.pixels.width == 64 && stored.orientation == .right)
    }

    @Test func otherFormatsIgnoreMinimumSize() throws {
        let image = try CodecFixtures.color(width: 80, height: 40)
        for format in [ImageEncoder.Format.png, .webpLossless, .heic(quality: 80)] {
            let decoded = try ImageDecoder.decode(data: try ImageEncoder.encode(image, as: format), minimumSize: (10, 5))
            #expect(decoded.scaleDenominator == 1 && decoded.pixels.width == 80, "\(format)")
        }
        CodecFixtures.expectError(.invalidArgument) {
            try ImageDecoder.decode(data: try ImageEncoder.encode(image, as: .png), minimumSize: (-1, 5))
        }
    }

    /// Averages `factor`×`factor` blocks (partial blocks at the edges average what they cover).
    func boxShrink(_ image: PixelBuffer, by factor: Int) throws -> PixelBuffer {
        let width = (image.width + factor - 1) / factor, height = (image.height + factor - 1) / factor
        var out = try PixelBuffer(width: width, height: height, format: .rgba32)
        let pixels = CodecFixtures.rgba(image), row = out.bytesPerRow()
        out.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    var sum = [0, 0, 0, 0], count = 0
                    for sy in y * factor..<min((y + 1) * factor, image.height) {
                        for sx in x * factor..<min((x + 1) * factor, image.width) {
                            for c in 0..<4 { sum[c] += pixels[sy * image.width + sx][c] }
                            count += 1
                        }
                    }
                    for c in 0..<4 { bytes[y * row + 4 * x + c] = UInt8(sum[c] / count) }
                }
            }
        }
        return out
    }
}

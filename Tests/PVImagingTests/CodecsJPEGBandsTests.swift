import Foundation
import Testing

@testable import PVImaging

/// The JPEG encoder's side-by-side bands: joined with restart markers, the file must decode to exactly the
/// pixels of a single-stream encode, for every layout, chroma mode and band arithmetic.
@Suite struct CodecsJPEGBandsTests {
    /// Restart markers (FFD0…FFD7) in the entropy-coded data, and whether a DRI segment is present.
    static func restartMarkers(_ data: Data) -> (markers: [UInt8], hasDRI: Bool) {
        let b = [UInt8](data)
        var markers: [UInt8] = [], dri = false
        for i in 0..<(b.count - 1) where b[i] == 0xFF {
            if (0xD0...0xD7).contains(b[i + 1]) { markers.append(b[i + 1]) }
            if b[i + 1] == 0xDD { dri = true }
        }
        return (markers, dri)
    }

    @Test(
        "bands decode to the single-stream pixels",
        arguments: [
            (1920, 1080, PixelFormat.rgba32, 90, 2),  // 4:2:0, 1080 = 67.5 MCU rows: a short last band
            (1920, 1080, .rgba32, 90, 8),  // more threads than bands of ≥ 128 rows allow
            (1000, 777, .rgb24, 95, 3),  // 4:4:4 (8-row MCUs), odd sizes
            (700, 1300, .oneComponent8, 80, 2),  // grey
            (1280, 720, .bgra32, 60, 4),
        ])
    func bandsMatchSingleStream(width: Int, height: Int, format: PixelFormat, quality: Int, threads: Int) throws {
        let image = try CodecFixtures.noise(width: width, height: height, format: format, seed: UInt64(width * height))
        let single = try JPEGCodec.encode(image, quality: quality, threads: 1)
        let banded = try JPEGCodec.encode(image, quality: quality, threads: threads)
        #expect(Self.restartMarkers(single).markers.isEmpty)
        let (markers, dri) = Self.restartMarkers(banded)
        #expect(dri && !markers.isEmpty, "the banded file carries restart markers")
        // RST0, RST1, … in turn.
        #expect(markers == markers.indices.map { UInt8(0xD0 + $0 % 8) })
        let a = try ImageDecoder.decode(data: single).pixels
        let b = try ImageDecoder.decode(data: banded).pixels
        #expect(b.width == width && b.height == height)
        #expect(CodecFixtures.identical(a, b), "banded and single-stream files decode to the same pixels")
    }

    @Test func smallAndProgressiveImagesStaySingleStream() throws {
        let small = try CodecFixtures.noise(width: 400, height: 400, format: .rgba32, seed: 1)
        #expect(Self.restartMarkers(try JPEGCodec.encode(small, quality: 90, threads: 2)).markers.isEmpty)
        let large = try CodecFixtures.noise(width: 1024, height: 768, format: .rgba32, seed: 2)
        let progressive = try JPEGCodec.encode(large, quality: 90, progressive: true, threads: 2)
        #expect(!Self.restartMarkers(progressive).hasDRI)
        #expect(try ImageDecoder.decode(data: progressive).pixels.height == 768)
    }

    @Test func exifSurvivesBanding() throws {
        let image = try CodecFixtures.noise(width: 1024, height: 1024, format: .rgba32, seed: 3)
        let tiff = CodecFixtures.exifTIFF(orientation: 6, bigEndian: false)
        let data = try JPEGCodec.encode(image, quality: 90, exif: tiff, threads: 2)
        #expect(!Self.restartMarkers(data).markers.isEmpty)
        let info = try ImageDecoder.info(data: data)
        #expect(info.orientation == .right && info.width == 1024 && info.height == 1024)
    }
}

import Foundation
import Testing
import CImageCodecs

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

    @Test func filesWithoutMarkersAreLeftToTheOrdinaryDecoder() throws {
        let image = try CodecFixtures.noise(width: 1024, height: 768, format: .rgba32, seed: 4)
        for data in [
            try JPEGCodec.encode(image, quality: 90, threads: 1), try JPEGCodec.encode(image, quality: 90, progressive: true),
        ] {
            var out = try PixelBuffer(width: 1024, height: 768, format: .rgba32)
            let status = data.withUnsafeBytes { file in
                let rowBytes = out.bytesPerRow()
                return out.withUnsafeMutableBytes { o in
                    JPEGCodec.decodeInBands(
                        file, gray: false, into: o.baseAddress!.assumingMemoryBound(to: UInt8.self), bytesPerRow: rowBytes,
                        width: 1024, height: 768, threads: 2)
                }
            }
            #expect(status == CIMG_UNSUPPORTED)
        }
    }

    /// `ImageInfo.decodesInBands` tells from the header alone which files the banded decoder takes.
    @Test func infoTellsWhichFilesDecodeInBands() throws {
        let image = try CodecFixtures.noise(width: 1024, height: 768, format: .rgba32, seed: 5)
        let banded = try JPEGCodec.encode(image, quality: 90, threads: 2)
        #expect(try ImageDecoder.info(data: banded).decodesInBands == (ImagingThreads.maximum > 1))
        #expect(try !ImageDecoder.info(data: JPEGCodec.encode(image, quality: 90, threads: 1)).decodesInBands)
        #expect(try !ImageDecoder.info(data: JPEGCodec.encode(image, quality: 90, progressive: true)).decodesInBands)
        #expect(try !ImageDecoder.info(data: ImageEncoder.encode(image, as: .png)).decodesInBands)
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

    /// The file decoded the ordinary way, one stream on one thread.
    static func sequential(_ data: Data) throws -> PixelBuffer {
        try data.withUnsafeBytes { try JPEGCodec.decode($0, options: ImageDecoder.Options(), threads: 1).pixels }
    }

    static func banded(_ data: Data, threads: Int) throws -> PixelBuffer {
        try data.withUnsafeBytes { try JPEGCodec.decode($0, options: ImageDecoder.Options(), threads: threads).pixels }
    }

    @Test(
        "a file with restart markers decodes in bands to the pixels of one stream",
        arguments: [
            (1920, 1080, PixelFormat.rgba32, 90, 2, 2),  // 4:2:0: a band's first row takes its chroma from the row above
            (1920, 1080, .rgba32, 90, 4, 3),  // fewer decode threads than bands: some markers are not split at
            (1920, 1080, .rgba32, 90, 8, 8),
            (1000, 777, .rgb24, 95, 3, 2),  // 4:4:4
            (700, 1300, .oneComponent8, 80, 2, 4),  // grey, more threads than bands
            (1283, 1001, .bgra32, 60, 3, 3),  // sizes off the MCU grid
        ])
    func bandedDecodeMatchesOneStream(
        width: Int, height: Int, format: PixelFormat, quality: Int, encodeThreads: Int, decodeThreads: Int
    ) throws {
        // A smooth image with sharp colour edges across every band boundary: chroma upsampling errors would show.
        var image = try PixelBuffer(width: width, height: height, format: format)
        let bpp = format.bytesPerPixel, rowBytes = image.bytesPerRow()
        image.withUnsafeMutableBytes { raw in
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<bpp {
                        let stripe = (y / 7 + c) % 3 == 0 ? 200 : 30
                        raw[y * rowBytes + x * bpp + c] = UInt8((stripe + (x * (c + 1)) % 50) % 256)
                    }
                }
            }
        }
        let data = try JPEGCodec.encode(image, quality: quality, threads: encodeThreads)
        #expect(!Self.restartMarkers(data).markers.isEmpty)
        let one = try Self.sequential(data), bands = try Self.banded(data, threads: decodeThreads)
        #expect(CodecFixtures.identical(one, bands))
        // The banded path itself succeeded (no silent fall-back to one stream).
        var direct = try PixelBuffer(width: width, height: height, format: .rgba32)
        let directRow = direct.bytesPerRow()
        let status = data.withUnsafeBytes { file in
            direct.withUnsafeMutableBytes { out in
                JPEGCodec.decodeInBands(
                    file, gray: false, into: out.baseAddress!.assumingMemoryBound(to: UInt8.self), bytesPerRow: directRow,
                    width: UInt32(width), height: UInt32(height), threads: decodeThreads)
            }
        }
        #expect(status == CIMG_OK)
        if format != .oneComponent8 { #expect(CodecFixtures.identical(one, direct)) }
        let gray = try data.withUnsafeBytes {
            var options = ImageDecoder.Options()
            options.keepsGrayscale = true
            return try JPEGCodec.decode($0, options: options, threads: decodeThreads).pixels
        }
        #expect(gray.format == (format == .oneComponent8 ? .oneComponent8 : .rgba32))
        #expect(CodecFixtures.identical(one, gray) || format != .oneComponent8)
    }

    /// `cimg_jpeg_find_bands` splits at restart markers that start MCU rows, in order; each band then decodes on its
    /// own, in any order and on any thread, to its rows of the single-stream pixels.
    @Test func bandsAreFoundAtRestartMarkersAndDecodeInAnyOrder() throws {
        let image = try CodecFixtures.noise(width: 1280, height: 1024, format: .rgba32, seed: 11)
        let data = try JPEGCodec.encode(image, quality: 80, threads: 4)
        let bytes = [UInt8](data)
        var bands = cimg_jpeg_bands()
        #expect(cimg_jpeg_find_bands(bytes, bytes.count, 1280, 1024, 3, &bands) == CIMG_OK)
        #expect(bands.count == 3)
        let starts = withUnsafeBytes(of: bands.start) { Array($0.bindMemory(to: Int.self).prefix(Int(bands.count))) }
        let rows = withUnsafeBytes(of: bands.first_row) { Array($0.bindMemory(to: UInt32.self).prefix(Int(bands.count))) }
        #expect(starts[0] == 0 && rows[0] == 0)
        for k in 1..<Int(bands.count) {
            #expect(bytes[starts[k]] == 0xFF && (0xD0...0xD7).contains(bytes[starts[k] + 1]), "band \(k) starts at a marker")
            #expect(rows[k] % 16 == 0 && rows[k] > rows[k - 1], "band \(k) starts an MCU row, below the band above")
        }
        var pieces = try PixelBuffer(width: 1280, height: 1024, format: .rgba32)
        let rowBytes = pieces.bytesPerRow()
        pieces.withUnsafeMutableBytes { out in
            for k in (0..<Int(bands.count)).reversed() {
                let status = cimg_jpeg_decode_band(
                    bytes, bytes.count, &bands, Int32(k), 0, out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    rowBytes, 1280, 1024)
                #expect(status == CIMG_OK)
            }
        }
        #expect(CodecFixtures.identical(try Self.sequential(data), pieces))
        // Without a second band to split at, the file is left to the ordinary decoder.
        #expect(cimg_jpeg_find_bands(bytes, bytes.count, 1280, 1024, 1, &bands) == CIMG_UNSUPPORTED)
    }

    @Test("a damaged or cut file decodes in bands exactly as in one stream, or fails the same way")
    func damagedBandedFile() throws {
        let image = try CodecFixtures.noise(width: 1280, height: 960, format: .rgba32, seed: 7)
        let data = try JPEGCodec.encode(image, quality: 85, threads: 2)
        let bytes = [UInt8](data)
        // The restart marker between the two bands.
        let marker = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD0 })
        // Corrupt entropy data after the marker: libjpeg warns and carries on; the second band's decoder sees the
        // warning, so the whole file is decoded again in one stream, with the same result.
        var damaged = bytes
        for k in stride(from: marker + 200, to: marker + 260, by: 3) where damaged[k] != 0xFF && damaged[k - 1] != 0xFF {
            damaged[k] ^= 0x5A
        }
        #expect(CodecFixtures.identical(try Self.sequential(Data(damaged)), try Self.banded(Data(damaged), threads: 2)))
        // Cut inside the second band: the same truncation error either way.
        let cut = Data(bytes[0..<(marker + (bytes.count - marker) / 2)])
        #expect(throws: ImagingError.self) { try Self.banded(cut, threads: 2) }
        do {
            _ = try Self.banded(cut, threads: 2)
        } catch let error as ImagingError {
            #expect(error.code == .truncatedData)
        }
    }
}


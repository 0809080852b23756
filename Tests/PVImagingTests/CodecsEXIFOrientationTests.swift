import Foundation
import PVTestSupport
import Testing

@testable import PVImaging

/// EXIF orientation 1–8, written by hand into generated JPEG, PNG and WebP files (and HEIC's
/// irot/imir), must be applied exactly once and put the pixels where a viewer shows them.
@Suite struct CodecsEXIFOrientationTests {
    /// Where the stored image's top-left pixel appears when displayed, per EXIF value — written
    /// out from the EXIF specification, independent of the library's tables.
    static let storedTopLeftShownAt: [Int: (right: Bool, bottom: Bool)] = [
        1: (false, false), 2: (true, false), 3: (true, true), 4: (false, true),
        5: (false, false), 6: (true, false), 7: (true, true), 8: (false, true),
    ]

    static let width = 48, height = 32

    /// A stored image whose top-left 8×8 block is a marker colour on a flat background.
    static func marked() throws -> PixelBuffer {
        var image = try PixelBuffer(width: width, height: height, format: .rgba32)
        let row = image.bytesPerRow()
        image.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let marker = x < 8 && y < 8
                    let p = y * row + 4 * x
                    (bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]) = marker ? (250, 20, 20, 255) : (20, 90, 200, 255)
                }
            }
        }
        return image
    }

    /// Checks the marker sits in the expected corner of the displayed image.
    func expectMarker(_ image: PixelBuffer, exif: Int, _ comment: String) {
        let expected = Self.storedTopLeftShownAt[exif]!
        let x = expected.right ? image.width - 4 : 3, y = expected.bottom ? image.height - 4 : 3
        let p = CodecFixtures.rgba(image)[y * image.width + x]
        #expect(p[0] > 200 && p[2] < 80, "\(comment): EXIF \(exif) marker not at (\(x), \(y)), found \(p)")
        let swapped = exif >= 5
        #expect(image.width == (swapped ? Self.height : Self.width), "\(comment): EXIF \(exif) width")
    }

    @Test("JPEG APP1 orientation", arguments: 1...8)
    func jpeg(exif: Int) throws {
        let stored = try Self.marked()
        for bigEndian in [false, true] {
            let data = CodecFixtures.jpegWithEXIF(
                try ImageEncoder.encode(stored, as: .jpeg(quality: 95)),
                tiff: CodecFixtures.exifTIFF(orientation: exif, bigEndian: bigEndian))
            let upright = try ImageDecoder.decode(data: data)
            #expect(upright.orientation == .up)
            #expect(upright.exifOrientation == Orientation(exifValue: exif))
            expectMarker(upright.pixels, exif: exif, "JPEG")
            #expect(CodecFixtures.psnr(upright.pixels, try stored.applying(Orientation(exifValue: exif)!)) > 30)
            #expect(try ImageDecoder.info(data: data).orientation == Orientation(exifValue: exif))

            let raw = try ImageDecoder.decode(data: data, applyOrientation: false)
            #expect(raw.orientation == Orientation(exifValue: exif))
            #expect(raw.pixels.width == Self.width)
            #expect(CodecFixtures.psnr(raw.pixels, stored) > 30)
        }
    }

    @Test("PNG eXIf orientation", arguments: 1...8)
    func png(exif: Int) throws {
        let stored = try Self.marked()
        let png = try ImageEncoder.encode(stored, as: .png)
        for afterImage in [false, true] {
            let data = CodecFixtures.pngWithEXIF(
                png, tiff: CodecFixtures.exifTIFF(orientation: exif, bigEndian: exif % 2 == 0), afterImage: afterImage)
            let upright = try ImageDecoder.decode(data: data)
            expectMarker(upright.pixels, exif: exif, "PNG")
            #expect(CodecFixtures.identical(upright.pixels, try stored.applying(Orientation(exifValue: exif)!)))
            #expect(upright.exif != nil)
        }
    }

    @Test("WebP EXIF chunk orientation", arguments: 1...8)
    func webp(exif: Int) throws {
        let stored = try Self.marked()
        for format in [ImageEncoder.Format.webpLossless, .webp(quality: 95)] {
            let data = CodecFixtures.webpWithEXIF(
                try ImageEncoder.encode(stored, as: format), tiff: CodecFixtures.exifTIFF(orientation: exif, bigEndian: false),
                width: Self.width, height: Self.height)
            let upright = try ImageDecoder.decode(data: data)
            #expect(upright.exifOrientation == Orientation(exifValue: exif))
            expectMarker(upright.pixels, exif: exif, "WebP \(format)")
            #expect(CodecFixtures.psnr(upright.pixels, try stored.applying(Orientation(exifValue: exif)!)) > 30)
        }
    }

    /// HEIC: libheif applies irot/imir; an EXIF tag in the file must not be applied again.
    @Test("HEIC irot/imir applied once, EXIF tag ignored", arguments: 1...8)
    func heic(exif: Int) throws {
        let stored = try Self.marked()
        let orientation = Orientation(exifValue: exif)!
        let tiff = CodecFixtures.exifTIFF(orientation: exif, bigEndian: true)
        let data = Data(try HEICCodec.encode(.color(stored), quality: 95, orientation: orientation, exif: tiff))
        for apply in [true, false] {
            let decoded = try ImageDecoder.decode(data: data, applyOrientation: apply)
            #expect(decoded.orientation == .up)
            #expect(decoded.exifOrientation == orientation)
            expectMarker(decoded.pixels, exif: exif, "HEIC")
        }
        // The EXIF tag alone (no irot/imir) changes nothing.
        let tagOnly = Data(try HEICCodec.encode(.color(stored), quality: 95, exif: tiff))
        let decoded = try ImageDecoder.decode(data: tagOnly)
        #expect(decoded.exifOrientation == orientation)
        expectMarker(decoded.pixels, exif: 1, "HEIC tag only")
    }

    @Test("The encoder records an orientation", arguments: 1...8)
    func encoderWritesOrientation(exif: Int) throws {
        let stored = try Self.marked(), orientation = try #require(Orientation(exifValue: exif))
        for format in [ImageEncoder.Format.jpeg(quality: 95), .png, .heic(quality: 90)] {
            let data = try ImageEncoder.encode(stored, as: format, orientation: orientation)
            expectMarker(try ImageDecoder.decode(data: data).pixels, exif: exif, "\(format)")
            if format != .heic(quality: 90) {
                // JPEG and PNG keep the pixels as stored and carry the tag; HEIC's decoder applies irot/imir.
                #expect(try ImageDecoder.info(data: data).orientation == orientation, "\(format)")
            }
        }
        if orientation == .up {
            #expect(try ImageEncoder.encode(stored, as: .webpLossless, orientation: .up).count > 0)
        } else {
            #expect(throws: ImagingError.self) { try ImageEncoder.encode(stored, as: .webp(quality: 80), orientation: orientation) }
        }
    }

    @Test func malformedEXIFIsIgnored() throws {
        let stored = try Self.marked()
        let jpeg = try ImageEncoder.encode(stored, as: .jpeg())
        let cases: [[UInt8]] = [
            [], [0x49, 0x49], Array("garbage!".utf8),
            Array(CodecFixtures.exifTIFF(orientation: 9, bigEndian: false)),  // out of range
            Array(CodecFixtures.exifTIFF(orientation: 6, bigEndian: false).prefix(14)),  // cut inside the entry
            [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F],  // IFD offset far outside
        ]
        for tiff in cases {
            let decoded = try ImageDecoder.decode(data: CodecFixtures.jpegWithEXIF(jpeg, tiff: tiff))
            #expect(decoded.orientation == .up)
            #expect(decoded.pixels.width == Self.width)
        }
    }

    @Test func exifParserReadsBothByteOrders() {
        for value in 1...8 {
            for bigEndian in [false, true] {
                let tiff = CodecFixtures.exifTIFF(orientation: value, bigEndian: bigEndian)
                #expect(EXIF.orientation(in: tiff) == Orientation(exifValue: value))
                #expect(EXIF.orientation(in: Array("Exif".utf8) + [0, 0] + tiff) == Orientation(exifValue: value))
            }
        }
    }
}

/// The EXIF 35 mm-equivalent focal length (the 3D body pose's camera when no intrinsics are given).
@Suite struct EXIFFocalLengthTests {
    @Test(arguments: [false, true])
    func readFromAJPEG(bigEndian: Bool) throws {
        let pixels = try PixelBuffer(width: 16, height: 8, format: .rgba32)
        let plain = try ImageEncoder.encode(pixels, as: .jpeg())
        #expect(try ImageDecoder.decode(data: plain).focalLengthIn35mmFilm == nil)
        let tagged = EXIFBlocks.jpeg(plain, withEXIF: EXIFBlocks.focalLength35mm(77, bigEndian: bigEndian))
        #expect(try ImageDecoder.decode(data: tagged).focalLengthIn35mmFilm == 77)
        // A broken pointer or a zero focal length reads as none; the image still decodes.
        var broken = EXIFBlocks.focalLength35mm(77, bigEndian: bigEndian)
        broken[bigEndian ? 21 : 18] = 0xF0  // the Exif IFD offset points past the block
        #expect(try ImageDecoder.decode(data: EXIFBlocks.jpeg(plain, withEXIF: broken)).focalLengthIn35mmFilm == nil)
        #expect(try ImageDecoder.decode(data: EXIFBlocks.jpeg(plain, withEXIF: EXIFBlocks.focalLength35mm(0))).focalLengthIn35mmFilm == nil)
    }
}

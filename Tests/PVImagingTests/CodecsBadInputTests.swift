import Foundation
import PVTestSupport
import Testing

@testable import PVImaging

/// Bad input never crashes: truncated, corrupted, mislabelled, empty, zero-size and oversized
/// files all end in a typed ``ImagingError``.
@Suite struct CodecsBadInputTests {
    static let formats: [ImageEncoder.Format] = [.jpeg(quality: 85), .png, .webp(quality: 80), .webpLossless, .heic(quality: 80)]

    static func sample(_ format: ImageEncoder.Format) throws -> Data {
        try ImageEncoder.encode(try CodecFixtures.color(width: 64, height: 48, alpha: format == .png), as: format)
    }

    @Test("truncated files are .truncatedData", arguments: formats)
    func truncated(format: ImageEncoder.Format) throws {
        let data = try Self.sample(format)
        for fraction in [0.05, 0.3, 0.5, 0.8, 0.97] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            CodecFixtures.expectError(.truncatedData, "\(format) cut to \(cut.count) of \(data.count) bytes") {
                try ImageDecoder.decode(data: cut)
            }
        }
        // The last byte matters too (JPEG's EOI, PNG's IEND CRC, WebP's chunk, HEIC's mdat).
        do {
            _ = try ImageDecoder.decode(data: data.dropLast())
            if format != .webp(quality: 80) && format != .webpLossless {
                Issue.record("\(format) missing its last byte decoded")
            }
        } catch let error as ImagingError {
            #expect(error.code == .truncatedData || error.code == .corruptData, "\(error)")
        }
    }

    @Test("deterministic header corruption is .corruptData", arguments: formats)
    func corruptHeader(format: ImageEncoder.Format) throws {
        var bytes = [UInt8](try Self.sample(format))
        switch format.imageFormat {
        case .jpeg:  // the first marker after SOI becomes a reserved one
            bytes[2] = 0xFF
            bytes[3] = 0x02
        case .png: bytes[18] ^= 0x40  // IHDR width: CRC mismatch
        case .webp: for i in 20..<30 { bytes[i] = 0xA5 }  // inside the VP8/VP8L header
        case .heic:  // rename the meta box
            let meta = try #require(Self.find("meta", in: bytes))
            bytes[meta] = 0x78
        }
        let error = CodecFixtures.expectError(.corruptData, "\(format)") { try ImageDecoder.decode(data: Data(bytes)) }
        #expect(error?.message.isEmpty == false)
    }

    @Test("random corruption decodes or throws ImagingError", arguments: formats)
    func randomCorruption(format: ImageEncoder.Format) throws {
        let data = [UInt8](try Self.sample(format))
        var random = SplitMix64(seed: 42)
        for round in 0..<60 {
            var bytes = data
            for _ in 0..<(1 + round % 8) {
                let at = Int(random.next() % UInt64(bytes.count))
                bytes[at] = UInt8(truncatingIfNeeded: random.next())
            }
            do {
                let image = try ImageDecoder.decode(data: Data(bytes), limits: ImageLimits(maximumPixelCount: 4_000_000))
                #expect(image.pixels.width > 0)
            } catch is ImagingError {
            } catch {
                Issue.record("\(format): non-ImagingError \(error)")
            }
        }
    }

    @Test func emptyAndTinyData() {
        CodecFixtures.expectError(.truncatedData) { try ImageDecoder.decode(data: Data()) }
        CodecFixtures.expectError(.truncatedData) { try ImageFormat(sniffing: Data()) }
        let prefixes: [[UInt8]] = [
            [0xFF], [0xFF, 0xD8], [0x89, 0x50, 0x4E], Array("RIFF".utf8), Array("RIFF1234WE".utf8), [0, 0, 0, 24, 0x66, 0x74],
        ]
        for prefix in prefixes {
            CodecFixtures.expectError(.truncatedData, "\(prefix)") { try ImageDecoder.decode(data: Data(prefix)) }
        }
        CodecFixtures.expectError(.truncatedData, "JPEG with only SOI and APP0 start") {
            try ImageDecoder.decode(data: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]))
        }
    }

    @Test func unsupportedFormatsAreNamed() {
        let cases: [(String, [UInt8])] = [
            ("GIF", Array("GIF89a".utf8) + [1, 0, 1, 0]), ("BMP", Array("BM".utf8) + [0, 0, 0, 0]),
            ("TIFF", [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]), ("AVIF", [0, 0, 0, 20] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("mif1".utf8)),
            ("not", Array("hello, this is text".utf8)), ("video", [0, 0, 0, 20] + Array("ftypisom".utf8) + [0, 0, 0, 0] + Array("mp41".utf8)),
            ("WebP", Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)),
        ]
        for (name, bytes) in cases {
            let error = CodecFixtures.expectError(.unsupportedFormat, "\(name)") { try ImageDecoder.decode(data: Data(bytes)) }
            if name != "video" && name != "WebP" { #expect(error?.message.contains(name) == true, "\(error?.message ?? "")") }
        }
    }

    @Test("wrong extension still decodes from the magic bytes", arguments: formats)
    func wrongExtension(format: ImageEncoder.Format) throws {
        let directory = try CodecFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wrong = format.imageFormat == .png ? "jpg" : "png"
        let url = directory.appendingPathComponent("mislabelled.\(wrong)")
        try writeAtomically(try Self.sample(format), to: url)
        let decoded = try ImageDecoder.decode(contentsOf: url)
        #expect(decoded.format == format.imageFormat)
        #expect(decoded.pixels.width == 64)
        // A text file named .png is refused by content.
        let text = directory.appendingPathComponent("notes.png")
        try writeAtomically(Data("not an image".utf8), to: text)
        CodecFixtures.expectError(.unsupportedFormat) { try ImageDecoder.decode(contentsOf: text) }
        CodecFixtures.expectError(.ioError) { try ImageDecoder.decode(contentsOf: directory.appendingPathComponent("missing.png")) }
    }

    @Test func zeroSizeImages() throws {
        let png = try ImageEncoder.encode(try CodecFixtures.gray(width: 8, height: 8), as: .png)
        for (w, h) in [(0, 8), (8, 0), (0, 0)] {
            CodecFixtures.expectError(.invalidDimensions, "PNG \(w)×\(h)") {
                try ImageDecoder.decode(data: CodecFixtures.pngWithSize(png, width: w, height: h))
            }
        }
        var jpeg = [UInt8](try ImageEncoder.encode(try CodecFixtures.gray(width: 8, height: 8), as: .jpeg()))
        let sof = try #require(Self.marker(0xC0, in: jpeg))
        jpeg[sof + 5] = 0  // height
        jpeg[sof + 6] = 0
        CodecFixtures.expectError(.invalidDimensions, "JPEG height 0") { try ImageDecoder.decode(data: Data(jpeg)) }
        var heic = [UInt8](try ImageEncoder.encode(try CodecFixtures.gray(width: 8, height: 8), as: .heic()))
        for ispe in Self.all("ispe", in: heic) { for i in (ispe + 12)..<(ispe + 20) { heic[i] = 0 } }
        do {
            _ = try ImageDecoder.decode(data: Data(heic))
            Issue.record("HEIC with zero ispe decoded")
        } catch let error as ImagingError {
            #expect(error.code == .invalidDimensions || error.code == .corruptData, "\(error)")
        }
        CodecFixtures.expectError(.invalidDimensions) { try PixelBuffer(width: 0, height: 4, format: .rgba32) }
    }

    @Test func oversizedImagesAreRefusedBeforeAllocating() throws {
        let small = ImageLimits(maximumPixelCount: 1000)
        for format in Self.formats {
            let data = try Self.sample(format)
            CodecFixtures.expectError(.tooLarge, "\(format)") { try ImageDecoder.decode(data: data, limits: small) }
            CodecFixtures.expectError(.tooLarge, "\(format) side") {
                try ImageDecoder.decode(data: data, limits: ImageLimits(maximumSide: 50))
            }
        }
        // Headers declaring huge images over tiny data: refused from the header, no allocation.
        let png = try ImageEncoder.encode(try CodecFixtures.gray(width: 8, height: 8), as: .png)
        CodecFixtures.expectError(.tooLarge, "PNG 60000×60000") {
            try ImageDecoder.decode(data: CodecFixtures.pngWithSize(png, width: 60000, height: 60000))
        }
        CodecFixtures.expectError(.tooLarge, "PNG 20000×20000 over 100 MP") {
            try ImageDecoder.decode(data: CodecFixtures.pngWithSize(png, width: 20000, height: 20000))
        }
        var jpeg = [UInt8](try ImageEncoder.encode(try CodecFixtures.gray(width: 8, height: 8), as: .jpeg()))
        let sof = try #require(Self.marker(0xC0, in: jpeg))
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0xEA, 0x60, 0xEA, 0x60])  // 60000×60000
        CodecFixtures.expectError(.tooLarge, "JPEG 60000×60000") { try ImageDecoder.decode(data: Data(jpeg)) }
        // A VP8L header (lossless) of 16384×16384 = 268 MP.
        var webp = [UInt8](try ImageEncoder.encode(try CodecFixtures.gray(width: 8, height: 8), as: .webpLossless))
        let bits: UInt32 = 16383 | 16383 << 14 | (webp[24] >> 4 & 1 == 1 ? 1 << 28 : 0)
        for i in 0..<4 { webp[21 + i] = UInt8(truncatingIfNeeded: bits >> (8 * i)) }
        CodecFixtures.expectError(.tooLarge, "WebP 16384×16384") { try ImageDecoder.decode(data: Data(webp)) }
        var heic = [UInt8](try ImageEncoder.encode(try CodecFixtures.gray(width: 8, height: 8), as: .heic()))
        for ispe in Self.all("ispe", in: heic) {
            heic.replaceSubrange((ispe + 12)..<(ispe + 20), with: CodecFixtures.bigEndian32(20000) + CodecFixtures.bigEndian32(20000))
        }
        CodecFixtures.expectError(.tooLarge, "HEIC 20000×20000") { try ImageDecoder.decode(data: Data(heic)) }
    }

    @Test func encoderArgumentErrors() throws {
        let image = try CodecFixtures.color(width: 8, height: 8)
        CodecFixtures.expectError(.invalidArgument) { try ImageEncoder.encode(image, as: .jpeg(quality: 0)) }
        CodecFixtures.expectError(.invalidArgument) { try ImageEncoder.encode(image, as: .jpeg(quality: 101)) }
        CodecFixtures.expectError(.invalidArgument) { try ImageEncoder.encode(image, as: .webp(quality: -1)) }
        CodecFixtures.expectError(.invalidArgument) { try ImageEncoder.encode(image, as: .heic(quality: 101)) }
        let yuv = try PixelBuffer(width: 8, height: 8, format: .yuv420BiPlanarFullRange)
        for format in Self.formats {
            CodecFixtures.expectError(.unsupportedPixelFormat, "\(format)") { try ImageEncoder.encode(yuv, as: format) }
        }
        var floats = try CodecFixtures.unitFloats(width: 4, height: 4)
        let row = floats.bytesPerRow()
        floats.withUnsafeMutableBytes { $0.storeBytes(of: Float(1.5), toByteOffset: row + 4, as: Float.self) }
        for format in Self.formats {
            CodecFixtures.expectError(.invalidArgument, "\(format) 1.5") { try ImageEncoder.encode(floats, as: format) }
        }
        floats.withUnsafeMutableBytes { $0.storeBytes(of: Float.nan, toByteOffset: row + 4, as: Float.self) }
        CodecFixtures.expectError(.invalidArgument, "NaN") { try ImageEncoder.encode(floats, as: .png) }
        let huge = try PixelBuffer(width: 16_384, height: 1, format: .oneComponent8)
        CodecFixtures.expectError(.invalidArgument, "WebP side") { try ImageEncoder.encode(huge, as: .webpLossless) }
    }

    @Test func atomicWritesLeaveNoPartialFile() throws {
        let directory = try CodecFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("out.png")
        try ImageEncoder.write(try CodecFixtures.gray(width: 8, height: 8), to: url, as: .png)
        let before = try Data(contentsOf: url)
        // A failing encode leaves the old file untouched and no temporary file behind.
        let yuv = try PixelBuffer(width: 8, height: 8, format: .yuv420BiPlanarFullRange)
        CodecFixtures.expectError(.unsupportedPixelFormat) { try ImageEncoder.write(yuv, to: url, as: .png) }
        #expect(try Data(contentsOf: url) == before)
        // Replacing works and leaves only the file.
        try ImageEncoder.write(try CodecFixtures.color(width: 9, height: 9), to: url, as: .png)
        #expect(try ImageDecoder.decode(contentsOf: url).pixels.width == 9)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
        // An unwritable destination is an I/O error, with nothing left behind.
        CodecFixtures.expectError(.ioError) {
            try writeAtomically(before, to: directory.appendingPathComponent("missing/out.png"))
        }
        CodecFixtures.expectError(.ioError) { try writeAtomically(before, to: URL(string: "https://example.com/x.png")!) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
    }

    // MARK: Helpers

    static func all(_ type: String, in bytes: [UInt8]) -> [Int] {
        let pattern = Array(type.utf8)
        return (0..<(bytes.count - 4)).filter { Array(bytes[$0..<$0 + 4]) == pattern }.map { $0 - 4 }
    }

    static func find(_ type: String, in bytes: [UInt8]) -> Int? { all(type, in: bytes).first.map { $0 + 4 } }

    /// Offset of the first JPEG marker `0xFF code`.
    static func marker(_ code: UInt8, in bytes: [UInt8]) -> Int? {
        (0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == code }
    }
}

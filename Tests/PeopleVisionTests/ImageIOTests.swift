import Foundation
import PeopleVision
import PVImaging
import Testing

/// CGImageSource and CGImageDestination over the package's codecs.
@Suite("ImageIO")
struct ImageIOTests {
    /// A 40 × 20 RGBA image, left half red, right half blue: its orientation shows after any turn.
    static func halves() throws -> PixelBuffer {
        var image = try PixelBuffer(width: 40, height: 20, format: .rgba32)
        let row = image.bytesPerRow()
        image.withUnsafeMutableBytes { bytes in
            for y in 0..<20 {
                for x in 0..<40 {
                    let o = y * row + x * 4
                    bytes[o] = x < 20 ? 255 : 0
                    bytes[o + 1] = 0
                    bytes[o + 2] = x < 20 ? 0 : 255
                    bytes[o + 3] = 255
                }
            }
        }
        return image
    }

    /// `jpeg` with an APP1 Exif segment holding a big-endian TIFF whose only tag is orientation `value`,
    /// built byte by byte here so the reader is checked against a writer other than its own package's.
    static func withEXIFOrientation(_ jpeg: Data, _ value: UInt8) -> Data {
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, value, 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1, 0, UInt8(payload.count + 2)] + payload
        return Data(jpeg.prefix(2) + segment + jpeg.dropFirst(2))
    }

    @Test func sourceReadsTheEXIFOrientationOfAJPEG() throws {
        let jpeg = Self.withEXIFOrientation(try ImageEncoder.encode(Self.halves(), as: .jpeg(quality: 90)), 6)
        let source = try #require(CGImageSourceCreateWithData(jpeg as CFData, nil))
        #expect(CGImageSourceGetCount(source) == 1 && CGImageSourceGetStatus(source) == .statusComplete)
        #expect(CGImageSourceGetType(source) == "public.jpeg")
        let properties = try #require(CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any])
        #expect(properties[kCGImagePropertyOrientation] as? UInt32 == 6)
        #expect(properties[kCGImagePropertyOrientation] as? Int == 6)
        #expect((properties[kCGImagePropertyOrientation] as? UInt32).flatMap(CGImagePropertyOrientation.init) == .right)
        let tiff = try #require(properties[kCGImagePropertyTIFFDictionary] as? [CFString: Any])
        #expect(tiff[kCGImagePropertyTIFFOrientation] as? Int == 6)
        // Sizes and pixels are as stored: the orientation is left to the caller, as in ImageIO.
        #expect(properties[kCGImagePropertyPixelWidth] as? Int == 40 && properties[kCGImagePropertyPixelHeight] as? Int == 20)
        let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        #expect(image.width == 40 && image.height == 20)
        #expect(CGImageSourceCopyPropertiesAtIndex(source, 1, nil) == nil && CGImageSourceCreateImageAtIndex(source, 1, nil) == nil)

        let plain = try #require(CGImageSourceCreateWithData(try ImageEncoder.encode(Self.halves(), as: .png), nil))
        let plainProperties = try #require(CGImageSourceCopyPropertiesAtIndex(plain, 0, nil))
        #expect(plainProperties[kCGImagePropertyOrientation] == nil && plainProperties[kCGImagePropertyHasAlpha] as? Bool == true)
        #expect(CGImageSourceGetType(plain) == "public.png")
    }

    @Test func destinationWritesOrientationAndQuality() throws {
        let image = CGImage(buffer: try Self.halves())
        let data = NSMutableData()
        let destination = try #require(CGImageDestinationCreateWithData(data as CFMutableData, "public.jpeg" as CFString, 1, nil))
        CGImageDestinationAddImage(
            destination, image, [kCGImagePropertyOrientation: 8, kCGImageDestinationLossyCompressionQuality: 0.8] as CFDictionary)
        #expect(CGImageDestinationFinalize(destination))
        #expect(!CGImageDestinationFinalize(destination))   // once only
        let written = Data(referencing: data)
        // The package's decoder reads the tag back (an independent EXIF reader) …
        let info = try ImageDecoder.info(data: written)
        #expect(info.format == .jpeg && info.orientation == .left && info.width == 40 && info.height == 20)
        // … and so does the image source.
        let source = try #require(CGImageSourceCreateWithData(written, nil))
        #expect(CGImageSourceCopyPropertiesAtIndex(source, 0, nil)?[kCGImagePropertyOrientation] as? UInt32 == 8)
        // A lower quality gives a smaller file.
        let low = NSMutableData()
        let lowDestination = try #require(CGImageDestinationCreateWithData(low, "public.jpeg", 1, nil))
        CGImageDestinationAddImage(lowDestination, CGImage(buffer: try ImageIOTests.noise()), [kCGImageDestinationLossyCompressionQuality: 0.1])
        let high = NSMutableData()
        let highDestination = try #require(CGImageDestinationCreateWithData(high, "public.jpeg", 1, nil))
        CGImageDestinationAddImage(highDestination, CGImage(buffer: try ImageIOTests.noise()), [kCGImageDestinationLossyCompressionQuality: 1.0])
        #expect(CGImageDestinationFinalize(lowDestination) && CGImageDestinationFinalize(highDestination))
        #expect(low.length < high.length / 2)
    }

    static func noise() throws -> PixelBuffer {
        var image = try PixelBuffer(width: 64, height: 64, format: .rgba32)
        var state: UInt32 = 12345
        image.withUnsafeMutableBytes { bytes in
            for i in 0..<bytes.count {
                state = state &* 1_664_525 &+ 1_013_904_223
                bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
            }
        }
        return image
    }

    @Test func destinationWritesFilesAndVisionHonoursTheirOrientation() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imageio-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: url) }
        let destination = try #require(CGImageDestinationCreateWithURL(url as CFURL, "public.png" as CFString, 1, nil))
        CGImageDestinationAddImage(destination, CGImage(buffer: try Self.halves()), [kCGImagePropertyOrientation: 6] as CFDictionary)
        #expect(CGImageDestinationFinalize(destination))
        let source = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        #expect(CGImageSourceCopyPropertiesAtIndex(source, 0, nil)?[kCGImagePropertyOrientation] as? Int == 6)
        // Read upright, the 40 × 20 image stands 20 × 40 (a quarter turn clockwise).
        let upright = try ImageDecoder.decode(contentsOf: url).pixels
        #expect(upright.width == 20 && upright.height == 40)
        #expect(CGImageSourceCopyProperties(source, nil)?[kCGImagePropertyFileSize] as? Int == (try Data(contentsOf: url)).count)
    }

    @Test func badInputFailsWithoutCrashing() throws {
        let junk = try #require(CGImageSourceCreateWithData(Data("not an image".utf8), nil))
        #expect(CGImageSourceGetCount(junk) == 0 && CGImageSourceGetStatus(junk) == .statusUnknownType)
        #expect(CGImageSourceCreateImageAtIndex(junk, 0, nil) == nil && CGImageSourceCopyPropertiesAtIndex(junk, 0, nil) == nil)
        #expect(CGImageSourceGetType(junk) == nil)
        let truncated = try ImageEncoder.encode(Self.halves(), as: .png).prefix(40)
        let cut = try #require(CGImageSourceCreateWithData(Data(truncated), nil))
        #expect(CGImageSourceCreateImageAtIndex(cut, 0, nil) == nil)
        #expect(CGImageSourceCreateWithURL(URL(fileURLWithPath: "/nonexistent/photo.jpg") as CFURL, nil) == nil)

        let data = NSMutableData()
        #expect(CGImageDestinationCreateWithData(data, "public.tiff", 1, nil) == nil)
        #expect(CGImageDestinationCreateWithData(data, "public.jpeg", 2, nil) == nil)
        #expect(CGImageDestinationCreateWithURL(URL(string: "https://example.com/a.jpg")!, "public.jpeg", 1, nil) == nil)
        let empty = try #require(CGImageDestinationCreateWithData(data, "public.jpeg", 1, nil))
        #expect(!CGImageDestinationFinalize(empty))
        let image = CGImage(buffer: try Self.halves())
        for (type, properties) in [
            ("public.jpeg", [kCGImagePropertyOrientation: 9] as CFDictionary),
            ("public.jpeg", [kCGImageDestinationLossyCompressionQuality: 2.0]),
            ("public.jpeg", [kCGImagePropertyOrientation: "up"]),
            ("org.webmproject.webp", [kCGImagePropertyOrientation: 6]),
        ] {
            let destination = try #require(CGImageDestinationCreateWithData(data, type, 1, nil))
            CGImageDestinationAddImage(destination, image, properties)
            #expect(!CGImageDestinationFinalize(destination), "\(type) \(properties)")
        }
        #expect(data.length == 0)
        #expect(CGImageDestinationCopyTypeIdentifiers().count == 4)
    }

    @Test func auxiliaryMatteOfAHEIC() throws {
        var matte = try PixelBuffer(width: 10, height: 6, format: .oneComponent8)
        matte.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 200) }
        let heic = try ImageEncoder.encodeHEIC(
            Self.halves(), quality: 90, auxiliaryImages: [HEICAuxiliaryImage(type: .portraitEffectsMatte, pixels: matte)])
        let source = try #require(CGImageSourceCreateWithData(heic, nil))
        #expect(CGImageSourceGetType(source) == "public.heic")
        let info = try #require(CGImageSourceCopyAuxiliaryDataInfoAtIndex(source, 0, kCGImageAuxiliaryDataTypePortraitEffectsMatte))
        let description = try #require(info[kCGImageAuxiliaryDataInfoDataDescription] as? [CFString: Any])
        #expect(description["Width"] as? Int == 10 && description["Height"] as? Int == 6 && description["BytesPerRow"] as? Int == 10)
        #expect(description["PixelFormat"] as? UInt32 == kCVPixelFormatType_OneComponent8)
        let bytes = try #require(info[kCGImageAuxiliaryDataInfoData] as? Data)
        #expect(bytes.count == 60 && bytes.allSatisfy { abs(Int($0) - 200) <= 3 })
        #expect(CGImageSourceCopyAuxiliaryDataInfoAtIndex(source, 0, kCGImageAuxiliaryDataTypeSemanticSegmentationHairMatte) == nil)
        #expect(CGImageSourceCopyAuxiliaryDataInfoAtIndex(source, 0, kCGImageAuxiliaryDataTypeDepth) == nil)
    }
}

@Suite("ImageIO thumbnails")
struct ImageIOThumbnailTests {
    @Test func thumbnailsShrinkAndTurnUpright() throws {
        // 40 × 20 stored, EXIF 6: shown upright it stands 20 × 40.
        let jpeg = ImageIOTests.withEXIFOrientation(try ImageEncoder.encode(ImageIOTests.halves(), as: .jpeg(quality: 95)), 6)
        let source = try #require(CGImageSourceCreateWithData(jpeg, nil))
        #expect(CGImageSourceCreateThumbnailAtIndex(source, 0, nil) == nil)   // no thumbnail in the file, none asked for
        let always = [kCGImageSourceCreateThumbnailFromImageAlways: true, kCGImageSourceThumbnailMaxPixelSize: 10] as CFDictionary
        let stored = try #require(CGImageSourceCreateThumbnailAtIndex(source, 0, always))
        #expect(stored.width == 10 && stored.height == 5)
        let turned = try #require(
            CGImageSourceCreateThumbnailAtIndex(
                source, 0,
                [kCGImageSourceCreateThumbnailFromImageIfAbsent: true, kCGImageSourceThumbnailMaxPixelSize: 10,
                 kCGImageSourceCreateThumbnailWithTransform: true] as CFDictionary))
        #expect(turned.width == 5 && turned.height == 10)
        // Upright, the stored left (red) half is on top: a quarter turn clockwise.
        let pixels = turned.buffer
        let top = pixels.withUnsafeBytes { Array($0[0..<4]) }, bottom = pixels.withUnsafeBytes { Array($0[9 * pixels.bytesPerRow()..<(9 * pixels.bytesPerRow() + 4)]) }
        #expect(top[0] > 200 && top[2] < 60 && bottom[2] > 200 && bottom[0] < 60, "top \(top), bottom \(bottom)")
        // Never enlarged; a bad size is refused.
        let large = [kCGImageSourceCreateThumbnailFromImageAlways: true, kCGImageSourceThumbnailMaxPixelSize: 4000] as CFDictionary
        #expect(CGImageSourceCreateThumbnailAtIndex(source, 0, large)?.width == 40)
        let zero = [kCGImageSourceCreateThumbnailFromImageAlways: true, kCGImageSourceThumbnailMaxPixelSize: 0] as CFDictionary
        #expect(CGImageSourceCreateThumbnailAtIndex(source, 0, zero) == nil)
    }
}

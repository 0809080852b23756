// Person-segmentation patterns as virtual-background and portrait apps write them: the mask scaled onto the photo and
// blended over a new background, the Core Image filter, the three quality levels and output formats, a mask across
// video frames, and the composite written out as PNG and JPEG.
import CoreImage
import CoreImage.CIFilterBuiltins
import CoreVideo
import ImageIO
import Testing
import Vision

@Suite struct SegmentationPatterns {
    /// Her face and a patch of the sky-coloured backdrop above her shoulder (normalized, lower-left origin).
    static let face = CGRect(x: 0.4, y: 0.68, width: 0.14, height: 0.12)
    static let backdrop = CGRect(x: 0.62, y: 0.88, width: 0.1, height: 0.08)

    /// The person from `photo` over `background`: the mask scaled to the photo with an affine transform and used by
    /// the builtin blend.
    static func replaceBackground(of photo: CIImage, with background: CIImage) throws -> CIImage? {
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .balanced
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        try VNImageRequestHandler(ciImage: photo, options: [:]).perform([request])
        guard let maskBuffer = request.results?.first?.pixelBuffer else { return nil }
        let mask = CIImage(cvPixelBuffer: maskBuffer)
        let scaleX = photo.extent.width / mask.extent.width, scaleY = photo.extent.height / mask.extent.height
        let fitted = background.transformed(by: CGAffineTransform(
            scaleX: photo.extent.width / background.extent.width, y: photo.extent.height / background.extent.height))
        let blend = CIFilter.blendWithMask()
        blend.inputImage = photo
        blend.backgroundImage = fitted
        blend.maskImage = mask.transformed(by: CGAffineTransform(scaleX: scaleX, y: scaleY))
        return blend.outputImage
    }

    @Test func virtualBackground() throws {
        let photo = try Frames.picture("astronaut.png"), rocket = try Frames.picture("rocket.jpg")
        let composite = try #require(try Self.replaceBackground(of: photo, with: rocket))
        #expect(composite.extent == photo.extent)
        let out = try Frames.pixelBuffer(composite)
        let original = try Frames.pixelBuffer(photo)
        let background = try Frames.pixelBuffer(rocket.transformed(by: CGAffineTransform(scaleX: 512 / 640, y: 512 / 427)))
        func distance(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        // Her face stays as it was (but for the few per cent a soft mask lets through); the backdrop above her
        // shoulder becomes the rocket picture.
        let faceNow = try Frames.meanColor(of: out, in: Self.face), faceBefore = try Frames.meanColor(of: original, in: Self.face)
        let faceBehind = try Frames.meanColor(of: background, in: Self.face)
        #expect(distance(faceNow, faceBefore) < 0.2 * distance(faceBehind, faceBefore))
        let backdropNow = try Frames.meanColor(of: out, in: Self.backdrop)
        #expect(distance(backdropNow, try Frames.meanColor(of: background, in: Self.backdrop)) < 20)
        #expect(distance(backdropNow, try Frames.meanColor(of: original, in: Self.backdrop)) > 30)
    }

    @Test func coreImagePersonSegmentationFilter() throws {
        let photo = try Frames.picture("astronaut.png")
        let filter = CIFilter.personSegmentation()
        filter.inputImage = photo
        filter.qualityLevel = 1
        let mask = try #require(filter.outputImage)
        // The mask may come at its own size; apps scale it onto the photo. Red marks the person.
        let scaled = mask.transformed(by: CGAffineTransform(
            scaleX: photo.extent.width / mask.extent.width, y: photo.extent.height / mask.extent.height))
        let rendered = try Frames.pixelBuffer(scaled)
        #expect(CVPixelBufferGetWidth(rendered) == 512 && CVPixelBufferGetHeight(rendered) == 512)
        #expect(try Frames.meanColor(of: rendered, in: Self.face).x > 200)
        #expect(try Frames.meanColor(of: rendered, in: Self.backdrop).x < 50)
    }

    @Test func qualityLevelsAndPixelFormats() throws {
        let url = try Samples.image("astronaut.png")
        let formats = [kCVPixelFormatType_OneComponent8, kCVPixelFormatType_OneComponent16Half, kCVPixelFormatType_OneComponent32Float]
        var widths: [VNGeneratePersonSegmentationRequest.QualityLevel: Int] = [:]
        for level in [VNGeneratePersonSegmentationRequest.QualityLevel.fast, .balanced, .accurate] {
            for format in formats {
                let request = VNGeneratePersonSegmentationRequest()
                request.qualityLevel = level
                request.outputPixelFormat = format
                #expect(try request.supportedOutputPixelFormats().map(\.uint32Value).contains(format))
                try VNImageRequestHandler(url: url).perform([request])
                let mask = try #require(request.results?.first?.pixelBuffer)
                #expect(CVPixelBufferGetPixelFormatType(mask) == format)
                #expect(try Frames.mean(of: mask, in: Self.face) > 0.8, "\(level) \(format)")
                #expect(try Frames.mean(of: mask, in: Self.backdrop) < 0.2, "\(level) \(format)")
                widths[level] = CVPixelBufferGetWidth(mask)
            }
        }
        // The accurate level is the finest.
        #expect(widths[.accurate]! >= widths[.balanced]! && widths[.accurate]! >= widths[.fast]!)
    }

    @Test func maskFollowsThePersonAcrossFrames() throws {
        // A video call: one request reused on consecutive frames (the mask is smoothed over time).
        let person = try Frames.picture("astronaut.png").transformed(by: CGAffineTransform(scaleX: 0.5, y: 0.5))
        let backdrop = CIImage(color: CIColor(red: 0.2, green: 0.3, blue: 0.35)).cropped(to: CGRect(x: 0, y: 0, width: 512, height: 288))
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .fast
        let sequence = VNSequenceRequestHandler()
        var centres: [Double] = []
        for step in 0..<5 {
            let frame = try Frames.pixelBuffer(person.transformed(by: CGAffineTransform(translationX: CGFloat(40 + 50 * step), y: 16))
                .composited(over: backdrop))
            try sequence.perform([request], on: frame)
            let mask = try #require(request.results?.first?.pixelBuffer)
            // The mask's weighted centre, by columns.
            var weighted = 0.0, total = 0.0
            for column in 0..<32 {
                let strip = CGRect(x: Double(column) / 32, y: 0, width: 1.0 / 32, height: 1)
                let value = try Frames.mean(of: mask, in: strip)
                weighted += value * (Double(column) + 0.5) / 32
                total += value
            }
            #expect(total > 0.5, "someone is masked in frame \(step)")
            centres.append(weighted / max(total, 1e-9))
        }
        // She moves right by 50 px (about 0.1 of the frame) a frame: so does the mask.
        #expect(zip(centres, centres.dropFirst()).allSatisfy { $1 - $0 > 0.05 && $1 - $0 < 0.15 }, "\(centres)")
    }

    @Test func compositeWrittenAsPNGAndJPEG() throws {
        let photo = try Frames.picture("astronaut.png")
        let background = CIImage(color: CIColor(red: 0.1, green: 0.6, blue: 0.2)).cropped(to: photo.extent)
        let composite = try #require(try Self.replaceBackground(of: photo, with: background))
        let context = CIContext()
        let sRGB = try #require(CGColorSpace(name: CGColorSpace.sRGB))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("patterns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("greeting.png")
        try context.writePNGRepresentation(of: composite, to: png, format: .RGBA8, colorSpace: sRGB)
        let jpeg = try #require(context.jpegRepresentation(of: composite, colorSpace: sRGB, options: [:]))
        #expect(jpeg.starts(with: [0xFF, 0xD8]))
        let cgImage = try #require(context.createCGImage(composite, from: composite.extent))
        #expect(cgImage.width == 512 && cgImage.height == 512)

        // Read back with ImageIO, as a share extension would.
        let source = try #require(CGImageSourceCreateWithURL(png as CFURL, nil))
        let properties = try #require(CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any])
        #expect(properties[kCGImagePropertyPixelWidth] as? Int == 512 && properties[kCGImagePropertyPixelHeight] as? Int == 512)
        let decoded = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        let reread = try Frames.pixelBuffer(CIImage(cgImage: decoded))
        // The backdrop is the new green, her face is not.
        let backdrop = try Frames.meanColor(of: reread, in: Self.backdrop)
        #expect(backdrop.y > 120 && backdrop.x < 60 && backdrop.z < 90, "\(backdrop)")
        #expect(try Frames.meanColor(of: reread, in: Self.face).x > 120)
    }
}

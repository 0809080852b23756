import Foundation
import PeopleVision
import PVImaging
import PVTestSupport
import Testing

/// The person-segmentation request through the public API only (plus PVImaging to read fixtures).
@Suite struct PersonSegmentationEndToEndTests {
    static let levels: [VNGeneratePersonSegmentationRequest.QualityLevel] = [.fast, .balanced, .accurate]

    /// Runs the request and returns the mask as floats 0…1, resized (nearest) to `width × height`.
    static func mask(
        _ url: URL, level: VNGeneratePersonSegmentationRequest.QualityLevel,
        format: OSType = kCVPixelFormatType_OneComponent32Float, configure: (VNGeneratePersonSegmentationRequest) -> Void = { _ in }
    ) throws -> (pixels: PixelBuffer, request: VNGeneratePersonSegmentationRequest) {
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = level
        request.outputPixelFormat = format
        configure(request)
        try VNImageRequestHandler(url: url).perform([request])
        let observation = try #require(request.results?.first)
        #expect(request.results?.count == 1)
        #expect(observation.confidence == 1)
        #expect(CVPixelBufferGetPixelFormatType(observation.pixelBuffer) == format)
        return (observation.pixelBuffer.pixelBuffer, request)
    }

    /// Fraction of `mask` (any one-component format) at or above 0.5, sampled on a `w × h` grid,
    /// and its IoU with a reference 8-bit mask of that grid.
    static func compare(_ mask: PixelBuffer, reference: PixelBuffer) throws -> (iou: Double, coverage: Double) {
        let m = try mask.converted(to: .oneComponent32Float)
        let w = reference.width, h = reference.height
        var inter = 0, union = 0, on = 0
        m.withUnsafeBytes { mb in
            reference.withUnsafeBytes { rb in
                let mf = mb.bindMemory(to: Float.self)
                for y in 0..<h {
                    for x in 0..<w {
                        let mx = min(m.width - 1, x * m.width / w), my = min(m.height - 1, y * m.height / h)
                        let a = mf[my * (m.bytesPerRow() / 4) + mx] >= 0.5
                        let b = rb[y * reference.bytesPerRow() + x] >= 128
                        if a { on += 1 }
                        if a && b { inter += 1 }
                        if a || b { union += 1 }
                    }
                }
            }
        }
        return (union == 0 ? 1 : Double(inter) / Double(union), Double(on) / Double(w * h))
    }

    static func reference(_ name: String) throws -> PixelBuffer {
        let url = TestFiles.fixtures.appendingPathComponent("segmentation/\(name)")
        var options = ImageDecoder.Options()
        options.keepsGrayscale = true
        return try ImageDecoder.decode(contentsOf: url, options: options).pixels
    }

    @Test(arguments: [VNGeneratePersonSegmentationRequest.QualityLevel.fast, .balanced])
    func coversTheAstronaut(level: VNGeneratePersonSegmentationRequest.QualityLevel) throws {
        let (pixels, _) = try Self.mask(try TestFiles.installed("astronaut.png"), level: level)
        // The reference is MediaPipe's own selfie pipeline on the same model (landscape for fast, general for balanced).
        let ref = try Self.reference(level == .balanced ? "astronaut.general.png" : "astronaut.landscape.png")
        let (iou, coverage) = try Self.compare(pixels, reference: ref)
        #expect(iou >= 0.9, "IoU \(iou) against MediaPipe's mask")
        #expect(coverage > 0.3)
    }

    /// A large JPEG read by the handler itself is decoded smaller for the fast and balanced levels (their masks come
    /// from 256-pixel inputs): the mask matches the one from the fully decoded pixels, and a request that needs the
    /// whole image on the same handler still gets it.
    @Test(arguments: [VNGeneratePersonSegmentationRequest.QualityLevel.fast, .balanced])
    func largeJPEGsAreDecodedSmallerWithTheSameMask(level: VNGeneratePersonSegmentationRequest.QualityLevel) throws {
        let astronaut = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
        let large = try astronaut.resized(width: 2048, height: 2048)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pv-large-\(level.rawValue).jpg")
        try ImageEncoder.encode(large, as: .jpeg()).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let (fromFile, _) = try Self.mask(file, level: level)
        let decoded = try ImageDecoder.decode(contentsOf: file).pixels
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = level
        request.outputPixelFormat = kCVPixelFormatType_OneComponent32Float
        try VNImageRequestHandler(cvPixelBuffer: CVPixelBuffer(decoded)).perform([request])
        let full = try #require(request.results?.first).pixelBuffer.pixelBuffer
        #expect(fromFile.width == full.width && fromFile.height == full.height)
        let reference = try full.converted(to: .oneComponent8)
        let (iou, coverage) = try Self.compare(fromFile, reference: reference)
        #expect(iou >= 0.95, "IoU \(iou) between the masks of the smaller and the full decode")
        #expect(coverage > 0.3)

        let handler = VNImageRequestHandler(url: file)
        let segmentation = VNGeneratePersonSegmentationRequest()
        segmentation.qualityLevel = level
        try handler.perform([segmentation])
        // A quarter of 2048 is the smallest DCT scale whose side is at least 480.
        #expect(handler.decodedSizes().reduced?.width == 512 && handler.decodedSizes().full == nil)
        let header = try handler.imageSize()
        #expect(header.width == 2048 && header.height == 2048 && handler.decodedSizes().full == nil, "read from the header")
        let faces = VNDetectFaceRectanglesRequest()
        try handler.perform([faces])
        #expect(faces.results?.count == 1)
        let size = try handler.imageSize()
        #expect(size.width == 2048 && size.height == 2048)
    }

    /// The accurate level takes the person's shape from the pose model (a held helmet is not the person), so its
    /// reference is MediaPipe's pose pipeline mask (Tests/Fixtures/pose, sampled on a 64×64 grid).
    @Test func accurateCoversTheAstronaut() throws {
        let (pixels, _) = try Self.mask(try TestFiles.installed("astronaut.png"), level: .accurate)
        struct Fixture: Decodable {
            struct Grid: Decodable { let xs: [Int]; let ys: [Int]; let values: [Float] }
            let segmentation: Grid
        }
        let data = try Data(contentsOf: TestFiles.fixtures.appendingPathComponent("pose/astronaut.json"))
        let grid = try JSONDecoder().decode(Fixture.self, from: data).segmentation
        let mask = try pixels.converted(to: .oneComponent32Float)
        var inter = 0, union = 0
        mask.withUnsafeBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            for (j, y) in grid.ys.enumerated() {
                for (i, x) in grid.xs.enumerated() {
                    let ours = m[y * (mask.bytesPerRow() / 4) + x] >= 0.5
                    let theirs = grid.values[j * grid.xs.count + i] >= 0.5
                    if ours && theirs { inter += 1 }
                    if ours || theirs { union += 1 }
                }
            }
        }
        let iou = Double(inter) / Double(max(union, 1))
        #expect(iou >= 0.9, "IoU \(iou) against MediaPipe's pose mask")
    }

    @Test(arguments: levels)
    func emptyOnACat(level: VNGeneratePersonSegmentationRequest.QualityLevel) throws {
        // MediaPipe's selfie models mark most of this cat photo as foreground; Vision's request must not.
        let (pixels, _) = try Self.mask(try TestFiles.installed("chelsea.png"), level: level)
        let blank = try PixelBuffer(width: 64, height: 64, format: .oneComponent8)
        let (_, coverage) = try Self.compare(pixels, reference: blank)
        #expect(coverage < 0.01, "\(Int(coverage * 100)) % of the cat photo is marked as person")
    }

    @Test func maskSizesPerLevel() throws {
        let url = try TestFiles.installed("astronaut.png")
        #expect(try Self.mask(url, level: .fast).pixels.width == 256)
        #expect(try Self.mask(url, level: .fast).pixels.height == 144)
        #expect(try Self.mask(url, level: .balanced).pixels.width == 256)
        let accurate = try Self.mask(url, level: .accurate).pixels
        #expect(accurate.width == 512 && accurate.height == 512, "accurate masks have the image's size")
    }

    @Test(arguments: levels)
    func pixelFormatsAgree(level: VNGeneratePersonSegmentationRequest.QualityLevel) throws {
        let url = try TestFiles.installed("astronaut.png")
        let f32 = try Self.mask(url, level: level, format: kCVPixelFormatType_OneComponent32Float).pixels
        let f16 = try Self.mask(url, level: level, format: kCVPixelFormatType_OneComponent16Half).pixels.converted(to: .oneComponent32Float)
        let u8 = try Self.mask(url, level: level, format: kCVPixelFormatType_OneComponent8).pixels.converted(to: .oneComponent32Float)
        var worst16: Float = 0, worst8: Float = 0
        f32.withUnsafeBytes { a in f16.withUnsafeBytes { b in u8.withUnsafeBytes { c in
            let fa = a.bindMemory(to: Float.self), fb = b.bindMemory(to: Float.self), fc = c.bindMemory(to: Float.self)
            let s = f32.bytesPerRow() / 4
            for y in 0..<f32.height { for x in 0..<f32.width {
                worst16 = max(worst16, abs(fa[y * s + x] - fb[y * s + x]))
                worst8 = max(worst8, abs(fa[y * s + x] - fc[y * s + x]))
            } }
        } } }
        #expect(worst16 <= 1e-3, "half differs by \(worst16)")
        #expect(worst8 <= 0.5 / 255 + 1e-6, "8-bit differs by \(worst8)")
        // Byte for byte what converting the float mask gives (the accurate level writes its 8-bit mask directly).
        let bytes = try Self.mask(url, level: level, format: kCVPixelFormatType_OneComponent8).pixels
        let converted = try f32.converted(to: .oneComponent8)
        var differing = 0
        bytes.withUnsafeBytes { a in converted.withUnsafeBytes { b in
            for y in 0..<bytes.height { for x in 0..<bytes.width where a[y * bytes.bytesPerRow() + x] != b[y * converted.bytesPerRow() + x] {
                differing += 1
            } }
        } }
        #expect(differing == 0, "\(differing) bytes differ from the converted float mask")
    }

    @Test func regionOfInterestIsHonoured() throws {
        let url = try TestFiles.installed("astronaut.png")
        let full = try Self.mask(url, level: .accurate).pixels
        // Lower-left origin: (0, 0.5, 0.5, 0.5) is the image's top-left quarter.
        let roi = try Self.mask(url, level: .accurate) { $0.regionOfInterest = CGRect(x: 0, y: 0.5, width: 0.5, height: 0.5) }.pixels
        #expect(roi.width == 256 && roi.height == 256)
        let topLeft = try full.cropped(x: 0, y: 0, width: 256, height: 256)
        let reference = try topLeft.converted(to: .oneComponent8)
        #expect(try Self.compare(roi, reference: reference).iou > 0.85)
    }

    @Test func orientationIsHonoured() throws {
        let url = try TestFiles.installed("astronaut.png")
        let upright = try ImageDecoder.decode(contentsOf: url).pixels
        // Store the image turned a quarter turn, and tell Vision how to turn it back.
        let stored = try upright.applying(.left)
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .accurate
        let buffer = CVPixelBuffer(stored)
        try VNImageRequestHandler(cvPixelBuffer: buffer, orientation: .right).perform([request])
        let rotated = try #require(request.results?.first).pixelBuffer.pixelBuffer
        #expect(rotated.width == upright.width && rotated.height == upright.height)
        let direct = try Self.mask(url, level: .accurate).pixels.converted(to: .oneComponent8)
        #expect(try Self.compare(rotated, reference: direct).iou > 0.95)
    }

    @Test func errorsAreVisionErrors() throws {
        let url = try TestFiles.installed("astronaut.png")
        func code(_ body: () throws -> Void) -> Int? {
            do { try body(); return nil } catch let e as NSError {
                #expect(e.domain == VNErrorDomain)
                return e.code
            }
        }
        let badFormat = VNGeneratePersonSegmentationRequest()
        badFormat.outputPixelFormat = kCVPixelFormatType_32BGRA
        #expect(code { try VNImageRequestHandler(url: url).perform([badFormat]) } == VNErrorCode.invalidOption.rawValue)
        #expect(badFormat.results == nil)

        let badROI = VNGeneratePersonSegmentationRequest()
        badROI.regionOfInterest = CGRect(x: 0.5, y: 0.5, width: 1, height: 1)
        #expect(code { try VNImageRequestHandler(url: url).perform([badROI]) } == VNErrorCode.invalidArgument.rawValue)

        let badRevision = VNGeneratePersonSegmentationRequest()
        badRevision.revision = 7
        #expect(code { try VNImageRequestHandler(url: url).perform([badRevision]) } == VNErrorCode.unsupportedRevision.rawValue)

        let missing = URL(fileURLWithPath: "/nonexistent/photo.jpg")
        #expect(code { try VNImageRequestHandler(url: missing).perform([VNGeneratePersonSegmentationRequest()]) } == VNErrorCode.invalidImage.rawValue)
        // The message says why the file cannot be read.
        func message(_ url: URL) -> String {
            do { try VNImageRequestHandler(url: url).perform([VNGeneratePersonSegmentationRequest()]) } catch { return "\(error)" }
            return ""
        }
        #expect(message(missing).contains("no such file"))
        let folder = FileManager.default.temporaryDirectory
        #expect(code { try VNImageRequestHandler(url: folder).perform([VNGeneratePersonSegmentationRequest()]) } == VNErrorCode.invalidImage.rawValue)
        #expect(message(folder).contains("directory"))

        let garbage = Data("this is not an image".utf8)
        #expect(code { try VNImageRequestHandler(data: garbage).perform([VNGeneratePersonSegmentationRequest()]) } != nil)
    }

    /// A request performed again on a frame of the same size smooths its mask against the previous frame's (MODELS.md
    /// §10.5: uncertain pixels lean on the past, ratio 0.7 at the fast level); a new request starts afresh, and so does
    /// the same request on a frame whose mask has another size.
    @Test func reusedRequestSmoothsAcrossFrames() throws {
        let photo = try #require(CIImage(contentsOf: try TestFiles.installed("astronaut.png")))
        let moved = photo.transformed(by: CGAffineTransform(translationX: 9, y: 0)).cropped(to: photo.extent)
        func floats(_ request: VNGeneratePersonSegmentationRequest, _ image: CIImage) throws -> [Float] {
            try VNImageRequestHandler(ciImage: image).perform([request])
            let m = try #require(request.results?.first).pixelBuffer.pixelBuffer
            return m.withUnsafeBytes { raw in
                let f = raw.bindMemory(to: Float.self), stride = m.bytesPerRow() / 4
                return (0..<(m.width * m.height)).map { f[($0 / m.width) * stride + $0 % m.width] }
            }
        }
        func request() -> VNGeneratePersonSegmentationRequest {
            let r = VNGeneratePersonSegmentationRequest()
            r.qualityLevel = .fast
            r.outputPixelFormat = kCVPixelFormatType_OneComponent32Float
            return r
        }
        let reused = request()
        let first = try floats(reused, photo)
        let smoothed = try floats(reused, moved)
        let fresh = try floats(request(), moved)
        try #require(first.count == fresh.count && smoothed.count == fresh.count)
        var changed = 0, worst: Float = 0
        for i in fresh.indices {
            let p = fresh[i], s = (p - 0.5) * (p - 0.5)
            let u = 1 - min(1, s * (5.68842 + s * (-0.748699 + s * (-57.8051 + s * (291.309 + s * -624.717)))))
            worst = max(worst, abs(smoothed[i] - (p + (first[i] - p) * (u * 0.7))))
            if abs(smoothed[i] - p) > 1e-3 { changed += 1 }
        }
        #expect(worst < 1e-5, "the smoothing rule, pixel by pixel")
        #expect(changed > 100, "the moved person's uncertain edges lean on the first frame: \(changed) pixels")
        // The fast level's mask has the model's size whatever the frame's; the accurate level's has the frame's, so a
        // frame of another size has nothing to smooth against.
        let accurate = request()
        accurate.qualityLevel = .accurate
        _ = try floats(accurate, photo)
        let small = photo.transformed(by: CGAffineTransform(scaleX: 0.5, y: 0.5))
        let afresh = request()
        afresh.qualityLevel = .accurate
        #expect(try floats(accurate, small) == (try floats(afresh, small)))
    }

    @Test func completionHandlerRunsBeforePerformReturns() throws {
        let url = try TestFiles.installed("astronaut.png")
        nonisolated(unsafe) var called = 0
        let request = VNGeneratePersonSegmentationRequest { request, error in
            #expect(error == nil)
            #expect((request.results as? [VNPixelBufferObservation])?.count == 1)
            called += 1
        }
        request.qualityLevel = .fast
        try VNImageRequestHandler(url: url).perform([request])
        #expect(called == 1)
    }

    @Test func handlersRunConcurrently() throws {
        let url = try TestFiles.installed("astronaut.png")
        let results = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let request = VNGeneratePersonSegmentationRequest()
            request.qualityLevel = i % 2 == 0 ? .fast : .balanced
            if (try? VNImageRequestHandler(url: url).perform([request])) != nil, request.results?.count == 1 {
                results.withLock { $0.append(i) }
            }
        }
        #expect(results.withLock { $0.sorted() } == [0, 1, 2, 3])
    }
}

import Synchronization

@Suite struct CoreImageInputTests {
    @Test func infiniteImageIsAnInvalidImage() throws {
        let request = VNGeneratePersonSegmentationRequest()
        do {
            try VNImageRequestHandler(ciImage: CIImage(color: CIColor(red: 1, green: 0, blue: 0))).perform([request])
            Issue.record("an infinite CIImage cannot be analysed")
        } catch let e as NSError {
            #expect(e.domain == VNErrorDomain)
            #expect(e.code == VNErrorCode.invalidImage.rawValue)
        }
    }

    @Test func croppedColourImageHasNoPeople() throws {
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .fast
        let image = CIImage(color: CIColor(red: 0.2, green: 0.4, blue: 0.9)).cropped(to: CGRect(x: 0, y: 0, width: 320, height: 240))
        try VNImageRequestHandler(ciImage: image).perform([request])
        let mask = try #require(request.results?.first).pixelBuffer
        #expect(CVPixelBufferGetWidth(mask) == 256)
        let pixels = mask.pixelBuffer
        let maximum = pixels.withUnsafeBytes { $0.max() ?? 0 }
        #expect(maximum == 0)
    }
}

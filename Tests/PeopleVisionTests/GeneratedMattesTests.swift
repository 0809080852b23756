import Foundation
import PVImaging
import PVPerception
import PVTestSupport
@testable import PeopleVision
import Testing

/// The generated mattes on real faces: the installed samples, and the faces of the evaluation face sets
/// (`../shared/evaldata`) where that folder is beside the repository (`scripts/score-mattes` scores them against
/// their labels): where each matte may lie, checked against the face mesh found independently on the decoded image.
@Suite("Generated mattes: geometry on real faces")
struct GeneratedMattesTests {
    static let evaldata = TestFiles.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/evaldata")

    static let evaldataFaces = [
        "300vw/001/imgs/000006.jpg", "300vw/401/imgs/000731.jpg", "300wlp/AFW_134212_1_0.jpg", "300wlp/AFW_134212_2_0.jpg",
        "aflw/image04476.jpg", "aflw/image22568.jpg", "lapa/10773046825_0.jpg", "lapa/13609937564_5.jpg",
        "wflw/36_Football_americanfootball_ball_36_415.jpg", "wflw/7_Cheering_Cheering_7_16.jpg",
    ]

    /// The sample portrait (her smile shows teeth), the same at 1024 × 1024 (large enough that the mattes are
    /// measured at half size and refined back to the photo's), then the evaluation faces that are present.
    static let faceImages: [String] = ["astronaut.png", largeAstronaut]
        + evaldataFaces.filter { FileManager.default.fileExists(atPath: evaldata.appendingPathComponent($0).path) }

    static let largeAstronaut = "astronaut-1024.png"

    static func url(_ name: String) throws -> URL {
        if name == largeAstronaut {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-mattes-\(ProcessInfo.processInfo.processIdentifier)-\(name)")
            if !FileManager.default.fileExists(atPath: url.path) {
                let photo = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
                try ImageEncoder.write(try photo.resized(width: 1024, height: 1024, method: .lanczos3), to: url, as: .png)
            }
            return url
        }
        return name.contains("/") ? evaldata.appendingPathComponent(name) : try TestFiles.installed(name)
    }

    /// Row-major bytes of a one-component 8-bit buffer.
    static func bytes(_ buffer: CVPixelBuffer) -> [UInt8] {
        let pixels = buffer.pixelBuffer
        var out = [UInt8](repeating: 0, count: pixels.width * pixels.height)
        pixels.withUnsafeBytes { raw in
            for y in 0..<pixels.height {
                for x in 0..<pixels.width { out[y * pixels.width + x] = raw.load(fromByteOffset: y * pixels.bytesPerRow() + x, as: UInt8.self) }
            }
        }
        return out
    }

    @Test("teeth inside the inner lips; skin on the face and off the background; hair above the chin, on the person",
        arguments: faceImages)
    func geometry(_ name: String) throws {
        let url = try Self.url(name)
        let decoded = try ImageDecoder.decode(data: Data(contentsOf: url), options: ImageDecoder.Options(applyOrientation: true))
        let W = decoded.pixels.width, H = decoded.pixels.height
        // The faces, found on their own analysis of the same pixels.
        let faces = try ImageAnalysis(image: decoded.pixels).faces.refinedMeshes().compactMap(FaceRegions.init)
        #expect(!faces.isEmpty, "\(name): no face found")

        let request = PVGenerateMattesRequest()
        try VNImageRequestHandler(url: url).perform([request])
        let results = try #require(request.results)
        func matte(_ feature: String) throws -> [UInt8] {
            let observation = try #require(results.first { $0.featureName == feature }, "\(feature)")
            #expect(CVPixelBufferGetWidth(observation.pixelBuffer) == W && CVPixelBufferGetHeight(observation.pixelBuffer) == H)
            #expect(observation.pixelBuffer.pixelFormatType == kCVPixelFormatType_OneComponent8)
            return Self.bytes(observation.pixelBuffer)
        }
        let skin = try matte(AVSemanticSegmentationMatte.MatteType.skin.rawValue)
        let hair = try matte(AVSemanticSegmentationMatte.MatteType.hair.rawValue)
        let teeth = try matte(AVSemanticSegmentationMatte.MatteType.teeth.rawValue)
        let glasses = try matte(AVSemanticSegmentationMatte.MatteType.glasses.rawValue)
        let person = try matte(PVGenerateMattesRequest.portraitFeature)

        // Teeth: every teeth pixel inside some face's inner-lip polygon.
        var innerLips = [UInt8](repeating: 0, count: W * H)
        for face in faces { PolygonFill.mark(face.innerLips, bit: 1, in: &innerLips, width: W, height: H) }
        let strayTeeth = (0..<(W * H)).filter { teeth[$0] >= 128 && innerLips[$0] == 0 }.count
        #expect(strayTeeth == 0, "\(name): \(strayTeeth) teeth pixels outside the inner lips")

        // Skin: ≥ 90 % of each face oval minus eyes, brows and lips; < 5 % of the background (person mask < 128).
        for (k, face) in faces.enumerated() {
            var labels = [UInt8](repeating: 0, count: W * H)
            PolygonFill.mark(face.oval, bit: 1, in: &labels, width: W, height: H)
            for part in face.eyes + face.brows + [face.outerLips] { PolygonFill.mark(part, bit: 2, in: &labels, width: W, height: H) }
            let area = (0..<(W * H)).filter { labels[$0] == 1 }
            let covered = area.filter { skin[$0] >= 128 }.count
            #expect(!area.isEmpty && Double(covered) >= 0.9 * Double(area.count), "\(name) face \(k): skin covers \(covered) of \(area.count)")
        }
        let background = (0..<(W * H)).filter { person[$0] < 128 }
        let skinOnBackground = background.filter { skin[$0] >= 128 }.count
        #expect(Double(skinOnBackground) < 0.05 * Double(max(background.count, 1)), "\(name): skin on \(skinOnBackground) of \(background.count) background pixels")

        // Glasses: only about a face (within its head ellipse, chin line aside); on the one bespectacled face of
        // aflw/image22568 (looked at), over both eyes.
        for y in stride(from: 0, to: H, by: 2) {
            for x in stride(from: 0, to: W, by: 2) where glasses[y * W + x] >= 128 {
                let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                let near = faces.contains { face in
                    let e = face.headEllipse, d = p - e.centre
                    let a = (d * e.right).sum() / e.across, b = (d * e.up).sum() / e.along
                    return a * a + b * b <= 1
                }
                #expect(near, "\(name): glasses at (\(x), \(y)) far from every face")
            }
        }
        if name == "aflw/image22568.jpg" {
            let face = try #require(faces.first)
            for eye in [face.eyeCentres.right, face.eyeCentres.left] {
                #expect(glasses[Int(eye.y) * W + Int(eye.x)] == 255, "\(name): no glasses over the eye at \(eye)")
            }
        }

        // Hair: never outside the person mask; zero below each face's chin line near that face (unless in another face's
        // head area).
        #expect((0..<(W * H)).allSatisfy { hair[$0] <= person[$0] }, "\(name): hair outside the person mask")
        for (k, face) in faces.enumerated() {
            let e = face.headEllipse
            var below = 0
            for y in 0..<H {
                for x in 0..<W where hair[y * W + x] > 0 {
                    let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5), d = p - face.chin
                    let down = -(d * e.up).sum(), side = abs((d * e.right).sum())
                    guard down > 0, down < face.height, side < e.across else { continue }
                    if !faces.contains(where: { $0.inHeadArea(p) }) { below += 1 }
                }
            }
            #expect(below == 0, "\(name) face \(k): \(below) hair pixels below the chin line")
        }
    }

    @Test("sky is refused with invalidOption; no face gives empty skin, hair and teeth and still a portrait matte")
    func options() throws {
        let request = PVGenerateMattesRequest()
        request.matteTypes = [.skin, .sky]
        let blank = CITest.buffer(64, 48, kCVPixelFormatType_32BGRA) { _, _ in [90, 120, 150, 255] }
        #expect(throws: (any Error).self) { try VNImageRequestHandler(cvPixelBuffer: blank).perform([request]) }
        do {
            try VNImageRequestHandler(cvPixelBuffer: blank).perform([request])
        } catch {
            #expect((error as NSError).domain == VNErrorDomain && (error as NSError).code == VNErrorCode.invalidOption.rawValue)
        }
        request.matteTypes = [.skin, .hair, .teeth]
        try VNImageRequestHandler(cvPixelBuffer: blank).perform([request])
        let results = try #require(request.results)
        #expect(results.map(\.featureName) == ["AVSemanticSegmentationMatteTypeSkin", "AVSemanticSegmentationMatteTypeHair",
            "AVSemanticSegmentationMatteTypeTeeth", "portraitEffectsMatte"])
        for observation in results.dropLast() { #expect(Self.bytes(observation.pixelBuffer).allSatisfy { $0 == 0 }) }
        #expect(request.semanticSegmentationMattes.map(\.matteType) == [.skin, .hair, .teeth])
        #expect(request.portraitEffectsMatte != nil)
    }
}

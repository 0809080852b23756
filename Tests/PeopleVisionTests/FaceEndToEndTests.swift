import Foundation
import PVImaging
import PVTestSupport
import PeopleVision
import Testing

/// The face requests through the public API only.
@Suite("Face requests end to end", .serialized)
struct FaceEndToEndTests {
    static func handler(_ name: String) throws -> VNImageRequestHandler {
        VNImageRequestHandler(url: try TestFiles.installed(name))
    }

    /// `Tests/Fixtures/faces/<stem>.json` (scripts/make-face-goldens): MediaPipe's iris centres, normalized
    /// with a top-left origin.
    static func referencePupils(_ stem: String) throws -> (left: CGPoint, right: CGPoint) {
        struct Golden: Decodable { let irises: [[[Double]]] }
        let url = TestFiles.fixtures.appendingPathComponent("faces/\(stem).json")
        let g = try JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
        let iris = try #require(g.irises.first)
        return (CGPoint(x: iris[5][0], y: iris[5][1]), CGPoint(x: iris[0][0], y: iris[0][1]))
    }

    /// Revision 3's meshes start on the short-range detector's crops while the full-range detector still runs;
    /// on a handler whose detections a revision-2 request already made, they run afterwards. Same faces either way.
    @Test func revision3MeshesStartedEarlyOrLateAgree() throws {
        let direct = VNDetectFaceRectanglesRequest()
        try Self.handler("astronaut.png").perform([direct])
        let handler = try Self.handler("astronaut.png")
        let first = VNDetectFaceRectanglesRequest()
        first.revision = VNDetectFaceRectanglesRequestRevision2
        try handler.perform([first])
        let late = VNDetectFaceRectanglesRequest()
        try handler.perform([late])
        let a = try #require(direct.results), b = try #require(late.results)
        try #require(a.count == 1 && b.count == 1)
        #expect(a[0].boundingBox == b[0].boundingBox)
        #expect(a[0].roll == b[0].roll && a[0].yaw == b[0].yaw && a[0].pitch == b[0].pitch)
        #expect(a[0].pitch != nil)
    }

    /// A landmarks request starts the attention mesh beside the detectors, and so does a rectangles request performed
    /// together with one; after a rectangles request performed alone on the same handler it runs once the detections
    /// are known. The landmarks, their precision estimates and the pose agree.
    @Test(arguments: ["astronaut.png", "camera.png"])
    func landmarksStartedEarlyOrLateAgree(image: String) throws {
        let direct = VNDetectFaceLandmarksRequest()
        try Self.handler(image).perform([direct])
        let handler = try Self.handler(image)
        try handler.perform([VNDetectFaceRectanglesRequest()])
        let late = VNDetectFaceLandmarksRequest()
        try handler.perform([late])
        let together = VNDetectFaceLandmarksRequest()
        try Self.handler(image).perform([VNDetectFaceRectanglesRequest(), together])
        let a = try #require(direct.results)
        for b in [try #require(late.results), try #require(together.results)] {
            try #require(a.count == b.count && !a.isEmpty)
            for (x, y) in zip(a, b) {
                #expect(x.boundingBox == y.boundingBox)
                #expect(x.roll == y.roll && x.yaw == y.yaw && x.pitch == y.pitch)
                let p = try #require(x.landmarks?.allPoints), q = try #require(y.landmarks?.allPoints)
                #expect(p.normalizedPoints == q.normalizedPoints)
                #expect(p.precisionEstimatesPerPoint == q.precisionEstimatesPerPoint)
                #expect(x.landmarks?.leftPupil?.normalizedPoints == y.landmarks?.leftPupil?.normalizedPoints)
            }
        }
    }

    @Test func rectanglesRevision3HasContinuousPose() throws {
        let request = VNDetectFaceRectanglesRequest()
        #expect(request.revision == 3)
        try Self.handler("astronaut.png").perform([request])
        let faces = try #require(request.results)
        try #require(faces.count == 1)
        let face = faces[0]
        #expect(face.requestRevision == 3)
        #expect(face.confidence > 0.5 && face.confidence <= 1)
        #expect(face.landmarks == nil)
        // Her face is in the upper middle of the image (pixels ~180…270 × 70…175 of 512, top-left origin).
        let b = face.boundingBox
        #expect(b.minX > 0.3 && b.maxX < 0.6 && b.minY > 0.6 && b.maxY < 0.9, "\(b)")
        let roll = try #require(face.roll).doubleValue, yaw = try #require(face.yaw).doubleValue
        let pitch = try #require(face.pitch).doubleValue
        #expect(abs(roll) < 0.2 && abs(yaw) < 0.2 && abs(pitch) < 0.3, "roll \(roll) yaw \(yaw) pitch \(pitch)")
    }

    /// camera.png's photographer, half hidden by his camera: the attention mesh doubts the face on the short-range
    /// detector's crop (presence 0.015; MediaPipe's own face mesh returns nothing there) but not on the region of
    /// the first mesh, where the landmarks then come from: pupils on both eyes, inside the face box.
    @Test func landmarksWhereTheShortRangeCropIsDoubted() throws {
        let request = VNDetectFaceLandmarksRequest()
        try Self.handler("camera.png").perform([request])
        let face = try #require(request.results?.first)
        let landmarks = try #require(face.landmarks)
        let left = try #require(landmarks.leftPupil?.normalizedPoints.first)
        let right = try #require(landmarks.rightPupil?.normalizedPoints.first)
        #expect(left.x > right.x, "the subject's left eye is on the image's right")
        for p in [left, right] { #expect((0...1).contains(p.x) && (0.4...1).contains(p.y), "pupil \(p) in the face's upper part") }
        #expect(landmarks.allPoints?.pointCount == 76)
    }

    @Test func olderRectangleRevisions() throws {
        let r2 = VNDetectFaceRectanglesRequest()
        r2.revision = VNDetectFaceRectanglesRequestRevision2
        let r1 = VNDetectFaceRectanglesRequest()
        r1.revision = 1
        try Self.handler("camera.png").perform([r1, r2])
        let f2 = try #require(r2.results?.first), f1 = try #require(r1.results?.first)
        #expect(f1.roll == nil && f1.yaw == nil && f1.pitch == nil)
        #expect(f2.pitch == nil)
        for v in [try #require(f2.roll).doubleValue, try #require(f2.yaw).doubleValue] {
            let steps = v / (Double.pi / 4)
            #expect(abs(steps - steps.rounded()) < 1e-9, "revision 2 angle \(v) is a multiple of π/4")
        }
        let bad = VNDetectFaceRectanglesRequest()
        bad.revision = 4
        #expect { try Self.handler("camera.png").perform([bad]) } throws: { error in
            let e = error as NSError
            return e.domain == VNErrorDomain && e.code == VNErrorCode.unsupportedRevision.rawValue
        }
    }

    /// Through the API too, an in-plane rotation of the image changes roll by the same angle (counter-clockwise
    /// positive).
    @Test(arguments: [-20.0, 10])
    func rollThroughTheAPI(angle: Double) throws {
        let image = try ImageDecoder.decode(contentsOf: TestFiles.installed("astronaut.png")).pixels.converted(to: .rgba32)
        func roll(_ pixels: PixelBuffer) throws -> Double {
            let request = VNDetectFaceRectanglesRequest()
            try VNImageRequestHandler(cgImage: CGImage(buffer: pixels)).perform([request])
            return try #require(request.results?.first?.roll).doubleValue
        }
        // Rotate about the face (pixel 225, 123), counter-clockwise on screen for a positive angle.
        let t = angle * .pi / 180
        let c = SIMD2(225.0, 123.0), W = 512.0
        let off = SIMD2(W / 2, W / 2) - c
        let rect = RotatedRect(
            centerX: c.x + cos(t) * off.x - sin(t) * off.y, centerY: c.y + sin(t) * off.x + cos(t) * off.y, width: W,
            height: W, angle: t)
        let sampler = TensorSampler(width: 512, height: 512, range: 0...255, fit: .stretch, border: .replicate)
        var values = [Float](repeating: 0, count: 512 * 512 * 3)
        try values.withUnsafeMutableBufferPointer { _ = try sampler.sample(image, rect: rect, into: $0) }
        var rotated = try PixelBuffer(width: 512, height: 512, format: .rgb24)
        let stride = rotated.bytesPerRow()
        rotated.withUnsafeMutableBytes { d in
            for y in 0..<512 {
                for x in 0..<512 * 3 { d[y * stride + x] = UInt8(max(0, min(255, values[y * 512 * 3 + x].rounded()))) }
            }
        }
        let change = (try roll(rotated) - roll(image)) * 180 / .pi
        #expect(abs(change - angle) < 3, "rotation \(angle)° → roll change \(change)°")
    }

    nonisolated(unsafe) static let counts76: [(String, KeyPath<VNFaceLandmarks2D, VNFaceLandmarkRegion2D?>, Int, VNPointsClassification)] = [
        ("allPoints", \.allPoints, 76, .disconnected), ("faceContour", \.faceContour, 17, .openPath),
        ("leftEye", \.leftEye, 8, .closedPath), ("rightEye", \.rightEye, 8, .closedPath),
        ("leftEyebrow", \.leftEyebrow, 6, .openPath), ("rightEyebrow", \.rightEyebrow, 6, .openPath),
        ("nose", \.nose, 7, .closedPath), ("noseCrest", \.noseCrest, 3, .openPath), ("medianLine", \.medianLine, 5, .openPath),
        ("outerLips", \.outerLips, 14, .closedPath), ("innerLips", \.innerLips, 6, .closedPath),
        ("leftPupil", \.leftPupil, 1, .closedPath), ("rightPupil", \.rightPupil, 1, .closedPath),
    ]
    static let counts65: [String: Int] = [
        "allPoints": 65, "faceContour": 11, "leftEye": 8, "rightEye": 8, "leftEyebrow": 4, "rightEyebrow": 4, "nose": 7,
        "noseCrest": 3, "medianLine": 3, "outerLips": 10, "innerLips": 6, "leftPupil": 1, "rightPupil": 1,
    ]

    @Test func landmarkRegionsHaveTheDocumentedCounts() throws {
        let r76 = VNDetectFaceLandmarksRequest()
        let r65 = VNDetectFaceLandmarksRequest()
        r65.constellation = .constellation65Points
        try Self.handler("astronaut.png").perform([r76, r65])
        let l76 = try #require(r76.results?.first?.landmarks)
        let l65 = try #require(r65.results?.first?.landmarks)
        for (name, path, count, classification) in Self.counts76 {
            let region = try #require(l76[keyPath: path], "\(name)")
            #expect(region.pointCount == count, "76: \(name) has \(region.pointCount) points")
            #expect(region.normalizedPoints.count == count)
            #expect(region.pointsClassification == classification, "\(name) classification")
            #expect(region.precisionEstimatesPerPoint?.count == count, "\(name) precision estimates")
            let r65 = try #require(l65[keyPath: path])
            #expect(r65.pointCount == Self.counts65[name], "65: \(name) has \(r65.pointCount) points")
            #expect(r65.precisionEstimatesPerPoint == nil)
            // Every region's points are points of allPoints.
            let all = try #require(l76.allPoints).normalizedPoints
            #expect(region.normalizedPoints.allSatisfy { p in all.contains { $0 == p } }, "\(name) ⊂ allPoints")
        }
        #expect(try #require(l76.faceMesh).pointCount == 478)
        #expect(l76.confidence > 0.5)
        // Per-point estimates from the two mesh passes: in (0, 1], not all alike, most points stable on a clear face.
        let allPoints = try #require(l76.allPoints)
        let estimates = try #require(allPoints.precisionEstimatesPerPoint)
        #expect(estimates.allSatisfy { $0 > 0 && $0 <= 1 })
        #expect(Set(estimates).count > 10, "estimates differ per point")
        #expect(estimates.sorted()[estimates.count / 2] > 0.5, "median estimate on a sharp frontal face")
    }

    @Test func landmarksAreNormalizedToTheFaceBoxAndMapBack() throws {
        let request = VNDetectFaceLandmarksRequest()
        try Self.handler("astronaut.png").perform([request])
        let face = try #require(request.results?.first)
        let landmarks = try #require(face.landmarks)
        let all = try #require(landmarks.allPoints)
        for p in all.normalizedPoints {
            #expect((0...1).contains(p.x) && (0...1).contains(p.y), "\(p) lies inside the face box")
        }
        // Mapped to the image, the pupils land on MediaPipe's iris centres: the issue asks for 2 % of the eye
        // distance; the attention mesh on MediaPipe's own crop (the short-range detector's) lands within a quarter
        // of a pixel.
        let size = CGSize(width: 512, height: 512)
        let left = try #require(landmarks.leftPupil).pointsInImage(imageSize: size)[0]
        let right = try #require(landmarks.rightPupil).pointsInImage(imageSize: size)[0]
        let ref = try Self.referencePupils("astronaut")
        func pixels(_ p: CGPoint) -> CGPoint { CGPoint(x: p.x * 512, y: (1 - p.y) * 512) }  // to lower-left pixels
        let refLeft = pixels(ref.left), refRight = pixels(ref.right)
        let iod = hypot(refLeft.x - refRight.x, refLeft.y - refRight.y)
        #expect(hypot(left.x - refLeft.x, left.y - refLeft.y) < min(0.02 * iod, 0.25), "left pupil \(left) vs \(refLeft)")
        #expect(hypot(right.x - refRight.x, right.y - refRight.y) < min(0.02 * iod, 0.25), "right pupil \(right) vs \(refRight)")
        // The subject's left eye is on the image's right.
        #expect(left.x > right.x)
        // pointsInImage is the face box's affine map of normalizedPoints.
        let b = face.boundingBox
        for (n, p) in zip(all.normalizedPoints, all.pointsInImage(imageSize: size)) {
            #expect(abs(p.x - (b.minX + n.x * b.width) * 512) < 1e-6 && abs(p.y - (b.minY + n.y * b.height) * 512) < 1e-6)
        }
    }

    /// With input observations the request runs no detector: each input comes back, box unchanged, with landmarks
    /// where a face is and without where none is.
    @Test func inputFaceObservationsAreHonoured() throws {
        let face = VNFaceObservation(
            requestRevision: 3, boundingBox: CGRect(x: 0.34, y: 0.66, width: 0.19, height: 0.21), roll: nil, yaw: nil,
            pitch: nil)
        let empty = VNFaceObservation(
            requestRevision: 3, boundingBox: CGRect(x: 0.02, y: 0.02, width: 0.1, height: 0.1), roll: nil, yaw: nil, pitch: nil)
        let request = VNDetectFaceLandmarksRequest()
        request.inputFaceObservations = [face, empty]
        try Self.handler("astronaut.png").perform([request])
        let results = try #require(request.results)
        try #require(results.count == 2)
        #expect(results[0].boundingBox == face.boundingBox && results[1].boundingBox == empty.boundingBox)
        let pupil = try #require(results[0].landmarks?.leftPupil).pointsInImage(imageSize: CGSize(width: 512, height: 512))[0]
        let ref = try Self.referencePupils("astronaut").left
        #expect(hypot(pupil.x - ref.x * 512, pupil.y - (1 - ref.y) * 512) < 2, "pupil from the given box")
        #expect(results[1].landmarks == nil)

        let quality = VNDetectFaceCaptureQualityRequest()
        quality.inputFaceObservations = [face]
        try Self.handler("astronaut.png").perform([quality])
        let q = try #require(quality.results?.first?.faceCaptureQuality)
        #expect(q > 0 && q <= 1)
    }

    /// Face requests performed on one handler share the detections and meshes: every result equals the one the
    /// same request gets alone on a fresh handler, and a request with another region of interest on that handler
    /// gets its own faces.
    @Test func requestsOnOneHandlerMatchRequestsAlone() throws {
        func make() -> (VNDetectFaceRectanglesRequest, VNDetectFaceRectanglesRequest, VNDetectFaceLandmarksRequest,
            VNDetectFaceCaptureQualityRequest)
        {
            let r2 = VNDetectFaceRectanglesRequest()
            r2.revision = VNDetectFaceRectanglesRequestRevision2
            return (r2, VNDetectFaceRectanglesRequest(), VNDetectFaceLandmarksRequest(), VNDetectFaceCaptureQualityRequest())
        }
        let together = make(), alone = make()
        let shared = try Self.handler("astronaut.png")
        try shared.perform([together.0, together.1])
        try shared.perform([together.2, together.3])
        try Self.handler("astronaut.png").perform([alone.0])
        try Self.handler("astronaut.png").perform([alone.1])
        try Self.handler("astronaut.png").perform([alone.2])
        try Self.handler("astronaut.png").perform([alone.3])
        func summary(_ faces: [VNFaceObservation]?) -> [[Double]] {
            (faces ?? []).map { f in
                var v = [f.boundingBox.minX, f.boundingBox.minY, f.boundingBox.width, f.boundingBox.height].map { Double($0) }
                v += [Double(f.confidence), f.roll?.doubleValue ?? 9, f.yaw?.doubleValue ?? 9, f.pitch?.doubleValue ?? 9]
                v += (f.landmarks?.allPoints?.normalizedPoints ?? []).flatMap { [Double($0.x), Double($0.y)] }
                v.append(Double(f.faceCaptureQuality ?? -1))
                return v
            }
        }
        #expect(summary(together.0.results).count == 1)
        #expect(summary(together.0.results) == summary(alone.0.results))
        #expect(summary(together.1.results) == summary(alone.1.results))
        #expect(summary(together.2.results) == summary(alone.2.results))
        #expect(summary(together.3.results) == summary(alone.3.results))
        #expect(together.2.results?.first?.landmarks?.allPoints?.pointCount == 76)

        // The right third of the image has no face; the same handler must not answer it from the whole image.
        let right = VNDetectFaceLandmarksRequest()
        right.regionOfInterest = CGRect(x: 0.65, y: 0, width: 0.35, height: 1)
        try shared.perform([right])
        #expect(right.results?.isEmpty == true)
    }

    @Test func captureQualityPrefersTheSharperCapture() throws {
        let image = try ImageDecoder.decode(contentsOf: TestFiles.installed("astronaut.png")).pixels.converted(to: .rgba32)
        func quality(_ pixels: PixelBuffer) throws -> Float {
            let request = VNDetectFaceCaptureQualityRequest()
            #expect(request.revision == VNDetectFaceCaptureQualityRequestRevision3)
            try VNImageRequestHandler(cgImage: CGImage(buffer: pixels)).perform([request])
            return try #require(request.results?.first?.faceCaptureQuality)
        }
        let sharp = try quality(image), blurred = try quality(image.gaussianBlurred(sigma: 3))
        #expect((0...1).contains(sharp) && blurred < sharp, "sharp \(sharp), blurred \(blurred)")
    }

    /// The astronaut shrunk to a fifth (face about 20 px wide) in the middle of a 512×512 picture: the tiled
    /// search finds her face, at the right place.
    @Test func smallFacesAreFoundWithTiles() throws {
        let image = try ImageDecoder.decode(contentsOf: TestFiles.installed("astronaut.png")).pixels.converted(to: .rgba32)
        let sampler = TensorSampler(width: 512, height: 512, range: 0...255, fit: .stretch, border: .zero)
        var values = [Float](repeating: 0, count: 512 * 512 * 3)
        try values.withUnsafeMutableBufferPointer {
            _ = try sampler.sample(image, rect: RotatedRect(centerX: 256, centerY: 256, width: 2560, height: 2560), into: $0)
        }
        var small = try PixelBuffer(width: 512, height: 512, format: .rgb24)
        let stride = small.bytesPerRow()
        small.withUnsafeMutableBytes { d in
            for y in 0..<512 {
                for x in 0..<512 * 3 { d[y * stride + x] = UInt8(max(0, min(255, values[y * 512 * 3 + x].rounded()))) }
            }
        }
        let request = VNDetectFaceRectanglesRequest()
        #expect(!request.searchesForSmallFaces)
        request.searchesForSmallFaces = true
        try VNImageRequestHandler(cgImage: CGImage(buffer: small)).perform([request])
        // Her face centre (225, 123) of 512 maps to 256 + (225 − 256)/5 = 249.8, 256 + (123 − 256)/5 = 229.4
        // (top-left), i.e. (0.488, 0.552) normalized with a lower-left origin.
        let hit = request.results?.first { f in
            abs(Double(f.boundingBox.midX) - 0.488) < 0.03 && abs(Double(f.boundingBox.midY) - 0.552) < 0.03
        }
        #expect(hit != nil, "faces: \(request.results?.map(\.boundingBox) ?? [])")
    }

    @Test func badOptionsFail() throws {
        let r = VNDetectFaceLandmarksRequest()
        r.revision = VNDetectFaceLandmarksRequestRevision2
        r.constellation = .constellation76Points
        #expect(!VNDetectFaceLandmarksRequest.revision(2, supportsConstellation: .constellation76Points))
        #expect(VNDetectFaceLandmarksRequest.revision(3, supportsConstellation: .constellation76Points))
        #expect { try Self.handler("astronaut.png").perform([r]) } throws: { error in
            (error as NSError).code == VNErrorCode.invalidOption.rawValue
        }
        #expect(r.results == nil)
        let bad = VNDetectFaceLandmarksRequest()
        bad.inputFaceObservations = [
            VNFaceObservation(requestRevision: 3, boundingBox: CGRect(x: 0.2, y: 0.2, width: 0, height: 0.1), roll: nil, yaw: nil, pitch: nil)
        ]
        #expect { try Self.handler("astronaut.png").perform([bad]) } throws: { error in
            (error as NSError).code == VNErrorCode.invalidArgument.rawValue
        }
    }
}

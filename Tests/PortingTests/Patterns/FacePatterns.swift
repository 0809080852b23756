// Face patterns as camera, photo-booth and selfie apps write them: overlay boxes in view coordinates, landmark outlines,
// pupils for gaze, the best shot of a burst by capture quality, head pose, and a region of interest.
import CoreGraphics
import CoreImage
import CoreImage.CIFilterBuiltins
import Testing
import Vision

@Suite struct FacePatterns {
    /// Face boxes for an overlay view: Vision's normalized lower-left box to image pixels, then flipped to the
    /// top-left origin a view draws in.
    static func faceFramesInViewCoordinates(url: URL, imageSize: CGSize) throws -> [CGRect] {
        let request = VNDetectFaceRectanglesRequest()
        try VNImageRequestHandler(url: url, options: [:]).perform([request])
        let flip = CGAffineTransform(scaleX: 1, y: -1).translatedBy(x: 0, y: -imageSize.height)
        return (request.results ?? []).map { face in
            VNImageRectForNormalizedRect(face.boundingBox, Int(imageSize.width), Int(imageSize.height)).applying(flip)
        }
    }

    @Test func faceBoxesForAnOverlay() throws {
        let frames = try Self.faceFramesInViewCoordinates(url: try Samples.image("astronaut.png"), imageSize: CGSize(width: 512, height: 512))
        // One face, in the upper half of the portrait (small y in view coordinates), inside the picture.
        #expect(frames.count == 1)
        let face = try #require(frames.first)
        #expect(face.midY < 256 && face.minY >= 0 && face.maxX <= 512 && face.width > 50)
    }

    /// Outlines of a face's landmark regions in image pixels (lower-left origin), as apps stroke them on a layer.
    static func landmarkOutlines(of face: VNFaceObservation, imageSize: CGSize) -> [String: [CGPoint]] {
        guard let landmarks = face.landmarks else { return [:] }
        let regions: [(String, VNFaceLandmarkRegion2D?)] = [
            ("faceContour", landmarks.faceContour), ("leftEye", landmarks.leftEye), ("rightEye", landmarks.rightEye),
            ("leftEyebrow", landmarks.leftEyebrow), ("rightEyebrow", landmarks.rightEyebrow), ("nose", landmarks.nose),
            ("outerLips", landmarks.outerLips), ("innerLips", landmarks.innerLips),
        ]
        var outlines: [String: [CGPoint]] = [:]
        for (name, region) in regions {
            guard let region else { continue }
            outlines[name] = region.normalizedPoints.map { point in
                VNImagePointForFaceLandmarkPoint(
                    vector_float2(Float(point.x), Float(point.y)), face.boundingBox, Int(imageSize.width), Int(imageSize.height))
            }
        }
        return outlines
    }

    @Test func landmarkOutlinesInImageCoordinates() throws {
        let request = VNDetectFaceLandmarksRequest()
        try VNImageRequestHandler(url: try Samples.image("astronaut.png")).perform([request])
        let face = try #require(request.results?.first)
        let size = CGSize(width: 512, height: 512)
        let outlines = Self.landmarkOutlines(of: face, imageSize: size)
        #expect(outlines.count == 8)
        func centre(_ name: String) throws -> CGPoint {
            let points = try #require(outlines[name])
            return CGPoint(x: points.map(\.x).reduce(0, +) / CGFloat(points.count), y: points.map(\.y).reduce(0, +) / CGFloat(points.count))
        }
        // A face's anatomy, lower-left origin: eyes above the nose above the mouth, brows above the eyes.
        let leftEye = try centre("leftEye"), rightEye = try centre("rightEye"), lips = try centre("outerLips")
        #expect(leftEye.y > lips.y + 20 && rightEye.y > lips.y + 20)
        #expect(try centre("nose").y < min(leftEye.y, rightEye.y) && (try centre("nose").y) > lips.y)
        #expect(try centre("leftEyebrow").y > leftEye.y && (try centre("rightEyebrow").y) > rightEye.y)
        // The outlines lie about the face box (the contour may reach a little past it).
        let box = VNImageRectForNormalizedRect(face.boundingBox, 512, 512).insetBy(dx: -20, dy: -20)
        #expect(outlines.values.joined().allSatisfy { box.contains($0) })
    }

    /// One path for a face's eyes and lips, in view coordinates (top-left origin), as apps hand it to a shape layer.
    static func landmarksPath(of face: VNFaceObservation, viewSize: CGSize) -> CGPath {
        let path = CGMutablePath()
        guard let landmarks = face.landmarks else { return path }
        let toView = CGAffineTransform(scaleX: 1, y: -1).translatedBy(x: 0, y: -viewSize.height)
        for region in [landmarks.leftEye, landmarks.rightEye, landmarks.outerLips] {
            guard let points = region?.pointsInImage(imageSize: viewSize), !points.isEmpty else { continue }
            path.addLines(between: points, transform: toView)
            path.closeSubpath()
        }
        return path
    }

    @Test func landmarkPathsForAShapeLayer() throws {
        let request = VNDetectFaceLandmarksRequest()
        try VNImageRequestHandler(url: try Samples.image("astronaut.png")).perform([request])
        let face = try #require(request.results?.first)
        let size = CGSize(width: 512, height: 512)
        let path = Self.landmarksPath(of: face, viewSize: size)
        #expect(!path.isEmpty)
        // The path lies on her face (top-left origin: the face box flipped), and holds both pupils and not the
        // point between the eyes.
        let box = VNImageRectForNormalizedRect(face.boundingBox, 512, 512)
        let flippedBox = CGRect(x: box.minX, y: 512 - box.maxY, width: box.width, height: box.height)
        #expect(flippedBox.insetBy(dx: -10, dy: -10).contains(path.boundingBox), "\(path.boundingBox) \(flippedBox)")
        let landmarks = try #require(face.landmarks)
        var pupils: [CGPoint] = []
        for pupil in [landmarks.leftPupil, landmarks.rightPupil] {
            let p = try #require(pupil?.pointsInImage(imageSize: size).first)
            pupils.append(CGPoint(x: p.x, y: 512 - p.y))
            #expect(path.contains(pupils.last!), "\(p)")
        }
        #expect(!path.contains(CGPoint(x: (pupils[0].x + pupils[1].x) / 2, y: (pupils[0].y + pupils[1].y) / 2)))
    }

    @Test func pupilsForGaze() throws {
        let request = VNDetectFaceLandmarksRequest()
        try VNImageRequestHandler(url: try Samples.image("astronaut.png")).perform([request])
        let landmarks = try #require(request.results?.first?.landmarks)
        let size = CGSize(width: 512, height: 512)
        for (pupil, eye) in [(landmarks.leftPupil, landmarks.leftEye), (landmarks.rightPupil, landmarks.rightEye)] {
            let pupilPoints = try #require(pupil).pointsInImage(imageSize: size)
            let eyePoints = try #require(eye).pointsInImage(imageSize: size)
            #expect(pupilPoints.count == 1)
            // The pupil lies within its eye's outline (its bounding box, with a pixel of slack).
            let xs = eyePoints.map(\.x), ys = eyePoints.map(\.y)
            let eyeBox = CGRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
            #expect(eyeBox.insetBy(dx: -1, dy: -1).contains(pupilPoints[0]), "\(pupilPoints[0]) \(eyeBox)")
        }
    }

    /// The best shot of a burst: one capture-quality request per frame, the observations remembered by `uuid`.
    static func bestShot(of frames: [CIImage]) throws -> (index: Int, qualities: [Float]) {
        var frameOfObservation: [UUID: Int] = [:]
        var observations: [VNFaceObservation] = []
        for (index, frame) in frames.enumerated() {
            let request = VNDetectFaceCaptureQualityRequest()
            try VNImageRequestHandler(ciImage: frame, options: [:]).perform([request])
            for face in request.results ?? [] {
                frameOfObservation[face.uuid] = index
                observations.append(face)
            }
        }
        var qualities = [Float](repeating: -1, count: frames.count)
        for face in observations {
            if let index = frameOfObservation[face.uuid], let quality = face.faceCaptureQuality {
                qualities[index] = max(qualities[index], quality)
            }
        }
        let best = observations.max { ($0.faceCaptureQuality ?? 0) < ($1.faceCaptureQuality ?? 0) }
        return (best.flatMap { frameOfObservation[$0.uuid] } ?? -1, qualities)
    }

    @Test func bestShotOfABurstByCaptureQuality() throws {
        let sharp = try Frames.picture("astronaut.png")
        func blurred(_ radius: Float) -> CIImage {
            let blur = CIFilter.gaussianBlur()
            blur.inputImage = sharp.clampedToExtent()
            blur.radius = radius
            return blur.outputImage!.cropped(to: sharp.extent)
        }
        // A shaky burst: the sharp frame is in the middle.
        let (best, qualities) = try Self.bestShot(of: [blurred(4), sharp, blurred(2)])
        #expect(qualities.allSatisfy { $0 >= 0 && $0 <= 1 }, "a face in every frame: \(qualities)")
        #expect(best == 1, "\(qualities)")
        #expect(qualities[0] < qualities[1] && qualities[2] < qualities[1])
    }

    /// Head pose for "look at the camera" prompts: revision 3's continuous roll and yaw, in radians.
    static func headPose(of image: CIImage) throws -> (roll: Double, yaw: Double)? {
        let request = VNDetectFaceRectanglesRequest()
        request.revision = VNDetectFaceRectanglesRequestRevision3
        try VNImageRequestHandler(ciImage: image).perform([request])
        guard let face = request.results?.first, let roll = face.roll, let yaw = face.yaw else { return nil }
        return (roll.doubleValue, yaw.doubleValue)
    }

    @Test func headPoseTurnsWithAMirroredSelfie() throws {
        let photo = try Frames.picture("astronaut.png")
        let pose = try #require(try Self.headPose(of: photo))
        let mirrored = try #require(try Self.headPose(of: photo.oriented(.upMirrored)))
        // Mirroring the picture turns the head the other way and tilts it the other way.
        #expect(abs(pose.yaw + mirrored.yaw) < 0.12, "\(pose) \(mirrored)")
        #expect(abs(pose.roll + mirrored.roll) < 0.12, "\(pose) \(mirrored)")
        #expect(abs(pose.yaw) < .pi / 2 && abs(pose.roll) < .pi / 2)
    }

    @Test func regionOfInterestMapsBackToTheImage() throws {
        let url = try Samples.image("astronaut.png")
        let whole = VNDetectFaceRectanglesRequest()
        let upperHalf = VNDetectFaceRectanglesRequest()
        upperHalf.regionOfInterest = CGRect(x: 0, y: 0.5, width: 1, height: 0.5)
        let bottom = VNDetectFaceRectanglesRequest()
        bottom.regionOfInterest = CGRect(x: 0, y: 0, width: 1, height: 0.3)
        try VNImageRequestHandler(url: url).perform([whole, upperHalf, bottom])

        // Her face is in the upper half; the bottom 30 % (her suit) has none.
        #expect(bottom.results?.isEmpty ?? true)
        let inRegion = try #require(upperHalf.results?.first)
        let inImage = try #require(whole.results?.first)
        // The region's box, mapped back through the region, is the whole-image box (within a few pixels).
        let mapped = VNImageRectForNormalizedRectUsingRegionOfInterest(inRegion.boundingBox, 512, 512, upperHalf.regionOfInterest)
        let direct = VNImageRectForNormalizedRect(inImage.boundingBox, 512, 512)
        #expect(abs(mapped.midX - direct.midX) < 8 && abs(mapped.midY - direct.midY) < 8, "\(mapped) \(direct)")
        #expect(abs(mapped.width - direct.width) < 0.15 * direct.width)
    }

    @Test func landmarksForFacesFoundFirstWithCompletionHandlers() throws {
        let handler = VNImageRequestHandler(url: try Samples.image("astronaut.png"))
        var found: [VNFaceObservation] = []
        let rectangles = VNDetectFaceRectanglesRequest { request, error in
            guard error == nil else { return }
            found = (request as? VNDetectFaceRectanglesRequest)?.results ?? []
        }
        try handler.perform([rectangles])
        var landmarked: [VNFaceObservation] = []
        let landmarks = VNDetectFaceLandmarksRequest { request, _ in
            landmarked = request.results as? [VNFaceObservation] ?? []
        }
        landmarks.inputFaceObservations = found
        try handler.perform([landmarks])
        // The faces passed in come back with landmarks, in the same boxes.
        #expect(found.count == 1 && landmarked.count == found.count)
        let before = try #require(found.first), after = try #require(landmarked.first)
        #expect(after.landmarks?.allPoints?.pointCount ?? 0 > 60)
        #expect(abs(after.boundingBox.midX - before.boundingBox.midX) < 0.02 && abs(after.boundingBox.midY - before.boundingBox.midY) < 0.02)
    }
}

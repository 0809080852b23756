import Foundation
import PVCore
import PVTestSupport
@testable import PeopleVision
import Testing

/// The Swift API's own behaviour: archiving observations, performAll, cancellation, concurrent performs, errors.
@Suite("Swift API behaviour")
struct SwiftAPIBehaviourTests {
    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    @Test("observations survive a JSON round trip, derived values included")
    func jsonRoundTrip() async throws {
        let url = try TestFiles.installed("astronaut.png")
        let handler = ImageRequestHandler(url)
        var bodyRequest = DetectHumanBodyPoseRequest()
        bodyRequest.detectsHands = true
        let (landmarks, quality, humans, bodies, hands, bodies3D, mask, instances) = try await handler.perform(
            DetectFaceLandmarksRequest(), DetectFaceCaptureQualityRequest(), DetectHumanRectanglesRequest(), bodyRequest,
            DetectHumanHandPoseRequest(), DetectHumanBodyPose3DRequest(), GeneratePersonSegmentationRequest(),
            GeneratePersonInstanceMaskRequest())
        try #require(!landmarks.isEmpty && !quality.isEmpty && !bodies.isEmpty && !bodies3D.isEmpty)
        #expect(try Self.roundTrip(landmarks) == landmarks)
        #expect(try Self.roundTrip(quality) == quality)
        #expect(try Self.roundTrip(humans) == humans)
        #expect(try Self.roundTrip(bodies) == bodies)
        #expect(try Self.roundTrip(hands) == hands)
        #expect(try Self.roundTrip(bodies3D) == bodies3D)
        #expect(try Self.roundTrip(mask) == mask)
        let instanceMask = try #require(instances)
        #expect(try Self.roundTrip(instanceMask) == instanceMask)

        let size = CGSize(width: 512, height: 512)
        let face = landmarks[0], decodedFace = try Self.roundTrip(face)
        #expect(decodedFace.landmarks?.leftPupil.pointsInImageCoordinates(size) == face.landmarks?.leftPupil.pointsInImageCoordinates(size))
        #expect(decodedFace.captureQuality == nil && quality[0].captureQuality != nil)
        let body3D = try Self.roundTrip(bodies3D[0])
        for name in HumanBodyPose3DObservation.JointName.allCases {
            #expect(body3D.pointInImage(for: name) == bodies3D[0].pointInImage(for: name))
            #expect(body3D.cameraRelativePosition(for: name) == bodies3D[0].cameraRelativePosition(for: name))
        }
        let decodedMask = try Self.roundTrip(mask)
        for p in [NormalizedPoint(x: 0.5, y: 0.6), NormalizedPoint(x: 0.02, y: 0.98), NormalizedPoint(x: 0.45, y: 0.75)] {
            #expect(decodedMask.pixel(at: p) == mask.pixel(at: p))
        }
        // The astronaut's face is person, the top-left corner (flag) is not.
        #expect(mask.pixel(at: NormalizedPoint(x: 0.45, y: 0.75)) > 0.5)
        #expect(mask.pixel(at: NormalizedPoint(x: 0.02, y: 0.98)) < 0.5)
        #expect(try Self.roundTrip(bodies[0]).keypoints.shape == [1, 3, 18])
    }

    @Test("instance masks: labels, points and full-size masks equal the VN observation's")
    func instanceMasks() async throws {
        let url = try TestFiles.installed("astronaut.png")
        let handler = ImageRequestHandler(url)
        let observation = try #require(try await handler.perform(GeneratePersonInstanceMaskRequest()))
        #expect(observation.allInstances == IndexSet(integer: 1))

        let vnHandler = VNImageRequestHandler(url: url)
        let vnRequest = VNGeneratePersonInstanceMaskRequest()
        try vnHandler.perform([vnRequest])
        let vn = try #require(vnRequest.results?.first)
        #expect(Flat.pixels(try observation.generateScaledMask(for: [1], scaledToImageFrom: handler))
            == Flat.pixels(try vn.generateScaledMaskForImage(forInstances: [1], from: vnHandler)))
        #expect(Flat.pixels(try observation.generateMaskedImage(for: [1], imageFrom: handler, croppedToInstancesExtent: true))
            == Flat.pixels(try vn.generateMaskedImage(ofInstances: [1], from: vnHandler, croppedToInstancesExtent: true)))
        #expect(throws: VisionError.self) { try observation.generateScaledMask(for: [1], scaledToImageFrom: ImageRequestHandler(url)) }
        #expect(throws: VisionError.self) { try observation.generateMask(for: [7]) }

        // instanceAtPoint reads the label map at the point: compare with the label read directly.
        let labels = observation.allInstancesMask.buffer.pixelBuffer
        for (x, y) in [(10, 10), (labels.width / 2, labels.height / 3), (labels.width - 3, labels.height - 3)] {
            let label = labels.withUnsafeBytes { Int($0[y * labels.bytesPerRow() + x]) }
            let point = NormalizedPoint(x: (CGFloat(x) + 0.5) / CGFloat(labels.width), y: 1 - (CGFloat(y) + 0.5) / CGFloat(labels.height))
            #expect(observation.instanceAtPoint(point) == IndexSet(integer: label))
        }

        // A decoded copy: hard masks from its labels, no full-size masks.
        let copy = try Self.roundTrip(observation)
        let hard = copy.generateMask(for:)
        let soft = try hard([1]).pixelBuffer
        let width = labels.width
        soft.withUnsafeBytes { raw in
            labels.withUnsafeBytes { l in
                for y in stride(from: 0, to: labels.height, by: 7) {
                    for x in stride(from: 0, to: width, by: 7) {
                        let m = raw.load(fromByteOffset: y * soft.bytesPerRow() + 4 * x, as: Float.self)
                        #expect(m == (l[y * labels.bytesPerRow() + x] == 1 ? 1 : 0))
                    }
                }
            }
        }
        #expect(throws: VisionError.self) { try copy.generateScaledMask(for: [1], scaledToImageFrom: handler) }
    }

    @Test("performAll yields every request's outcome once, errors included")
    func performAllYieldsEach() async throws {
        let handler = ImageRequestHandler(try TestFiles.installed("astronaut.png"))
        var outside = DetectHumanRectanglesRequest()
        outside.regionOfInterest = NormalizedRect(x: 0.5, y: 0.5, width: 0.8, height: 0.8)
        var tooMany = DetectHumanHandPoseRequest()
        tooMany.maximumHandCount = 0
        let requests: [any VisionRequest] = [
            DetectFaceRectanglesRequest(), outside, DetectHumanBodyPoseRequest(), tooMany, GeneratePersonSegmentationRequest(),
        ]
        var outcomes: [VisionResult] = []
        for await outcome in handler.performAll(requests) { outcomes.append(outcome) }
        #expect(outcomes.count == requests.count)
        let seen = outcomes.map { AnyHashable($0.request) }
        #expect(Set(seen) == Set(requests.map { AnyHashable($0) }) && Set(seen).count == requests.count)
        var errors = 0
        for outcome in outcomes {
            switch outcome {
            case .error(_, let error):
                errors += 1
                guard case VisionError.invalidArgument = error else { Issue.record("unexpected error \(error)"); continue }
            case .detectFaceRectangles(_, let faces): #expect(faces.count == 1)
            case .detectHumanBodyPose(_, let bodies): #expect(bodies.count == 1)
            case .generatePersonSegmentation(_, let mask): #expect(mask.size.width > 0)
            default: Issue.record("unexpected outcome \(outcome)")
            }
        }
        #expect(errors == 2)
    }

    @Test("a cancelled perform throws CancellationError")
    func cancellation() async throws {
        let handler = ImageRequestHandler(try TestFiles.installed("astronaut.png"))
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await handler.perform(DetectFaceRectanglesRequest(), DetectHumanBodyPoseRequest())
        }
        await #expect(throws: CancellationError.self) { try await task.value }

        // Cancelled once the first request has completed: the perform checks before each request, so the second
        // and third never run. (The check is driven directly here; a task's cancellation sets the same flag.)
        let completed = Locked(0)
        #expect(throws: CancellationError.self) {
            _ = try ImageRequestHandler.performSynchronously(
                [DetectFaceRectanglesRequest(), DetectHumanBodyPoseRequest(), DetectHumanHandPoseRequest()], on: handler.engine,
                handler: handler, stopAtFirstError: true, isCancelled: { completed.withLock { $0 } > 0 },
                report: { _, _ in completed.withLock { $0 += 1 } })
        }
        #expect(completed.withLock { $0 } == 1)
    }

    /// Every result of `tasks` concurrent tasks each calling `numbers` `performsEach` times.
    static func results(
        tasks: Int, performsEach: Int, _ numbers: @escaping @Sendable () async throws -> [Double]
    ) async throws -> [[Double]] {
        try await withThrowingTaskGroup(of: [[Double]].self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var mine: [[Double]] = []
                    for _ in 0..<performsEach { mine.append(try await numbers()) }
                    return mine
                }
            }
            return try await group.reduce(into: [[Double]]()) { $0 += $1 }
        }
    }

    @Test("8 tasks × 10 performs give the single-task results")
    func concurrentPerforms() async throws {
        let image = try #require(CIImage(contentsOf: try TestFiles.installed("astronaut.png")))
        let context = CIContext()
        let cgImage = try #require(context.createCGImage(image, from: image.extent))
        @Sendable func numbers() async throws -> [Double] {
            var request = DetectHumanRectanglesRequest()
            request.upperBodyOnly = false
            let (faces, people) = try await ImageRequestHandler(cgImage).perform(DetectFaceLandmarksRequest(), request)
            return faces.flatMap(Flat.face) + people.flatMap { Flat.rect($0.boundingBox.cgRect) + [Double($0.confidence)] }
        }
        let alone = try await numbers()
        #expect(alone.count > 100)
        let results = try await Self.results(tasks: 8, performsEach: 10, numbers)
        #expect(results.count == 80)
        #expect(results.allSatisfy { $0 == alone })
    }

    @Test("8 tasks × 100 performs of the face requests give the single-task results")
    func manyConcurrentPerforms() async throws {
        let image = try #require(CIImage(contentsOf: try TestFiles.installed("astronaut.png")))
        let small = image.transformed(by: CGAffineTransform(scaleX: 0.5, y: 0.5))
        let cgImage = try #require(CIContext().createCGImage(small, from: small.extent))
        @Sendable func numbers() async throws -> [Double] {
            let (boxes, landmarks) = try await ImageRequestHandler(cgImage).perform(DetectFaceRectanglesRequest(), DetectFaceLandmarksRequest())
            return boxes.flatMap(Flat.face) + landmarks.flatMap(Flat.face)
        }
        let alone = try await numbers()
        #expect(alone.count > 100)
        let results = try await Self.results(tasks: 8, performsEach: 100, numbers)
        #expect(results.count == 800)
        #expect(results.allSatisfy { $0 == alone })
    }

    @Test("every input gives the same faces; a sample buffer's time reaches the observations")
    func inputs() async throws {
        let url = try TestFiles.installed("astronaut.png")
        let data = try Data(contentsOf: url)
        let image = try #require(CIImage(contentsOf: url))
        let cgImage = try #require(CIContext().createCGImage(image, from: image.extent))
        var pixels: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, cgImage.width, cgImage.height, kCVPixelFormatType_32BGRA, nil, &pixels) == kCVReturnSuccess)
        let buffer = try #require(pixels)
        CIContext().render(image, to: buffer)
        var format: CMVideoFormatDescription?
        #expect(CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: buffer, formatDescriptionOut: &format) == 0)
        var timing = CMSampleTimingInfo(
            duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: CMTime(value: 7, timescale: 30), decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        #expect(CMSampleBufferCreateReadyWithImageBuffer(
            allocator: kCFAllocatorDefault, imageBuffer: buffer, formatDescription: try #require(format), sampleTiming: &timing,
            sampleBufferOut: &sample) == 0)

        let request = DetectFaceRectanglesRequest()
        let fromURL = try await request.perform(on: url)
        try #require(fromURL.count == 1)
        let others = [
            try await request.perform(on: data), try await request.perform(on: cgImage), try await request.perform(on: image),
            try await request.perform(on: buffer), try await request.perform(on: try #require(sample)),
        ]
        for faces in others {
            #expect(faces.count == 1)
            let a = Flat.rect(fromURL[0].boundingBox.cgRect), b = Flat.rect(faces[0].boundingBox.cgRect)
            #expect((zip(a, b).map { abs($0 - $1) }.max() ?? 1) < 1e-3)
        }
        #expect(fromURL[0].timeRange == nil)
        #expect(others[4][0].timeRange == CMTimeRange(start: CMTime(value: 7, timescale: 30), duration: CMTime(value: 1, timescale: 30)))
        // Upside down, the face is found at the mirrored place.
        let flipped = try await request.perform(on: cgImage, orientation: .down)
        let box = try #require(flipped.first).boundingBox.cgRect, upright = fromURL[0].boundingBox.cgRect
        #expect(abs(box.midX - (1 - upright.midX)) < 0.02 && abs(box.midY - (1 - upright.midY)) < 0.02)
    }

    @Test("options are checked as the VN API checks them, and reported as VisionError")
    func errors() async throws {
        let url = try TestFiles.installed("chelsea.png")
        var request = DetectFaceRectanglesRequest()
        request.regionOfInterest = NormalizedRect(x: -0.5, y: 0, width: 1, height: 1)
        await #expect { try await request.perform(on: url) } throws: { error in
            if case VisionError.invalidArgument = error { true } else { false }
        }
        await #expect { try await DetectFaceRectanglesRequest().perform(on: Data([1, 2, 3])) } throws: { error in
            error is VisionError
        }
        #expect(DetectHumanHandPoseRequest.supportedRevisions == [.revision1])
        #expect(DetectFaceLandmarksRequest().descriptor == .detectFaceLandmarksRequest(.revision3))
        #expect(GeneratePersonSegmentationRequest().supportedOutputPixelFormats.contains(kCVPixelFormatType_OneComponent32Float))
    }

    @Test("normalized geometry converts as Vision's does")
    func geometry() {
        func close(_ a: CGPoint, _ b: CGPoint) -> Bool { abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 }
        func close(_ a: CGRect, _ b: CGRect) -> Bool {
            close(a.origin, b.origin) && close(CGPoint(x: a.width, y: a.height), CGPoint(x: b.width, y: b.height))
        }
        let size = CGSize(width: 400, height: 200)
        let p = NormalizedPoint(x: 0.25, y: 0.75)
        #expect(close(p.toImageCoordinates(size), CGPoint(x: 100, y: 150)))
        #expect(close(p.toImageCoordinates(size, origin: .upperLeft), CGPoint(x: 100, y: 50)))
        #expect(close(p.verticallyFlipped().cgPoint, CGPoint(x: 0.25, y: 0.25)))
        #expect(close(NormalizedPoint(imagePoint: CGPoint(x: 100, y: 150), in: size).cgPoint, p.cgPoint))

        let roi = NormalizedRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)
        // The ROI's centre is the image's (0.75, 0.75): pixel (300, 150) from the bottom.
        #expect(close(NormalizedPoint(x: 0.5, y: 0.5).toImageCoordinates(from: roi, imageSize: size), CGPoint(x: 300, y: 150)))
        #expect(close(NormalizedPoint(imagePoint: CGPoint(x: 300, y: 150), in: size, normalizedTo: roi).cgPoint, CGPoint(x: 0.5, y: 0.5)))

        let r = NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.25)
        #expect(close(r.toImageCoordinates(size), CGRect(x: 40, y: 40, width: 200, height: 50)))
        // Upper-left: the top edge at 1 - 0.45 = 0.55 of the height from the top.
        #expect(close(r.toImageCoordinates(size, origin: .upperLeft), CGRect(x: 40, y: 110, width: 200, height: 50)))
        #expect(close(NormalizedRect(imageRect: CGRect(x: 40, y: 40, width: 200, height: 50), in: size).cgRect, r.cgRect))
        #expect(close(r.toImageCoordinates(from: roi, imageSize: size), CGRect(x: 220, y: 120, width: 100, height: 25)))
        #expect(close(NormalizedRect(imageRect: CGRect(x: 220, y: 120, width: 100, height: 25), in: size, normalizedTo: roi).cgRect, r.cgRect))
        #expect(close(r.verticallyFlipped().cgRect, CGRect(x: 0.1, y: 0.55, width: 0.5, height: 0.25)))
        #expect(NormalizedRect.fullImage.cgRect == CGRect(x: 0, y: 0, width: 1, height: 1))
    }
}

/// The README's Swift API example, as written there, on the astronaut photo.
@Suite struct SwiftAPIReadmeExampleTests {
    @Test func facesBodiesAndMaskOnOneHandler() async throws {
        let photoURL = try TestFiles.installed("astronaut.png")

        let handler = ImageRequestHandler(photoURL)
        var body = DetectHumanBodyPoseRequest()
        body.detectsHands = true
        let (faces, bodies, mask) = try await handler.perform(
            DetectFaceLandmarksRequest(), body, GeneratePersonSegmentationRequest())
        let pupil = faces.first?.landmarks?.leftPupil.pointsInImageCoordinates(CGSize(width: 1920, height: 1080),
                                                                               origin: .upperLeft)
        let nose = bodies.first?.joint(for: .nose)?.location
        var outcomes: [VisionResult] = []
        let more: [any VisionRequest] = [DetectHumanRectanglesRequest(), DetectHumanHandPoseRequest()]
        for await outcome in handler.performAll(more) {
            outcomes.append(outcome)
        }

        // The pupil lies in the upper half of the picture (upper-left origin: y below half the height), the nose
        // inside the face box, and the picture's centre (her suit) is person.
        let p = try #require(pupil?.first)
        #expect(p.y < 540 && p.x > 0 && p.x < 1920)
        let noseLocation = try #require(nose)
        #expect(faces[0].boundingBox.cgRect.insetBy(dx: -0.02, dy: -0.02).contains(noseLocation.cgPoint))
        #expect(mask.pixel(at: NormalizedPoint(x: 0.5, y: 0.5)) > 0.5)
        #expect(outcomes.count == 2)
    }
}

import Foundation
import PeopleVision
import PVImaging
import PVTestSupport
import Testing

/// Test images for the human requests, built from the installed sample images.
enum HumanTestImages {
    /// A `CGImage` of a pixel buffer, for `VNImageRequestHandler(cgImage:)`.
    static func cgImage(_ buffer: PixelBuffer) -> CGImage { CGImage(buffer: buffer) }

    static func astronaut() throws -> PixelBuffer {
        try ImageDecoder.decode(contentsOf: TestFiles.installed("astronaut.png")).pixels.converted(to: .rgba32)
    }


    /// MediaPipe's landmark index of each Vision body joint it reports directly.
    static let bodyIndex: [(VNHumanBodyPoseObservation.JointName, Int)] = [
        (.nose, 0), (.leftEye, 2), (.rightEye, 5), (.leftEar, 7), (.rightEar, 8), (.leftShoulder, 11),
        (.rightShoulder, 12), (.leftElbow, 13), (.rightElbow, 14), (.leftWrist, 15), (.rightWrist, 16), (.leftHip, 23),
        (.rightHip, 24), (.leftKnee, 25), (.rightKnee, 26), (.leftAnkle, 27), (.rightAnkle, 28),
    ]

    struct PoseGolden: Decodable {
        struct Point: Decodable { let x, y, z, visibility: Double }
        let width: Int
        let height: Int
        let landmarks: [Point]
    }

    /// MediaPipe 0.10.21's pose on astronaut.png (`scripts/make-pose-goldens`).
    static func poseGolden() throws -> PoseGolden {
        try JSONDecoder().decode(
            PoseGolden.self, from: Data(contentsOf: TestFiles.fixtures.appendingPathComponent("pose/astronaut.json")))
    }
}

@Suite("VNDetectHumanBodyPoseRequest", .serialized)
struct BodyPoseEndToEndTests {
    typealias Joint = VNHumanBodyPoseObservation.JointName

    static func perform(_ handler: VNImageRequestHandler, configure: (VNDetectHumanBodyPoseRequest) -> Void = { _ in })
        throws -> [VNHumanBodyPoseObservation]
    {
        let request = VNDetectHumanBodyPoseRequest()
        configure(request)
        try handler.perform([request])
        return try #require(request.results)
    }

    /// Every visible joint within 2 % of the image size of MediaPipe's own result, in Vision's coordinates
    /// (normalized, lower-left origin) and with the subject's left and right.
    @Test func astronautJointsMatchMediaPipe() throws {
        let golden = try HumanTestImages.poseGolden()
        let bodies = try Self.perform(VNImageRequestHandler(url: TestFiles.installed("astronaut.png")))
        try #require(bodies.count == 1)
        let body = bodies[0]
        var compared = 0
        for (joint, index) in HumanTestImages.bodyIndex {
            let ref = golden.landmarks[index]
            let p = try body.recognizedPoint(joint)
            #expect(p.identifier == joint.rawValue)
            guard ref.visibility > 0.5 else { continue }
            compared += 1
            #expect(abs(p.x - ref.x) < 0.02 && abs(p.y - (1 - ref.y)) < 0.02, "\(joint): \(p.location) vs (\(ref.x), \(1 - ref.y))")
            if ref.visibility > 0.8 { #expect(p.confidence > 0.5, "\(joint) is clearly visible") }
        }
        #expect(compared >= 8, "MediaPipe sees 8 of the 17 joints")
        // Knees and ankles are below the frame: confidence 0, the point still reported.
        for joint in [Joint.leftKnee, .rightKnee, .leftAnkle, .rightAnkle] {
            let p = try body.recognizedPoint(joint)
            #expect(p.confidence == 0, "\(joint) is outside the image")
            #expect(p.y < 0, "\(joint) lies below the image")
        }
        // Subject's left shoulder on the image's right, head above the shoulders (lower-left origin: larger y).
        let ls = try body.recognizedPoint(.leftShoulder), rs = try body.recognizedPoint(.rightShoulder)
        let nose = try body.recognizedPoint(.nose)
        #expect(ls.x > rs.x && nose.y > ls.y && nose.y > rs.y)
        #expect(body.confidence > 0.9 && body.confidence <= 1)
    }

    @Test func neckAndRootAreMidpointsWithMeanConfidence() throws {
        let body = try #require(try Self.perform(VNImageRequestHandler(url: TestFiles.installed("astronaut.png"))).first)
        for (middle, a, b) in [(Joint.neck, Joint.leftShoulder, Joint.rightShoulder), (.root, .leftHip, .rightHip)] {
            let m = try body.recognizedPoint(middle), p = try body.recognizedPoint(a), q = try body.recognizedPoint(b)
            #expect(abs(m.x - (p.x + q.x) / 2) < 1e-9 && abs(m.y - (p.y + q.y) / 2) < 1e-9, "\(middle)")
        }
        let neck = try body.recognizedPoint(.neck)
        let ls = try body.recognizedPoint(.leftShoulder), rs = try body.recognizedPoint(.rightShoulder)
        #expect(abs(neck.confidence - (ls.confidence + rs.confidence) / 2) < 1e-6)
        #expect(try body.recognizedPoint(.root).confidence == 0, "hips are outside the image")
    }

    @Test func namesGroupsAndKeys() throws {
        let body = try #require(try Self.perform(VNImageRequestHandler(url: TestFiles.installed("astronaut.png"))).first)
        #expect(body.availableJointNames.count == 19)
        #expect(body.availableJointNames.first == .nose && body.availableJointNames.last == .rightAnkle)
        #expect(Joint.nose.rawValue.rawValue == "head_joint" && Joint.leftHip.rawValue.rawValue == "left_upLeg_joint")
        #expect(Joint.leftWrist.rawValue.rawValue == "left_hand_joint" && Joint.leftElbow.rawValue.rawValue == "left_forearm_joint")
        #expect(body.availableJointsGroupNames == [.face, .torso, .leftArm, .rightArm, .leftLeg, .rightLeg, .all])
        #expect(VNHumanBodyPoseObservation.JointsGroupName.all.rawValue.rawValue == "VNIPOAll")
        #expect(Set(try body.recognizedPoints(.leftArm).keys) == [.leftShoulder, .leftElbow, .leftWrist])
        #expect(Set(try body.recognizedPoints(.torso).keys) == [.leftShoulder, .rightShoulder, .neck, .leftHip, .rightHip, .root])
        #expect(Set(try body.recognizedPoints(.face).keys) == [.nose, .leftEye, .rightEye, .leftEar, .rightEar])
        #expect(try body.recognizedPoints(.all).count == 19)
        // The untyped accessors agree with the typed ones.
        let viaKey = try body.recognizedPoint(forKey: Joint.nose.rawValue)
        #expect(viaKey == (try body.recognizedPoint(.nose)))
        #expect(try body.recognizedPoints(forGroupKey: .all).count == 19)
        #expect(body.availableKeys.count == 19 && body.availableGroupKeys.count == 7)
        let request = VNDetectHumanBodyPoseRequest()
        #expect(try request.supportedJointNames == body.availableJointNames)
        #expect(try request.supportedJointsGroupNames == body.availableJointsGroupNames)
    }

    @Test func keypointsMultiArrayIsOpenPoseOrder() throws {
        let body = try #require(try Self.perform(VNImageRequestHandler(url: TestFiles.installed("astronaut.png"))).first)
        let array = try body.keypointsMultiArray()
        #expect(array.shape == [1, 3, 18] && array.dataType == .double && array.count == 54)
        let order: [Joint] = [
            .nose, .neck, .rightShoulder, .rightElbow, .rightWrist, .leftShoulder, .leftElbow, .leftWrist, .rightHip,
            .rightKnee, .rightAnkle, .leftHip, .leftKnee, .leftAnkle, .rightEye, .leftEye, .rightEar, .leftEar,
        ]
        for (column, joint) in order.enumerated() {
            let p = try body.recognizedPoint(joint)
            #expect(array[[0, 0, NSNumber(value: column)]].doubleValue == p.x, "\(joint) x")
            #expect(array[[0, 1, NSNumber(value: column)]].doubleValue == p.y, "\(joint) y")
            if joint != .neck { #expect(array[[0, 2, NSNumber(value: column)]].doubleValue == Double(p.confidence)) }
        }
        let ls = try body.recognizedPoint(.leftShoulder), rs = try body.recognizedPoint(.rightShoulder)
        #expect(array[[0, 2, 1]].doubleValue == Double(min(ls.confidence, rs.confidence)), "neck: the smaller confidence")
    }

    /// Two people side by side, and four small people in a large frame: each found where it is.
    @Test func severalPeopleAreEachFound() throws {
        let golden = try HumanTestImages.poseGolden()
        let astronaut = try HumanTestImages.astronaut()
        let two = try astronaut.pasted(onto: 1024, 512, at: [(0, 0), (512, 0)])
        let bodies = try Self.perform(VNImageRequestHandler(cgImage: HumanTestImages.cgImage(two)))
        try #require(bodies.count == 2)
        let noses = try bodies.map { try $0.recognizedPoint(.nose) }.sorted { $0.x < $1.x }
        for (k, nose) in noses.enumerated() {
            // Same face, shifted by k × 512 px: within 2 % of the canvas size.
            #expect(abs(nose.x * 1024 - (golden.landmarks[0].x * 512 + Double(k) * 512)) < 0.02 * 1024)
            #expect(abs((1 - nose.y) * 512 - golden.landmarks[0].y * 512) < 0.02 * 1024)
        }

        // Four astronauts at a quarter size in a 2048×1152 frame.
        let small = try astronaut.resized(width: 160, height: 160)
        let spots = [(100, 100), (700, 500), (1300, 200), (1800, 900)]
        let crowd = try small.pasted(onto: 2048, 1152, at: spots.map { (x: $0.0, y: $0.1) })
        let people = try Self.perform(VNImageRequestHandler(cgImage: HumanTestImages.cgImage(crowd)))
        #expect(people.count == 4)
        for (x, y) in spots {
            let nx = (Double(x) + golden.landmarks[0].x * 160) / 2048, ny = 1 - (Double(y) + golden.landmarks[0].y * 160) / 1152
            let near = try people.contains { try abs($0.recognizedPoint(.nose).x - nx) < 0.02 && abs($0.recognizedPoint(.nose).y - ny) < 0.02 }
            #expect(near, "person at (\(x), \(y))")
        }
    }

    @Test func orientationIsApplied() throws {
        let upright = try #require(try Self.perform(VNImageRequestHandler(url: TestFiles.installed("astronaut.png"))).first)
        // The same pixels stored rotated: the handler turns them upright first, so the joints come out the same.
        let rotated = try HumanTestImages.astronaut().applying(.right.inverse)
        let bodies = try Self.perform(VNImageRequestHandler(cgImage: HumanTestImages.cgImage(rotated), orientation: .right))
        let body = try #require(bodies.first)
        for joint in [Joint.nose, .leftShoulder, .rightShoulder] {
            let a = try upright.recognizedPoint(joint), b = try body.recognizedPoint(joint)
            #expect(abs(a.x - b.x) < 0.01 && abs(a.y - b.y) < 0.01, "\(joint)")
        }
    }

    @Test func regionOfInterestNormalizesToTheRegion() throws {
        let full = try #require(try Self.perform(VNImageRequestHandler(url: TestFiles.installed("astronaut.png"))).first)
        let roi = CGRect(x: 0, y: 0.25, width: 1, height: 0.75)   // drops the bottom quarter
        let bodies = try Self.perform(VNImageRequestHandler(url: TestFiles.installed("astronaut.png"))) { $0.regionOfInterest = roi }
        let body = try #require(bodies.first)
        let a = try full.recognizedPoint(.nose), b = try body.recognizedPoint(.nose)
        #expect(abs(b.x - a.x) < 0.02 && abs(b.y - (a.y - 0.25) / 0.75) < 0.02)
    }

    @Test func nobodyInAnEmptyImage() throws {
        var grey = try PixelBuffer(width: 320, height: 240, format: .rgba32)
        grey.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 128) }
        let request = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(cgImage: HumanTestImages.cgImage(grey)).perform([request])
        #expect(request.results?.isEmpty == true)
    }

    @Test func errorsAreVisionErrors() throws {
        let request = VNDetectHumanBodyPoseRequest()
        request.revision = 2
        let handler = VNImageRequestHandler(url: try TestFiles.installed("astronaut.png"))
        #expect(throws: Error.self) { try handler.perform([request]) }
        do { try handler.perform([request]) } catch let e as NSError {
            #expect(e.domain == VNErrorDomain && e.code == VNErrorCode.unsupportedRevision.rawValue)
        }
        #expect(request.results == nil)
        #expect(throws: Error.self) { try VNDetectHumanBodyPoseRequest.supportedJointNames(forRevision: 7) }

        let ok = VNDetectHumanBodyPoseRequest()
        try handler.perform([ok])
        let body = try #require(ok.results?.first)
        do {
            _ = try body.recognizedPoint(Joint(rawValue: VNRecognizedPointKey(rawValue: "tail_joint")))
            Issue.record("an unknown joint must throw")
        } catch let e as NSError {
            #expect(e.domain == VNErrorDomain && e.code == VNErrorCode.invalidArgument.rawValue)
        }
        #expect(throws: Error.self) { try body.recognizedPoints(forGroupKey: VNRecognizedPointGroupKey(rawValue: "VNHLRKT")) }

        let missing = VNImageRequestHandler(url: URL(fileURLWithPath: "/nonexistent/photo.jpg"))
        do { try missing.perform([VNDetectHumanBodyPoseRequest()]) } catch let e as NSError {
            #expect(e.domain == VNErrorDomain && e.code == VNErrorCode.invalidImage.rawValue)
        }
    }
}

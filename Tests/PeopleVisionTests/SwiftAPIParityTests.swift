import Foundation
import PVTestSupport
@testable import PeopleVision
import Testing

/// The Swift API runs the `VN…` engine, so every request must report exactly what its `VN…` counterpart reports on
/// the same image: each test flattens both results into numbers in a fixed order and compares them.
@Suite("Swift API results equal the VN API's")
struct SwiftAPIParityTests {
    /// The installed samples; `scripts/swift-api-parity` names other images (the evaluation set) through
    /// `PEOPLEVISION_PARITY_IMAGES`, a file with one image path per line.
    static let images: [String] = {
        if let list = ProcessInfo.processInfo.environment["PEOPLEVISION_PARITY_IMAGES"],
           let text = try? String(contentsOfFile: list, encoding: .utf8) {
            return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
        return ["astronaut.png", "chelsea.png", "camera.png"]
    }()

    /// A sample's installed file, or the file at a path.
    static func url(_ image: String) throws -> URL {
        image.hasPrefix("/") ? URL(fileURLWithPath: image) : try TestFiles.installed(image)
    }

    /// The `VN…` requests' results, flattened, with their Swift counterparts'. One handler of each API performs
    /// every request, as an app would.
    static func both(_ name: String) async throws -> (vn: [String: [Double]], swift: [String: [Double]]) {
        let url = try url(name)
        let vnFaces = VNDetectFaceRectanglesRequest(), vnLandmarks = VNDetectFaceLandmarksRequest()
        let vnQuality = VNDetectFaceCaptureQualityRequest(), vnHumans = VNDetectHumanRectanglesRequest()
        let vnBodies = VNDetectHumanBodyPoseRequest(), vnHands = VNDetectHumanHandPoseRequest()
        let vnBodies3D = VNDetectHumanBodyPose3DRequest(), vnMask = VNGeneratePersonSegmentationRequest()
        let vnInstances = VNGeneratePersonInstanceMaskRequest()
        try VNImageRequestHandler(url: url).perform([
            vnFaces, vnLandmarks, vnQuality, vnHumans, vnBodies, vnHands, vnBodies3D, vnMask, vnInstances,
        ])
        var vn: [String: [Double]] = [:]
        vn["faces"] = (vnFaces.results ?? []).flatMap(Flat.face)
        vn["landmarks"] = (vnLandmarks.results ?? []).flatMap(Flat.face)
        vn["quality"] = (vnQuality.results ?? []).flatMap(Flat.face)
        vn["humans"] = (vnHumans.results ?? []).flatMap { Flat.rect($0.boundingBox) + [Double($0.confidence)] }
        vn["bodies"] = try (vnBodies.results ?? []).flatMap { b in try Flat.points(b.availableJointNames.map { try b.recognizedPoint($0) }) }
        vn["hands"] = try (vnHands.results ?? []).flatMap { h in
            try Flat.points(h.availableJointNames.map { try h.recognizedPoint($0) }) + [h.chirality == .left ? 0 : 1]
        }
        vn["bodies3D"] = try (vnBodies3D.results ?? []).flatMap { b in
            try [Double(b.bodyHeight)] + b.availableJointNames.flatMap { n in
                Flat.matrix(try b.recognizedPoint(n).position) + Flat.point(try b.pointInImage(n).location)
            }
        }
        vn["mask"] = Flat.pixels(try #require(vnMask.results?.first).pixelBuffer)
        let instances = try #require(vnInstances.results?.first)
        vn["instances"] = instances.allInstances.isEmpty ? [] : Flat.pixels(instances.instanceMask)
            + Flat.pixels(try instances.generateMask(forInstances: instances.allInstances))

        let handler = ImageRequestHandler(url)
        let (faces, landmarks, quality, humans, bodies, hands, bodies3D, mask, instanceMask) = try await handler.perform(
            DetectFaceRectanglesRequest(), DetectFaceLandmarksRequest(), DetectFaceCaptureQualityRequest(),
            DetectHumanRectanglesRequest(), DetectHumanBodyPoseRequest(), DetectHumanHandPoseRequest(),
            DetectHumanBodyPose3DRequest(), GeneratePersonSegmentationRequest(), GeneratePersonInstanceMaskRequest())
        var swift: [String: [Double]] = [:]
        swift["faces"] = faces.flatMap(Flat.face)
        swift["landmarks"] = landmarks.flatMap(Flat.face)
        swift["quality"] = quality.flatMap(Flat.face)
        swift["humans"] = humans.flatMap { Flat.rect($0.boundingBox.cgRect) + [Double($0.confidence)] }
        swift["bodies"] = try bodies.flatMap { b in
            try Flat.joints(b.availableJointNames.map { try #require(b.joint(for: $0)) })
        }
        swift["hands"] = try hands.flatMap { h in
            try Flat.joints(h.availableJointNames.map { try #require(h.joint(for: $0)) }) + [h.chirality == .left ? 0 : 1]
        }
        swift["bodies3D"] = try bodies3D.flatMap { b in
            try [b.bodyHeight.converted(to: .meters).value] + b.availableJointNames.flatMap { n in
                Flat.matrix(try #require(b.joint(for: n)).position) + Flat.point(b.pointInImage(for: n).cgPoint)
            }
        }
        swift["mask"] = Flat.pixels(mask.buffer)
        swift["instances"] = try instanceMask.map { Flat.pixels($0.allInstancesMask.buffer) + Flat.pixels(try $0.generateMask(for: $0.allInstances)) } ?? []
        return (vn, swift)
    }

    @Test("every request kind", arguments: images)
    func everyKind(image: String) async throws {
        let (vn, swift) = try await Self.both(image)
        #expect(Set(vn.keys) == Set(swift.keys))
        for key in vn.keys.sorted() {
            let a = vn[key] ?? [], b = swift[key] ?? []
            #expect(a.count == b.count, "\(image) \(key): \(a.count) numbers through VN, \(b.count) through the Swift API")
            let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= 1e-9, "\(image) \(key): largest difference \(worst)")
        }
        print("parity \(image): " + vn.keys.sorted().map { "\($0) \(vn[$0]?.count ?? 0)" }.joined(separator: ", "))
        if image == "astronaut.png" {
            // The astronaut photo has one person, her face and her mask: the comparison is not of empty lists.
            for key in ["faces", "landmarks", "quality", "bodies", "bodies3D", "mask"] {
                #expect(!(vn[key] ?? []).isEmpty, "\(key) is empty on the astronaut")
            }
        }
    }

    @Test("face landmarks from given faces keep their uuids and the VN numbers")
    func landmarksOfGivenFaces() async throws {
        let url = try TestFiles.installed("astronaut.png")
        let handler = ImageRequestHandler(url)
        let faces = try await handler.perform(DetectFaceRectanglesRequest())
        try #require(!faces.isEmpty)
        var request = DetectFaceLandmarksRequest()
        request.inputFaceObservations = faces
        let refined = try await handler.perform(request)
        // Decoded copies have no link to the engine's record of the detection: the request rebuilds them from values.
        request.inputFaceObservations = try faces.map { try JSONDecoder().decode(FaceObservation.self, from: JSONEncoder().encode($0)) }
        let refinedFromCopies = try await handler.perform(request)
        #expect(refined.map(\.uuid) == faces.map(\.uuid))
        #expect(refinedFromCopies.map(\.uuid) == faces.map(\.uuid))

        let vnHandler = VNImageRequestHandler(url: url)
        let vnFaces = VNDetectFaceRectanglesRequest()
        try vnHandler.perform([vnFaces])
        let detected = try #require(vnFaces.results)
        let vnLandmarks = VNDetectFaceLandmarksRequest()
        vnLandmarks.inputFaceObservations = detected
        let vnFromValues = VNDetectFaceLandmarksRequest()
        vnFromValues.inputFaceObservations = detected.map {
            // The face's values only (no detector record), confidence included.
            VNFaceObservation(
                boundingBox: $0.boundingBox, confidence: $0.confidence, requestRevision: 3, roll: $0.roll, yaw: $0.yaw,
                pitch: $0.pitch, landmarks: nil, faceCaptureQuality: nil, source: nil)
        }
        try vnHandler.perform([vnLandmarks, vnFromValues])
        for (vn, swift) in [(vnLandmarks, refined), (vnFromValues, refinedFromCopies)] {
            let a = (vn.results ?? []).flatMap(Flat.face), b = swift.flatMap(Flat.face)
            #expect(a.count == b.count && !a.isEmpty)
            #expect((zip(a, b).map { abs($0 - $1) }.max() ?? 0) <= 1e-9)
        }
    }
}

/// Results as numbers in a fixed order.
enum Flat {
    static func rect(_ r: CGRect) -> [Double] { [r.minX, r.minY, r.width, r.height].map { Double($0) } }
    static func point(_ p: CGPoint) -> [Double] { [Double(p.x), Double(p.y)] }
    static func matrix(_ m: simd_float4x4) -> [Double] { (0..<4).flatMap { c in (0..<4).map { Double(m[c, $0]) } } }

    static func face(_ f: VNFaceObservation) -> [Double] {
        var v = rect(f.boundingBox) + [Double(f.confidence)]
        v += [f.roll, f.yaw, f.pitch].map { $0?.doubleValue ?? 0 }
        v += f.faceCaptureQuality.map { [Double($0)] } ?? []
        if let l = f.landmarks {
            for r in [l.allPoints, l.leftEye, l.rightEye, l.outerLips, l.leftPupil, l.faceContour] {
                v += (r?.normalizedPoints ?? []).flatMap(point)
            }
        }
        return v
    }

    static func face(_ f: FaceObservation) -> [Double] {
        var v = rect(f.boundingBox.cgRect) + [Double(f.confidence)]
        v += [f.roll, f.yaw, f.pitch].map { $0.converted(to: .radians).value }
        v += f.captureQuality.map { [Double($0.score)] } ?? []
        if let l = f.landmarks {
            for r in [l.allPoints, l.leftEye, l.rightEye, l.outerLips, l.leftPupil, l.faceContour] {
                v += r.points.map(\.cgPoint).flatMap(point)
            }
        }
        return v
    }

    static func points(_ p: [VNRecognizedPoint]) -> [Double] { p.flatMap { [$0.x, $0.y, Double($0.confidence)] } }
    static func joints(_ j: [Joint]) -> [Double] { j.flatMap { point($0.location.cgPoint) + [Double($0.confidence)] } }

    static func pixels(_ buffer: CVPixelBuffer) -> [Double] {
        let p = buffer.pixelBuffer
        var v: [Double] = [Double(p.width), Double(p.height), Double(buffer.pixelFormatType)]
        p.withUnsafeBytes { raw in
            let rowBytes = p.width * p.format.bytesPerPixel
            for y in 0..<p.height { v += raw[(y * p.bytesPerRow())..<(y * p.bytesPerRow() + rowBytes)].map(Double.init) }
        }
        return v
    }
}

/// ``DetectHumanBodyPoseRequest/detectsHands``: the hands attached to bodies are the hand request's own results.
@Suite("Swift API: bodies with their hands")
struct SwiftAPIBodyHandsTests {
    @Test("attached hands are hand-pose results, on the body's side, near its wrist", arguments: ["camera.png", "astronaut.png"])
    func handsOnBodies(image: String) async throws {
        let url = try TestFiles.installed(image)
        let handler = ImageRequestHandler(url)
        var withHands = DetectHumanBodyPoseRequest()
        withHands.detectsHands = true
        var allHands = DetectHumanHandPoseRequest()
        allHands.maximumHandCount = 8
        let (bodies, plainBodies, hands) = try await handler.perform(withHands, DetectHumanBodyPoseRequest(), allHands)
        // The hands change nothing about the bodies.
        #expect(bodies.map { Flat.joints(Array($0.allJoints().values.sorted { $0.jointName < $1.jointName })) }
            == plainBodies.map { Flat.joints(Array($0.allJoints().values.sorted { $0.jointName < $1.jointName })) })
        var attached = 0
        for body in bodies {
            for (hand, side) in [(body.leftHand, HumanHandPoseObservation.Chirality.left), (body.rightHand, .right)] {
                guard let hand else { continue }
                attached += 1
                #expect(hand.chirality == side)
                #expect(hands.contains { $0.uuid == hand.uuid && $0.allJoints() == hand.allJoints() })
                let bodyWrist = try #require(body.joint(for: side == .left ? .leftWrist : .rightWrist))
                let handWrist = try #require(hand.joint(for: .wrist))
                #expect(bodyWrist.distance(to: handWrist) < 0.25)
            }
        }
        // Every attached hand is a distinct hand-pose result (checked above by uuid).
        #expect(attached <= hands.count)
    }

    /// Bodies and hands made by hand, so that the pairing rule is checked case by case: each hand goes to the nearest
    /// wrist of its side within one forearm (at least 0.05), a wrist takes one hand, and a hand nobody reaches stays out.
    @Test("the pairing rule")
    func pairing() {
        typealias Body = VNHumanBodyPoseObservation.JointName
        func body(leftWrist: CGPoint, leftElbow: CGPoint, rightWrist: CGPoint, rightElbow: CGPoint) -> VNHumanBodyPoseObservation {
            let placed: [(Body, CGPoint)] = [(.leftWrist, leftWrist), (.leftElbow, leftElbow), (.rightWrist, rightWrist), (.rightElbow, rightElbow)]
            let points = VNHumanBodyPoseObservation.JointName.all.map { name in
                let p = placed.first { $0.0 == name }?.1
                return VNRecognizedPoint(x: Double(p?.x ?? 0), y: Double(p?.y ?? 0), confidence: p == nil ? 0 : 0.9, identifier: name.rawValue)
            }
            return VNHumanBodyPoseObservation(points: points, confidence: 0.9, requestRevision: 1)
        }
        func hand(_ chirality: VNChirality, wrist: CGPoint) -> VNHumanHandPoseObservation {
            let points = VNHumanHandPoseObservation.JointName.all.map {
                VNRecognizedPoint(x: Double(wrist.x), y: Double(wrist.y), confidence: 0.8, identifier: $0.rawValue)
            }
            return VNHumanHandPoseObservation(points: points, chirality: chirality, confidence: 0.8, requestRevision: 1)
        }
        // Body A on the left of the picture, body B on the right; forearms 0.1 long.
        let a = body(leftWrist: CGPoint(x: 0.3, y: 0.5), leftElbow: CGPoint(x: 0.3, y: 0.6),
                     rightWrist: CGPoint(x: 0.1, y: 0.5), rightElbow: CGPoint(x: 0.1, y: 0.6))
        let b = body(leftWrist: CGPoint(x: 0.9, y: 0.5), leftElbow: CGPoint(x: 0.9, y: 0.6),
                     rightWrist: CGPoint(x: 0.7, y: 0.5), rightElbow: CGPoint(x: 0.7, y: 0.6))
        let hands = [
            hand(.left, wrist: CGPoint(x: 0.32, y: 0.5)),  // 0.02 from A's left wrist
            hand(.right, wrist: CGPoint(x: 0.75, y: 0.5)),  // 0.05 from B's right wrist
            hand(.right, wrist: CGPoint(x: 0.72, y: 0.5)),  // 0.02 from B's right wrist: nearer, so it wins
            hand(.left, wrist: CGPoint(x: 0.5, y: 0.1)),  // out of everyone's reach
            hand(.left, wrist: CGPoint(x: 0.12, y: 0.5)),  // by A's right wrist, but a left hand: A's left wrist is 0.18 away
        ]
        let pairs = DetectHumanBodyPoseRequest.pairHands(hands, with: [a, b])
        #expect(pairs[0]?.left === hands[0])
        #expect(pairs[0]?.right == nil)
        #expect(pairs[1]?.right === hands[2])
        #expect(pairs[1]?.left == nil)
        #expect(pairs.count == 2)
    }
}

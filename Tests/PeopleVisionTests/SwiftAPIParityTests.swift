import Foundation
import PVTestSupport
@testable import PeopleVision
import Testing

/// The Swift API runs the `VN…` engine, so every request must report exactly what its `VN…` counterpart reports on
/// the same image: each test flattens both results into numbers in a fixed order and compares them.
@Suite("Swift API results equal the VN API's")
struct SwiftAPIParityTests {
    static let images = ["astronaut.png", "chelsea.png"]

    /// The `VN…` requests' results, flattened, with their Swift counterparts'. One handler of each API performs
    /// every request, as an app would.
    static func both(_ name: String) async throws -> (vn: [String: [Double]], swift: [String: [Double]]) {
        let url = try TestFiles.installed(name)
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

import Foundation
import PVTestSupport
import PeopleVision
import Synchronization
import Testing

/// Parts of Vision's API that apps use around the requests: vectors, the iOS 14 keys, revisions, observation identity,
/// the first video API's options.
@Suite("Vision surface")
struct VisionSurfaceTests {
    @Test func vectorsFollowApplesDefinitions() {
        let elbow = VNPoint(x: 0.5, y: 0.5), wrist = VNPoint(x: 0.8, y: 0.9)
        let arm = VNVector(vectorHead: wrist, tail: elbow)
        #expect(abs(arm.x - 0.3) < 1e-12 && abs(arm.y - 0.4) < 1e-12)
        #expect(abs(arm.length - 0.5) < 1e-12 && abs(arm.squaredLength - 0.25) < 1e-12 && arm.r == arm.length)
        #expect(abs(arm.theta - atan2(0.4, 0.3)) < 1e-12)
        let polar = VNVector(r: 2, theta: .pi / 2)
        #expect(abs(polar.x) < 1e-12 && abs(polar.y - 2) < 1e-12)
        let unit = VNVector.unitVector(for: arm)
        #expect(abs(unit.length - 1) < 1e-12 && abs(unit.x - 0.6) < 1e-12)
        #expect(VNVector.unitVector(for: .zero).length == 0)
        #expect(abs(VNVector.dotProduct(of: arm, vector: VNVector(xComponent: 1, yComponent: 0)) - 0.3) < 1e-12)
        // Apple's argument order: the first is subtracted from the second.
        let d = VNVector(bySubtracting: VNVector(xComponent: 1, yComponent: 1), from: VNVector(xComponent: 3, yComponent: 5))
        #expect(d.x == 2 && d.y == 4)
        let s = VNVector(byAdding: d, to: VNVector(xComponent: -2, yComponent: 1))
        #expect(s.x == 0 && s.y == 5)
        let m = VNVector(byMultiplying: d, byScalar: 0.5)
        #expect(m.x == 1 && m.y == 2)
        let moved = VNPoint.apply(arm, to: elbow)
        #expect(abs(moved.x - wrist.x) < 1e-12 && abs(moved.y - wrist.y) < 1e-12)
        #expect(abs(VNPoint.distance(elbow, wrist) - 0.5) < 1e-12)
        #expect(VNElementTypeSize(.float) == 4 && VNElementTypeSize(.double) == 8 && VNElementTypeSize(.unknown) == 0)
        #expect(VNElementType(rawValue: 2) == .double)
    }

    @Test func iOS14KeysAreTheJointNamesKeys() {
        typealias J = VNHumanBodyPoseObservation.JointName
        #expect(J.nose.rawValue == .bodyLandmarkKeyNose && J.root.rawValue == .bodyLandmarkKeyRoot)
        #expect(J.leftWrist.rawValue == .bodyLandmarkKeyLeftWrist && J.rightAnkle.rawValue == .bodyLandmarkKeyRightAnkle)
        #expect(J(rawValue: .bodyLandmarkKeyNeck) == .neck)
        typealias G = VNHumanBodyPoseObservation.JointsGroupName
        #expect(G.leftArm.rawValue == .bodyLandmarkRegionKeyLeftArm && G.torso.rawValue == .bodyLandmarkRegionKeyTorso)
        #expect(VNHumanBodyPose3DObservation.JointsGroupName.all.rawValue == .point3DGroupKeyAll)
    }

    @Test func captureQualityRevision3IsSupportedAndCurrent() throws {
        let request = VNDetectFaceCaptureQualityRequest()
        #expect(VNDetectFaceCaptureQualityRequest.supportedRevisions.contains(VNDetectFaceCaptureQualityRequestRevision3))
        request.revision = VNDetectFaceCaptureQualityRequestRevision3
        try VNImageRequestHandler(url: try TestFiles.installed("astronaut.png")).perform([request])
        let face = try #require(request.results?.first)
        #expect(face.requestRevision == 3 && (face.faceCaptureQuality ?? 0) > 0)
    }

    @Test("Faces given as inputFaceObservations come back with their uuid")
    func inputFacesKeepTheirIdentity() throws {
        let handler = VNImageRequestHandler(url: try TestFiles.installed("astronaut.png"))
        let rectangles = VNDetectFaceRectanglesRequest()
        try handler.perform([rectangles])
        let faces = try #require(rectangles.results)
        try #require(faces.count == 1)
        let landmarks = VNDetectFaceLandmarksRequest(), quality = VNDetectFaceCaptureQualityRequest()
        landmarks.inputFaceObservations = faces
        quality.inputFaceObservations = faces
        try handler.perform([landmarks, quality])
        #expect(landmarks.results?.map(\.uuid) == faces.map(\.uuid))
        #expect(quality.results?.map(\.uuid) == faces.map(\.uuid))
        #expect(landmarks.results?.first?.landmarks != nil && quality.results?.first?.faceCaptureQuality != nil)
        // A request's own detections are new observations.
        let own = VNDetectFaceLandmarksRequest()
        try handler.perform([own])
        #expect(own.results?.first.map { $0.uuid != faces[0].uuid } == true)
    }

    @Test("The first video API's options: every Nth frame, a time interval, and typed errors")
    func videoProcessingOptions() throws {
        let url = try VideoProcessorTests.clip()
        defer { try? FileManager.default.removeItem(at: url) }
        final class Times: Sendable { let list = Mutex<[Double]>([]) }
        let thirds = Times(), halves = Times()
        func recorder(_ times: Times) -> VNDetectHumanRectanglesRequest {
            VNDetectHumanRectanglesRequest { request, _ in
                let t = (request as? VNDetectHumanRectanglesRequest)?.results?.first?.timeRange.start.seconds ?? -1
                times.list.withLock { $0.append(t) }
            }
        }
        let processor = VNVideoProcessor(url: url)
        try processor.add(recorder(thirds), withProcessingOptions: [.frameCadence: NSNumber(value: 3)])
        try processor.add(recorder(halves), withProcessingOptions: [.timeInterval: 0.2])
        try processor.analyze(CMTimeRange(start: .zero, end: .indefinite))
        let t3 = thirds.list.withLock { $0 }, t2 = halves.list.withLock { $0 }
        #expect(t3.count == 4 && zip(t3, [0, 0.3, 0.6, 0.9]).allSatisfy { abs($0 - $1) < 1e-3 }, "\(t3)")
        #expect(t2.count == 5 && zip(t2, [0, 0.2, 0.4, 0.6, 0.8]).allSatisfy { abs($0 - $1) < 1e-3 }, "\(t2)")
        func code(_ options: [VNVideoProcessingOption: Any]) -> Int? {
            do {
                try VNVideoProcessor(url: url).add(VNDetectHumanRectanglesRequest(), withProcessingOptions: options)
                return nil
            } catch { return (error as NSError).code }
        }
        #expect(code([.frameCadence: 0]) == VNErrorCode.invalidOption.rawValue)
        #expect(code([.frameCadence: 1.5]) == VNErrorCode.invalidOption.rawValue)
        #expect(code([.timeInterval: "soon"]) == VNErrorCode.invalidOption.rawValue)
        #expect(code([.frameCadence: 2, .timeInterval: 0.1]) == VNErrorCode.invalidOption.rawValue)
        #expect(code([:]) == nil)
    }
}

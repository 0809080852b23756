import Foundation
import PVInference
import PVPerception
import PVTestSupport
import PeopleVision
import Testing

/// Requests performed on one handler share one analysis of the image: each model runs once per face, person, image
/// or tile, however many requests want its output. Counted from the inference timeline (every model run, by name).
@Suite("Work shared per image", .serialized)
struct SharedAnalysisTests {
    /// Model runs per model name while `body` runs.
    static func runs(_ body: () throws -> Void) throws -> [String: Int] {
        let (_, runs) = try InferenceTimeline.record(body)
        return runs.reduce(into: [:]) { $0[$1.model, default: 0] += 1 }
    }

    @Test("Face rectangles, landmarks and capture quality run each face model once per face")
    func faceRequestsShareTheirModels() throws {
        let url = try TestFiles.installed("astronaut.png")
        let handler = VNImageRequestHandler(url: url)
        let rectangles = VNDetectFaceRectanglesRequest(), landmarks = VNDetectFaceLandmarksRequest()
        let quality = VNDetectFaceCaptureQualityRequest()
        let counts = try Self.runs { try handler.perform([rectangles, landmarks, quality]) }
        let faces = try #require(rectangles.results).count
        #expect(faces == 1)
        #expect(landmarks.results?.count == faces && quality.results?.count == faces)
        print("face model runs:", counts.sorted { $0.key < $1.key })
        #expect(counts["face_detection_short_range"] == 1)
        #expect(counts["face_detection_full_range_sparse"] == 1)
        for (model, n) in counts where model.hasPrefix("face_landmark") || model.hasPrefix("iris") {
            #expect(n <= faces, "\(model) ran \(n) times for \(faces) face(s)")
        }
        // A second perform on the same handler reuses everything.
        let again = try Self.runs { try handler.perform([VNDetectFaceLandmarksRequest(), VNDetectFaceCaptureQualityRequest()]) }
        #expect(again.isEmpty, "ran again: \(again)")
    }

    @Test("Person mask, instances, body pose, 3D pose and human rectangles run the pose models once per person and tile")
    func humanRequestsShareThePoseModels() throws {
        let url = try TestFiles.installed("astronaut.png")
        let handler = VNImageRequestHandler(url: url)
        let mask = VNGeneratePersonSegmentationRequest()
        mask.qualityLevel = .accurate
        let instances = VNGeneratePersonInstanceMaskRequest(), bodies = VNDetectHumanBodyPoseRequest()
        let body3D = VNDetectHumanBodyPose3DRequest(), rectangles = VNDetectHumanRectanglesRequest()
        let counts = try Self.runs { try handler.perform([mask, bodies, body3D, rectangles, instances]) }
        print("pose model runs:", counts.sorted { $0.key < $1.key })
        let people = try #require(bodies.results).count
        #expect(people == 1)
        #expect(rectangles.results?.count == people && body3D.results?.count == 1)
        #expect(counts["pose_landmark_full"] == people)
        // The whole image once, and each tile of the multi-scale search at most once.
        let image = try #require(CIImage(contentsOf: url)).extent
        let tiles = PoseLandmarker.MultiScaleOptions().tiles(width: Int(image.width), height: Int(image.height)).count
        let detectorRuns = try #require(counts["pose_detection"])
        #expect(detectorRuns >= 1 && detectorRuns <= 1 + tiles, "\(detectorRuns) detector runs for \(tiles) tiles")
        let again = try Self.runs { try handler.perform([VNDetectHumanBodyPoseRequest(), VNGeneratePersonInstanceMaskRequest()]) }
        #expect(again.isEmpty, "ran again: \(again)")
    }
}

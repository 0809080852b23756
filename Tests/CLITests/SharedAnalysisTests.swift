import Foundation
import PVPerception
import PVTestSupport
import Testing

/// Requests performed on one handler share one analysis of the image: each model runs once per face, person, image or
/// tile, however many requests want its output, and performing them again on the same handler runs nothing. Counted
/// from `bench timeline`, which records every model run of one perform in a process of its own (a test process runs
/// other suites' models at the same time).
@Suite("Work shared per image")
struct SharedAnalysisTests {
    /// Model runs per model name of one perform of `requests` on a handler, and the runs of performing them again.
    static func runs(_ requests: String, image: String = "astronaut.png") throws -> (runs: [String: Int], again: Int) {
        let r = try CLITests.run(["bench", "timeline", try TestFiles.installed(image).path, "--request", requests, "--warmup", "0"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let runs = lines.filter { $0.hasPrefix("T") && !$0.contains("|") }.map { $0.split(separator: " ").map(String.init)[1] }
        let again = try #require(lines.last.flatMap { $0.split(separator: " ").dropLast(2).last }.flatMap { Int($0) })
        return (runs.reduce(into: [:]) { $0[$1, default: 0] += 1 }, again)
    }

    @Test("Face rectangles, landmarks and capture quality run each face model once per face")
    func faceRequestsShareTheirModels() throws {
        let (runs, again) = try Self.runs("face-rectangles,faces,quality")
        // The astronaut has one face.
        #expect(runs["face_detection_short_range"] == 1 && runs["face_detection_full_range_sparse"] == 1, "\(runs)")
        #expect(runs["face_landmark"] == 1 && runs["face_landmark_with_attention"] == 1, "\(runs)")
        #expect(again == 0)
    }

    @Test("Body pose, 3D pose, human rectangles and hands share one body run: the pose models once per person and tile")
    func humanRequestsShareTheBodyRun() throws {
        let (runs, again) = try Self.runs("bodies,bodies3d,humans,hands")
        #expect(runs["pose_landmark_full"] == 1, "\(runs)")
        // The whole image once, then each tile of the multi-scale search the astronaut leaves uncovered at most once.
        let tiles = PoseLandmarker.MultiScaleOptions().tiles(width: 512, height: 512).count
        let detector = try #require(runs["pose_detection"])
        #expect(detector >= 1 && detector <= 1 + tiles, "\(runs), \(tiles) tiles")
        #expect(again == 0)
    }

    @Test("Person mask, instances and the body requests share the pose runs: the landmarker once per person")
    func maskAndBodyRequestsShareThePoseRuns() throws {
        let tiles = PoseLandmarker.MultiScaleOptions().tiles(width: 512, height: 512).count
        // Either order: whichever request comes first makes the runs the other takes.
        for requests in ["segmentation,instances,bodies,bodies3d,humans", "bodies,bodies3d,humans,segmentation,instances"] {
            let (runs, again) = try Self.runs(requests)
            #expect(runs["pose_landmark_full"] == 1, "\(requests): \(runs)")
            let detector = try #require(runs["pose_detection"])
            #expect(detector >= 1 && detector <= 1 + tiles, "\(requests): \(runs), \(tiles) tiles")
            #expect(again == 0)
        }
    }

    @Test("Person mask and instances share one fusion")
    func maskAndInstancesShareTheFusion() throws {
        let (runs, again) = try Self.runs("segmentation,instances")
        #expect(runs["pose_landmark_full"] == 1 && runs["pose_detection"] == 1, "\(runs)")
        #expect(runs["selfie_segmentation_landscape"] == 1, "\(runs)")
        #expect(again == 0)
    }
}

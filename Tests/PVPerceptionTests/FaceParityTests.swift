import Foundation
import PVImaging
import PVTestSupport
import Testing

@testable import PVPerception

/// `Tests/Fixtures/faces/<image>.json`, written by `scripts/make-face-goldens` from MediaPipe 0.10.21's
/// Python face detection and face mesh solutions.
struct FaceGolden: Decodable {
    struct Face: Decodable {
        let score: Double
        /// xmin, ymin, width, height, normalized.
        let box: [Double]
        let keypoints: [[Double]]
    }
    let schemaVersion: Int
    let image: String
    let width: Int
    let height: Int
    let detection0: [Face]
    let detection1: [Face]
    /// Per face, 468 × (x, y, z) normalized.
    let mesh: [[[Double]]]
    /// Per face, the 10 iris points 468–477 (x, y) normalized.
    let irises: [[[Double]]]

    static func load(_ stem: String) throws -> FaceGolden {
        let url = TestFiles.fixtures.appendingPathComponent("faces/\(stem).json")
        return try JSONDecoder().decode(FaceGolden.self, from: Data(contentsOf: url))
    }

    /// Our faces on this golden's image, from a landmarker with the default options changed by `configure`.
    func faces(_ configure: (inout FaceLandmarker.Options) -> Void) throws -> [FaceMesh] {
        var options = FaceLandmarker.Options()
        configure(&options)
        return try FaceLandmarker(options: options).detect(in: FaceTestImages.load(image))
    }

    /// Pixels between our point `p` and a normalized golden point `q`.
    func distance(_ p: Landmark, _ q: [Double]) -> Double {
        let dx = p.x - q[0] * Double(width), dy = p.y - q[1] * Double(height)
        return (dx * dx + dy * dy).squareRoot()
    }
}

@Suite("Face parity with MediaPipe's Python solutions", .serialized)
struct FaceParityTests {
    static let images = ["astronaut", "camera"]
    /// Images on which MediaPipe's attention mesh (refine_landmarks) found the face.
    static let irisImages = ["astronaut"]

    @Test(arguments: images)
    func detectorsMatchMediaPipe(stem: String) throws {
        let golden = try FaceGolden.load(stem)
        #expect(golden.schemaVersion == 1)
        let image = try FaceTestImages.load(golden.image)
        let W = Double(golden.width), H = Double(golden.height)
        let detector = try FaceTestImages.landmarker().detector
        for (model, reference) in [(FaceDetector.Model.shortRange, golden.detection0), (.fullRange, golden.detection1)] {
            let ours = try detector.detect(in: image, model: model)
            try #require(ours.count == reference.count, "\(stem) \(model): \(ours.count) faces, MediaPipe \(reference.count)")
            for (o, r) in zip(ours, reference) {
                #expect(abs(o.score - r.score) < 0.01, "\(stem) \(model) score \(o.score) vs \(r.score)")
                #expect(abs(o.box.xMin - r.box[0] * W) < 1, "\(stem) \(model) xmin")
                #expect(abs(o.box.yMin - r.box[1] * H) < 1, "\(stem) \(model) ymin")
                #expect(abs(o.box.width - r.box[2] * W) < 1, "\(stem) \(model) width")
                #expect(abs(o.box.height - r.box[3] * H) < 1, "\(stem) \(model) height")
                for (k, (p, q)) in zip(o.keypoints, r.keypoints).enumerated() {
                    #expect(abs(p.x - q[0] * W) < 1 && abs(p.y - q[1] * H) < 1, "\(stem) \(model) keypoint \(k)")
                }
            }
        }
    }

    /// The combined detector's short-range list is what the short-range model finds alone, and its detections
    /// are ``FaceDetector/detect(in:model:minScore:tiling:)``'s, from the same runs.
    @Test(arguments: images)
    func combinedDetectionAlsoGivesTheShortRangeFaces(stem: String) throws {
        let image = try FaceTestImages.load(try FaceGolden.load(stem).image)
        let detector = try FaceTestImages.landmarker().detector
        let both = try detector.detectWithShortRange(in: image)
        #expect(both.detections.map(\.box) == (try detector.detect(in: image)).map(\.box))
        let alone = try detector.detect(in: image, model: .shortRange)
        #expect(!alone.isEmpty && both.shortRange.map(\.box) == alone.map(\.box))
        #expect(try detector.detectWithShortRange(in: image, model: .fullRange).shortRange.isEmpty)
    }

    /// MediaPipe's face mesh runs on the short-range detector's ROI; so does this comparison.
    @Test(arguments: images)
    func meshMatchesMediaPipe(stem: String) throws {
        let golden = try FaceGolden.load(stem)
        let faces = try golden.faces {
            $0.detector = .shortRange
            $0.refineIrises = false
        }
        try #require(faces.count == golden.mesh.count)
        let W = Double(golden.width)
        var worst = 0.0
        for (face, ref) in zip(faces, golden.mesh) {
            #expect(face.landmarks.count == 468)
            for (i, (p, q)) in zip(face.landmarks, ref).enumerated() {
                let e = golden.distance(p, q)
                worst = max(worst, e)
                #expect(e < 0.5, "\(stem) landmark \(i): \(e) px from MediaPipe")
                #expect(abs(p.z - q[2] * W) < 1.5, "\(stem) landmark \(i) z")
            }
        }
        print("face mesh parity \(stem): max \(worst) px")
    }

    /// MediaPipe's `refine_landmarks` runs the attention mesh on the short-range detector's ROI; so does this
    /// comparison. Its three custom operators (crop matrix from landmarks, feature-map crop, landmarks mapped back)
    /// are ours, so the iris points agreeing with MediaPipe's to a fraction of a pixel checks them.
    @Test(arguments: irisImages)
    func attentionMeshIrisesMatchMediaPipe(stem: String) throws {
        let golden = try FaceGolden.load(stem)
        let faces = try golden.faces {
            $0.detector = .shortRange
            $0.irisSource = .attentionMesh
        }
        try #require(faces.count == golden.irises.count)
        var worst = 0.0
        for (face, ref) in zip(faces, golden.irises) {
            try #require(face.landmarks.count == FaceMeshTopology.refinedCount)
            for (k, q) in ref.enumerated() {
                let e = golden.distance(face.landmarks[FaceMeshTopology.meshCount + k], q)
                worst = max(worst, e)
                #expect(e < 0.5, "\(stem) iris point \(468 + k): \(e) px from MediaPipe")
            }
        }
        print("attention mesh iris parity \(stem): max \(worst) px")
    }

    /// With ``FaceLandmarker/IrisSource/irisModel`` the pupils come from the iris model; MediaPipe's
    /// `refine_landmarks` takes them from the attention mesh. The two models must agree within 2 % of the
    /// inter-ocular distance.
    @Test(arguments: irisImages)
    func irisModelPupilsMatchMediaPipeIrisCentres(stem: String) throws {
        let golden = try FaceGolden.load(stem)
        let faces = try golden.faces { $0.irisSource = .irisModel }
        try #require(faces.count == golden.irises.count)
        let W = Double(golden.width), H = Double(golden.height)
        for (face, ref) in zip(faces, golden.irises) {
            #expect(face.landmarks.count == 478)
            let right = SIMD2(ref[0][0] * W, ref[0][1] * H), left = SIMD2(ref[5][0] * W, ref[5][1] * H)
            let iod = ((left - right) * (left - right)).sum().squareRoot()
            let er = ((face.rightPupil - right) * (face.rightPupil - right)).sum().squareRoot()
            let el = ((face.leftPupil - left) * (face.leftPupil - left)).sum().squareRoot()
            print("pupils \(stem): right \(er / iod), left \(el / iod) of IOD \(iod) px")
            #expect(er < 0.02 * iod, "\(stem) right pupil \(er) px, IOD \(iod)")
            #expect(el < 0.02 * iod, "\(stem) left pupil \(el) px, IOD \(iod)")
        }
    }
}

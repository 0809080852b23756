import Foundation
import PVImaging
import PVTestSupport
import PeopleVision
import Testing

/// Face landmarks over the frames of a sequence: a still picture with noise gives steadier landmarks smoothed than
/// unsmoothed, and the first frame passes through. (Hands take the same smoother: `PointSetSmoothingTests`.)
@Suite("Face smoothing in sequences", .serialized)
struct FaceSmoothingTests {
    /// Points of the first result per frame, through one sequence handler.
    static func track(_ frames: [CGImage], smoothing: Bool, _ points: (VNSequenceRequestHandler, CGImage) throws -> [CGPoint]) throws -> [[CGPoint]] {
        let sequence = VNSequenceRequestHandler()
        sequence.smoothsLandmarks = smoothing
        return try frames.map { try points(sequence, $0) }
    }

    static func check(_ raw: [[CGPoint]], _ smooth: [[CGPoint]], what: String) {
        let rawJitter = LandmarkSmoothingTests.jitter(raw, 3..<raw.count)
        let smoothJitter = LandmarkSmoothingTests.jitter(smooth, 3..<smooth.count)
        print("\(what) jitter over still frames: \(rawJitter) px a frame unsmoothed, \(smoothJitter) px smoothed")
        #expect(rawJitter > 0.05, "the noise moves the unsmoothed \(what) (\(rawJitter) px a frame)")
        #expect(smoothJitter * 2 <= rawJitter, "\(what): jitter \(smoothJitter) px smoothed, \(rawJitter) px raw")
        #expect(zip(smooth[0], raw[0]).allSatisfy { LandmarkSmoothingTests.distance($0, $1) < 1e-6 })
    }

    @Test("face landmarks of a still face jitter at least twice less smoothed")
    func faces() throws {
        let person = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
            .converted(to: .rgba32).resized(width: 200, height: 200)
        let frames = try (0..<12).map { t in try LandmarkSmoothingTests.frame(person, x: 100, seed: UInt64(t + 300)) }
        let request = VNDetectFaceLandmarksRequest()
        func points(_ sequence: VNSequenceRequestHandler, _ frame: CGImage) throws -> [CGPoint] {
            try sequence.perform([request], on: frame)
            let face = try #require(request.results?.first)
            let all = try #require(face.landmarks?.allPoints)
            return all.pointsInImage(imageSize: CGSize(width: 400, height: 300))
        }
        Self.check(try Self.track(frames, smoothing: false, points), try Self.track(frames, smoothing: true, points), what: "face landmark")
    }
}

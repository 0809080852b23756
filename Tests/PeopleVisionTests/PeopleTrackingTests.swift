import Foundation
import PVImaging
import PVTestSupport
import PeopleVision
import Testing

/// A sequence handler that follows its people keeps finding them where they are, without the detectors.
@Suite("Tracking people in sequences", .serialized)
struct PeopleTrackingTests {
    /// The astronaut (300 px) drifting right 4 px a frame on a 1280 × 720 frame.
    static func clip(frames: Int) throws -> [CGImage] {
        let person = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
            .converted(to: .rgba32).resized(width: 300, height: 300)
        return try (0..<frames).map { t in CGImage(buffer: try person.pasted(onto: 1280, 720, at: [(400 + 4 * t, 300)], fill: 90)) }
    }

    /// Per frame, the noses of the people found.
    static func noses(_ frames: [CGImage], tracking: Bool) throws -> [[CGPoint]] {
        let sequence = VNSequenceRequestHandler()
        sequence.tracksPeople = tracking
        sequence.smoothsLandmarks = false
        let request = VNDetectHumanBodyPoseRequest()
        return try frames.map { frame in
            try sequence.perform([request], on: frame)
            return try (request.results ?? []).map { try $0.recognizedPoint(.nose).location }
                .map { CGPoint(x: $0.x * 1280, y: $0.y * 720) }
        }
    }

    @Test("the person followed is found on every frame and moves with the picture")
    func samePeople() throws {
        let frames = try Self.clip(frames: 20)
        let detected = try Self.noses(frames, tracking: false)
        let followed = try Self.noses(frames, tracking: true)
        // Detecting every frame sometimes adds a second, weaker "person" in the background; the followed sequence
        // keeps the one person throughout, where detection puts her.
        #expect(detected.allSatisfy { !$0.isEmpty })
        #expect(followed.allSatisfy { $0.count == 1 })
        // Frame to frame, the followed nose moves with the picture (4 px right). Where the detectors run again (every 15
        // frames) the landmarks come from the detection's region instead of the previous landmarks' and may move by
        // up to a few per cent of the person's size (her hips are out of the picture, so both regions are estimates).
        let noses = followed.compactMap(\.first)
        for t in noses.indices.dropFirst() {
            let step = CGPoint(x: noses[t].x - noses[t - 1].x, y: noses[t].y - noses[t - 1].y)
            #expect(abs(step.x - 4) < 20 && abs(step.y) < 20, "frame \(t): the nose moved by \(step)")
        }
        // On the first frame (detected in both) the same person is found in the same place.
        if let a = detected.first?.first, let b = followed.first?.first { #expect(hypot(a.x - b.x, a.y - b.y) < 1e-6) }
        // The nose follows the drift: 4 px a frame.
        if let first = followed.first?.first, let last = followed.last?.first {
            #expect(abs((last.x - first.x) - 76) < 12)
        }
    }
}

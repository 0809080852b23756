import Foundation
import PVImaging
import PVTestSupport
import PeopleVision
import Synchronization
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

/// A video processor that follows its people (`tracksPeople`) finds the people one that detects on every frame finds.
@Suite("Tracking people in video files")
struct VideoProcessorTrackingTests {
    /// 24 frames of the astronaut (240 px) drifting right 4 px a frame over a grey 640 × 360 frame, 24 fps.
    static func clip() throws -> URL {
        try VideoProcessorTests.clip(named: "pv-tracking", frame: (640, 360), side: 240, frames: 24, fps: 24, from: (100, 60), step: 4, fill: 90)
    }

    /// Per frame (by time), the noses of the bodies found.
    static func noses(_ video: URL, tracking: Bool) throws -> [Double: [CGPoint]] {
        let processor = VNVideoProcessor(url: video)
        processor.tracksPeople = tracking
        let found = Mutex<[Double: [CGPoint]]>([:])
        let request = VNDetectHumanBodyPoseRequest { request, _ in
            let bodies = (request as? VNDetectHumanBodyPoseRequest)?.results ?? []
            guard let time = bodies.first?.timeRange.start.seconds else { return }
            let noses = bodies.compactMap { try? $0.recognizedPoint(.nose).location }.map { CGPoint(x: $0.x * 640, y: $0.y * 360) }
            found.withLock { $0[(time * 24).rounded()] = noses }
        }
        try processor.addRequest(request, processingOptions: VNVideoProcessor.RequestProcessingOptions())
        try processor.analyze(CMTimeRange(start: .zero, end: .indefinite))
        return found.withLock { $0 }
    }

    @Test("the same person on every frame, where detection puts her")
    func samePeople() throws {
        let video = try Self.clip()
        defer { try? FileManager.default.removeItem(at: video) }
        let detected = try Self.noses(video, tracking: false)
        let followed = try Self.noses(video, tracking: true)
        #expect(detected.count == 24 && followed.count == 24, "\(detected.count) and \(followed.count) frames with people")
        for frame in followed.keys.sorted() {
            let f = try #require(followed[frame]), d = try #require(detected[frame])
            // One person followed; detection may add a weaker one in the background, after her.
            #expect(f.count == 1 && !d.isEmpty, "frame \(frame): \(f.count) followed, \(d.count) detected")
            if let a = f.first, let b = d.first {
                // Within 12 px (2 % of the width): the two modes' landmark regions differ a little.
                #expect(hypot(a.x - b.x, a.y - b.y) < 12, "frame \(frame): nose \(a) followed, \(b) detected")
            }
        }
    }
}

import Foundation
import PVImaging
import PVTestSupport
import PeopleVision
import Synchronization
import Testing

/// `VNVideoProcessor` on a small clip written with the imaging layer's video writer.
@Suite struct VideoProcessorTests {
    /// Ten frames at 10 fps of the astronaut (160 px) sliding right on a 320×192 frame.
    static func clip() throws -> URL {
        try clip(named: "pv-processor", frame: (320, 192), side: 160, frames: 10, fps: 10, from: (10, 16), step: 12, fill: 60)
    }

    /// `frames` frames of the astronaut (`side` px square) moving right by `step` px a frame from `start` over a
    /// plain `frame` of grey level `fill`, at `fps`.
    static func clip(
        named name: String, frame: (width: Int, height: Int), side: Int, frames: Int, fps: Int, from start: (x: Int, y: Int),
        step: Int, fill: UInt8
    ) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).mp4")
        let astronaut = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
            .converted(to: .rgba32).resized(width: side, height: side)
        let writer = try VideoWriter(url: url, width: frame.width, height: frame.height, framesPerSecond: Double(fps))
        for k in 0..<frames {
            let placed = try astronaut.pasted(onto: frame.width, frame.height, at: [(start.x + step * k, start.y)], fill: fill)
            try writer.append(placed, at: Double(k) / Double(fps))
        }
        try writer.finish()
        return url
    }

    @Test func everyFrameAndCadences() throws {
        let url = try Self.clip()
        defer { try? FileManager.default.removeItem(at: url) }
        let maskTimes = Mutex<[Double]>([]), bodyTimes = Mutex<[Double]>([]), noses = Mutex<[Double]>([])
        let segmentation = VNGeneratePersonSegmentationRequest { request, error in
            #expect(error == nil)
            let mask = (request as? VNGeneratePersonSegmentationRequest)?.results?.first
            maskTimes.withLock { $0.append(mask?.timeRange.start.seconds ?? -1) }
        }
        segmentation.qualityLevel = .fast
        let bodies = VNDetectHumanBodyPoseRequest { request, _ in
            for body in (request as? VNDetectHumanBodyPoseRequest)?.results ?? [] {
                bodyTimes.withLock { $0.append(body.timeRange.start.seconds) }
                if let nose = try? body.recognizedPoint(.nose) { noses.withLock { $0.append(nose.x) } }
            }
        }
        let processor = VNVideoProcessor(url: url)
        try processor.addRequest(segmentation, processingOptions: VNVideoProcessor.RequestProcessingOptions())
        let halfRate = VNVideoProcessor.RequestProcessingOptions()
        halfRate.cadence = VNVideoProcessor.FrameRateCadence(5)
        try processor.addRequest(bodies, processingOptions: halfRate)
        try processor.analyze(CMTimeRange(start: .zero, end: .indefinite))

        // Every frame, in order, with its time; the body request on every other frame.
        let masks = maskTimes.withLock { $0 }
        #expect(masks.count == 10)
        #expect(masks.enumerated().allSatisfy { abs($1 - Double($0) / 10) < 1e-3 }, "\(masks)")
        let bodyAt = bodyTimes.withLock { $0 }
        #expect(bodyAt.count == 5 && bodyAt.enumerated().allSatisfy { abs($1 - Double($0) / 5) < 1e-3 }, "\(bodyAt)")
        // She moves right: her nose's x grows from frame to frame.
        let x = noses.withLock { $0 }
        #expect(x.count == 5 && zip(x, x.dropFirst()).allSatisfy { $0 < $1 }, "\(x)")

        // A time range: frames 0.3 s up to 0.6 s; a request removed no longer runs.
        try processor.removeRequest(bodies)
        maskTimes.withLock { $0 = [] }
        bodyTimes.withLock { $0 = [] }
        try processor.analyze(CMTimeRange(start: CMTime(seconds: 0.3, preferredTimescale: 600), end: CMTime(seconds: 0.6, preferredTimescale: 600)))
        #expect(maskTimes.withLock { $0 }.count == 3 && bodyTimes.withLock { $0 }.isEmpty)
    }

    @Test func cancelAndErrors() throws {
        let url = try Self.clip()
        defer { try? FileManager.default.removeItem(at: url) }
        let processor = VNVideoProcessor(url: url)
        let calls = Mutex(0)
        let request = VNDetectHumanRectanglesRequest { _, _ in
            if calls.withLock({ $0 += 1; return $0 }) == 3 { processor.cancel() }
        }
        let every = VNVideoProcessor.RequestProcessingOptions()
        try processor.addRequest(request, processingOptions: every)
        func code(_ body: () throws -> Void) -> Int? {
            do { try body(); return nil } catch let e as NSError { return e.domain == VNErrorDomain ? e.code : -1 }
        }
        #expect(code { try processor.analyze(CMTimeRange(start: .zero, end: .indefinite)) } == VNErrorCode.requestCancelled.rawValue)
        #expect(calls.withLock { $0 } == 3)
        #expect(code { try processor.addRequest(request, processingOptions: every) } == VNErrorCode.invalidArgument.rawValue)
        #expect(code { try processor.removeRequest(VNDetectHumanRectanglesRequest()) } == VNErrorCode.invalidArgument.rawValue)
        let zero = VNVideoProcessor.RequestProcessingOptions()
        zero.cadence = VNVideoProcessor.TimeIntervalCadence(0)
        #expect(code { try processor.addRequest(VNDetectHumanRectanglesRequest(), processingOptions: zero) } == VNErrorCode.invalidOption.rawValue)
        // Past the clip's end: no frame in the range.
        #expect(code { try processor.analyze(CMTimeRange(start: CMTime(seconds: 5, preferredTimescale: 600), end: .indefinite)) }
            == VNErrorCode.invalidArgument.rawValue)
        // Not a video.
        let missing = VNVideoProcessor(url: URL(fileURLWithPath: "/nonexistent/clip.mp4"))
        #expect(code { try missing.analyze(CMTimeRange(start: .zero, end: .indefinite)) } == VNErrorCode.invalidImage.rawValue)
    }
}

import Foundation
import PVTestSupport
import PeopleVision
import Testing

/// The Swift-only API's `VideoProcessor` over a small clip of the astronaut sliding right (10 frames at 10 fps).
@Suite("VideoProcessor (Swift API)")
struct SwiftAPIVideoProcessorTests {
    @Test("Every frame's results, with their times, and a cadence honoured")
    func resultsPerFrameAndCadence() async throws {
        let url = try VideoProcessorTests.clip()
        defer { try? FileManager.default.removeItem(at: url) }
        let processor = VideoProcessor(url)
        let everyFrame = try await processor.addRequest(DetectHumanRectanglesRequest())
        let everyOther = try await processor.addRequest(DetectHumanBodyPoseRequest(), cadence: .frameInterval(2))
        let twice = try await processor.addRequest(
            DetectFaceRectanglesRequest(), cadence: .timeInterval(CMTime(value: 1, timescale: 2)))
        processor.startAnalysis()
        var rectangles: [Double] = [], noses: [Double] = [], bodyTimes: [Double] = [], faces = 0
        for try await humans in everyFrame { rectangles.append(humans.first?.timeRange?.start.seconds ?? -1) }
        for try await bodies in everyOther {
            let body = try #require(bodies.first)
            bodyTimes.append(body.timeRange?.start.seconds ?? -1)
            noses.append(Double(try #require(body.joint(for: .nose)).location.x))
        }
        for try await _ in twice { faces += 1 }
        #expect(rectangles.count == 10 && rectangles.enumerated().allSatisfy { abs($1 - Double($0) / 10) < 1e-3 }, "\(rectangles)")
        #expect(bodyTimes.count == 5 && bodyTimes.enumerated().allSatisfy { abs($1 - Double($0) / 5) < 1e-3 }, "\(bodyTimes)")
        // She moves right, frame after frame.
        #expect(zip(noses, noses.dropFirst()).allSatisfy { $0 < $1 }, "\(noses)")
        #expect(faces == 2)
    }

    @Test("Bad cadences, unreadable videos and cancellation give errors")
    func errors() async throws {
        let processor = VideoProcessor(URL(fileURLWithPath: "/no/such/video.mp4"))
        await #expect(throws: VisionError.self) { _ = try await processor.addRequest(DetectHumanBodyPoseRequest(), cadence: .frameInterval(0)) }
        let poses = try await processor.addRequest(DetectHumanBodyPoseRequest())
        processor.startAnalysis()
        await #expect(throws: (any Error).self) { for try await _ in poses {} }

        let url = try VideoProcessorTests.clip()
        defer { try? FileManager.default.removeItem(at: url) }
        let cancelled = VideoProcessor(url)
        let masks = try await cancelled.addRequest(GeneratePersonSegmentationRequest())
        await cancelled.cancel()
        cancelled.startAnalysis()
        await #expect(throws: CancellationError.self) { for try await _ in masks {} }
    }
}

import ArgumentParser
import Foundation
import PVInference
import PeopleVision

/// `peoplevision bench timeline IMAGE`: when each model ran during one request, and on which thread.
package struct TimelineBench: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "When each model runs during one request, and on which thread (to see where a core waits).",
        discussion: """
            Decodes IMAGE into a 32BGRA buffer, performs the requests (several, comma-separated, go to one handler) a \
            few times to warm up, then once more while recording every model inference: which model, on which \
            thread, from when to when. Prints a chart (one line per thread, one letter per model), the runs in start \
            order, how busy each thread was, and how many runs performing the same requests again on the same \
            handler took (none, when the handler keeps its work). Nothing is compared with the peer.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case faces, faceRectangles = "face-rectangles", quality, bodies, bodies3d, humans, hands, segmentation, instances, mattes
    }

    @Argument(help: "The image.") var image: String
    @Option(
        help: """
            The requests, comma-separated: faces (landmarks), face-rectangles, quality (face capture quality), bodies \
            (body pose), bodies3d, humans (human rectangles), hands (hand pose), segmentation (accurate), instances, \
            mattes (every matte).
            """)
    var request = "faces"
    @Option(help: "Unrecorded calls before the recorded one.") var warmup = 3
    @Option(help: "Width of the chart, in characters (20…400).") var width = 72

    package init() {}

    package func validate() throws {
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative") }
        guard (20...400).contains(width) else { throw ValidationError("--width must be 20…400") }
        _ = try kinds()
    }

    /// The requests named by `--request`.
    func kinds() throws -> [Kind] {
        try request.split(separator: ",").map { name in
            guard let kind = Kind(rawValue: String(name)) else {
                throw ValidationError("unknown request '\(name)'; use \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return kind
        }
    }

    package func run() throws {
        let buffer = try SegmentationBench.decodedBuffer(URL(fileURLWithPath: image))
        let kinds = try kinds()
        for _ in 0..<warmup { try VNImageRequestHandler(cvPixelBuffer: buffer).perform(kinds.map(Self.request)) }
        let handler = VNImageRequestHandler(cvPixelBuffer: buffer)
        let start = DispatchTime.now().uptimeNanoseconds
        let (_, runs) = try InferenceTimeline.record { try handler.perform(kinds.map(Self.request)) }
        let end = DispatchTime.now().uptimeNanoseconds
        print(Self.report(runs, from: start, to: end, width: width))
        let (_, again) = try InferenceTimeline.record { try handler.perform(kinds.map(Self.request)) }
        print("\nthe same requests again on the same handler: \(again.count) model runs")
    }

    /// A new request of a kind.
    static func request(_ kind: Kind) -> VNRequest {
        switch kind {
        case .faces: return VNDetectFaceLandmarksRequest()
        case .faceRectangles: return VNDetectFaceRectanglesRequest()
        case .quality: return VNDetectFaceCaptureQualityRequest()
        case .bodies: return VNDetectHumanBodyPoseRequest()
        case .bodies3d: return VNDetectHumanBodyPose3DRequest()
        case .humans: return VNDetectHumanRectanglesRequest()
        case .hands: return VNDetectHumanHandPoseRequest()
        case .instances: return VNGeneratePersonInstanceMaskRequest()
        case .mattes: return PVGenerateMattesRequest()
        case .segmentation:
            let request = VNGeneratePersonSegmentationRequest()
            request.qualityLevel = .accurate
            return request
        }
    }

    /// The chart, the runs and each thread's busy share, for runs recorded between `start` and `end` (nanoseconds).
    static func report(_ runs: [InferenceTimeline.Run], from start: UInt64, to end: UInt64, width: Int) -> String {
        let total = Double(end - start) / 1e6
        func ms(_ t: UInt64) -> Double { Double(Int64(bitPattern: t &- start)) / 1e6 }
        var threads: [UInt] = []
        for r in runs where !threads.contains(r.thread) { threads.append(r.thread) }
        var models: [String] = []
        for r in runs where !models.contains(r.model) { models.append(r.model) }
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        func letter(_ model: String) -> Character { letters[models.firstIndex(of: model)! % letters.count] }

        var lines = [String(format: "one call: %.2f ms, %d model runs on %d thread(s)", total, runs.count, threads.count)]
        for (k, thread) in threads.enumerated() {
            var row = [Character](repeating: ".", count: width)
            for r in runs where r.thread == thread {
                let a = max(0, min(width - 1, Int(ms(r.start) / total * Double(width))))
                let b = max(a, min(width - 1, Int((ms(r.end) / total * Double(width)).rounded(.up)) - 1))
                for i in a...b { row[i] = letter(r.model) }
            }
            let busy = runs.filter { $0.thread == thread }.reduce(0.0) { $0 + ms($1.end) - ms($1.start) }
            lines.append("T\(k + 1) |" + String(row) + String(format: "| busy %.0f %%", 100 * busy / total))
        }
        lines.append("")
        for (i, model) in models.enumerated() { lines.append("\(letters[i % letters.count]) = \(model)") }
        lines.append("")
        lines.append("thread  model                                  start ms   end ms   took ms")
        for r in runs {
            let t = threads.firstIndex(of: r.thread)! + 1
            let name = r.model.count < 38 ? r.model.padding(toLength: 38, withPad: " ", startingAt: 0) : r.model
            lines.append(
                String(format: "T%-6d ", t) + name + String(format: " %8.3f %8.3f %8.3f", ms(r.start), ms(r.end), ms(r.end) - ms(r.start)))
        }
        return lines.joined(separator: "\n")
    }
}

import Foundation
import PVImaging
import PVTestSupport
import Testing

/// Following people in videos (`--tracking`): the same people as detecting on every frame, with fewer pose detector
/// runs. Model runs are counted by the tool itself (`--count-model-runs`, every model run of the process).
@Suite("Tracking people in videos")
struct VideoTrackingTests {
    /// The model runs per model a `analyze VIDEO --jsonl` run reports, and its lines.
    static func analyze(_ video: URL, _ extra: [String]) throws -> (runs: [String: Int], lines: [[String: Any]]) {
        let r = try CLITests.run(["analyze", video.path, "--jsonl", "--count-model-runs"] + extra)
        try #require(r.status == 0, "\(r.stderr)")
        let report = try #require(r.stderr.split(separator: "\n").last { $0.contains("model_runs") }, "\(r.stderr)")
        let object = try #require((try JSONSerialization.jsonObject(with: Data(report.utf8))) as? [String: Any])
        let runs = try #require(object["model_runs"] as? [String: Int], "\(report)")
        return (runs, try AnalyzeVideoTests.objects(r.stdout))
    }

    /// A test clip of `frames` frames analysed with `requests` twice: detecting on every frame, then following.
    static func bothWays(_ name: String, frames: Int, requests: String) throws
        -> (detecting: (runs: [String: Int], lines: [[String: Any]]), following: (runs: [String: Int], lines: [[String: Any]]))
    {
        let input = CLITests.scratch(name)
        defer { try? FileManager.default.removeItem(at: input) }
        try AnalyzeVideoTests.clip(input, frames: frames)
        return (try analyze(input, ["--requests", requests]), try analyze(input, ["--requests", requests, "--tracking"]))
    }

    @Test("body pose: the same person on every frame, the pose detector on few frames")
    func bodies() throws {
        let (detecting, following) = try Self.bothWays("tracked-bodies.mp4", frames: 30, requests: "bodies")
        try #require(detecting.lines.count == 30 && following.lines.count == 30)
        for k in 0..<30 {
            let d = AnalyzeVideoTests.noses(detecting.lines[k]), f = AnalyzeVideoTests.noses(following.lines[k])
            // Detection may add a weaker second "person" in the grey background; she is the first (most confident).
            try #require(!d.isEmpty && f.count == 1, "frame \(k): \(d.count) detected, \(f.count) followed")
            // The same person, in the same place: within 2 % of the frame width (the two modes' landmark regions
            // differ, and smoothing follows each mode's own landmarks).
            #expect(hypot(d[0].x - f[0].x, d[0].y - f[0].y) < 0.02, "frame \(k): nose \(d[0]) vs \(f[0])")
        }
        // Detecting: at least one detector pass per frame (more where it searches tiles). Following: the first frame,
        // then every 15th (frames 15 and 30 would be the next): at most a pass per frame on three frames' worth.
        let detectorRuns = (detecting.runs["pose_detection"] ?? 0, following.runs["pose_detection"] ?? 0)
        #expect(detectorRuns.0 >= 30, "\(detecting.runs)")
        #expect(detectorRuns.1 * 5 <= detectorRuns.0, "detecting \(detecting.runs), following \(following.runs)")
        // Every frame still runs the landmark model on her.
        #expect((following.runs["pose_landmark_full"] ?? 0) >= 30, "\(following.runs)")
    }

    @Test("accurate person mask: the people followed save the detector")
    func accurateMask() throws {
        let (detecting, following) = try Self.bothWays("tracked-mask.mp4", frames: 20, requests: "segmentation,bodies")
        #expect((detecting.runs["pose_detection"] ?? 0) >= 20, "\(detecting.runs)")
        #expect((following.runs["pose_detection"] ?? 0) * 4 <= detecting.runs["pose_detection"] ?? 0, "\(following.runs)")
        // On a followed frame the mask and the body request share her one landmark run (the same ROI): 18 such
        // frames. The two detected frames (0 and 15) may each find a weaker second "person" in the background, and
        // the body search and the mask's own detection pass may place their ROIs apart: at most 4 runs each. Without
        // the sharing, the followed frames alone would take 36.
        #expect((following.runs["pose_landmark_full"] ?? 0) <= 18 + 2 * 4, "\(following.runs)")
        #expect(following.lines.allSatisfy { $0["segmentation"] != nil && AnalyzeVideoTests.noses($0).count == 1 })
    }

    @Test("the video greeting with tracking matches the greeting that detects on every frame")
    func greeting() throws {
        let input = CLITests.scratch("tracked-greet.mp4")
        let outputs = [CLITests.scratch("greet-detect.mp4"), CLITests.scratch("greet-follow.mp4")]
        defer { for f in [input] + outputs { try? FileManager.default.removeItem(at: f) } }
        try AnalyzeVideoTests.clip(input, frames: 16)
        for (output, extra) in zip(outputs, [[], ["--tracking"]]) {
            let r = try CLITests.run(["greet", input.path, "--background", "#00ff00", "-o", output.path] + extra)
            try #require(r.status == 0 && r.stdout.contains("16 frames"), "\(r.stdout) \(r.stderr)")
        }
        // Frame by frame, the share of pixels whose greeting differs (green backdrop in one, person in the other)
        // stays small. She covers 31 % of the frame (200 × 200 of 480 × 270): a mask that lost her, or added a
        // second person of her size, would change far more than 5 % of it. The same person's outline may move by a
        // few pixels: a followed person's landmark region comes from her previous landmarks, not from a detection,
        // and her pose mask decides inside that region.
        let a = try VideoReader(url: outputs[0]), b = try VideoReader(url: outputs[1])
        var frames = 0
        while let (x, _) = try a.nextFrame(), let (y, _) = try b.nextFrame() {
            var differing = 0
            x.withUnsafeBytes { p in
                y.withUnsafeBytes { q in
                    for i in Swift.stride(from: 0, to: min(p.count, q.count), by: 4) where abs(Int(p[i + 1]) - Int(q[i + 1])) > 64 {
                        differing += 1
                    }
                }
            }
            #expect(Double(differing) / Double(x.width * x.height) < 0.05, "frame \(frames): \(differing) pixels differ")
            frames += 1
        }
        #expect(frames == 16)
    }
}

import ArgumentParser
import Foundation
import PVImaging
import PVInference
import PeopleVision

/// `peoplevision bench bodies`: body pose and hand pose against MediaPipe's Python pose and hands solutions
/// (mediapipe 0.10.21), same images, same run, compared per person and per hand found.
package struct BodiesBench: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bodies",
        abstract: "Body pose and hand pose per person / per hand: ours vs MediaPipe (Python).",
        discussion: """
            Test images, written as PNG under .build/bench-bodies from the installed samples: astronaut.png \
            (512×512, one person), two astronauts side by side (1024×512), the same four times at a quarter size in \
            a 1920×1080 frame (small people: ours tiles the detector, MediaPipe finds at most one person), and \
            camera.png cropped to 160×160 around the photographer's gloved hands (hands: neither side finds the \
            gloves; both find the same 20-pixel hand-like patch; ours then runs the wrist \
            search, since a second hand is allowed). 'ours ms' is \
            VNImageRequestHandler(cvPixelBuffer:) on a pre-decoded 32BGRA buffer with a new request per call, \
            vs Pose(static_image_mode=True, model_complexity=1).process() and Hands(static_image_mode=True, \
            max_num_hands=2).process() (decode excluded on both sides). The pose3d rows time \
            VNDetectHumanBodyPose3DRequest (the most prominent person in metres) against the same Pose().process() \
            call, which also returns MediaPipe's world landmarks. The ratio compares latency per person \
            (per hand) found: ours ms ÷ ours found over peer ms ÷ peer found; a side that finds nobody is \
            counted as one. Both sides are timed in --rounds rounds, which side goes first alternating; each time \
            is the median of its round medians.
            """)

    @Option(help: "Timed runs per measurement.") var iterations = 20
    @Option(help: "Untimed warm-up runs.") var warmup = 3
    @Option(help: "Rounds, alternating which side goes first; each side's time is the median of its round medians.")
    var rounds = 3
    @Flag(help: SwiftAPICases.flagHelp)
    var swiftAPI = false

    package init() {}

    package func validate() throws {
        guard iterations > 0, warmup >= 0, rounds > 0 else {
            throw ValidationError("iterations and rounds must be positive and warm-up non-negative")
        }
    }

    enum Task: String {
        case pose, hands
        /// The 3-D body-pose request (the most prominent person) against MediaPipe's pose, whose one call also gives
        /// the world landmarks.
        case pose3d

        /// The peer operation timed against this task.
        var peerOp: String { self == .pose3d ? Task.pose.rawValue : rawValue }
    }

    package func run() throws {
        let peer = try Peer(venvName: "peer-venv-mediapipe")
        try peer.prepare(requirements: "requirements-segmentation.txt")
        let dir = peer.root.appendingPathComponent(".build/bench-bodies")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        log("writing the test images to \(dir.path)")
        let cases = try Self.images()
        var files: [(name: String, url: URL, tasks: [Task])] = []
        for c in cases {
            let url = dir.appendingPathComponent("\(c.name).png")
            try ImageEncoder.write(c.pixels, to: url, as: .png)
            files.append((c.name, url, c.tasks))
        }

        func peerRound() throws -> [String: Double] {
            log("peer: MediaPipe pose and hands, \(warmup) + \(iterations) runs per measurement")
            let records = try peer.records(
                "bodies_bench.py",
                ["--images"] + files.map(\.url.path) + ["--iterations", "\(iterations)", "--warmup", "\(warmup)"])
            return Peer.imageMedians(records, countKey: "found")
        }
        var oursRoundCount = 0
        func oursRound() throws -> [String: Double] {
            var results: [String: Double] = [:]
            oursRoundCount += 1
            for file in files {
                let buffer = try SegmentationBench.decodedBuffer(file.url)
                for task in file.tasks {
                    log("ours: \(task.rawValue) on \(file.name)")
                    try results.merge(
                        SwiftAPICases.time(
                            "\(task.rawValue) \(file.url.lastPathComponent)", buffer: buffer, warmup: warmup,
                            iterations: iterations, swiftFirst: oursRoundCount % 2 == 1,
                            swift: swiftAPI ? SwiftAPICases.bodies[task.rawValue] : nil,
                            vn: { try Self.perform(task, VNImageRequestHandler(cvPixelBuffer: $0)) }),
                        uniquingKeysWith: { $1 })
                }
            }
            return results
        }
        let (peerRounds, oursRounds) = try alternatingRounds(rounds, peer: peerRound, ours: oursRound)

        var rows: [[String]] = [], ratios: [Double] = []
        for file in files {
            for task in file.tasks {
                let key = "\(task.rawValue) \(file.url.lastPathComponent)", peerKey = "\(task.peerOp) \(file.url.lastPathComponent)"
                // The people found do not change between rounds (same image, same code): the first round's count.
                guard let theirs = medianOverRounds(peerRounds, peerKey), let theirsFound = peerRounds.first?[peerKey + " found"] else {
                    throw BenchError("the peer did not report \(task.rawValue) on \(file.name)")
                }
                let ms = medianOverRounds(oursRounds, key) ?? .nan, found = Int(oursRounds.first?[key + " found"] ?? 0)
                let oursPer = ms / Double(max(found, 1)), theirsPer = theirs / max(theirsFound, 1)
                rows.append([
                    "\(task.rawValue) \(file.name)", String(format: "%.1f", ms), "\(found)", String(format: "%.1f", oursPer),
                    String(format: "%.1f", theirs), "\(Int(theirsFound))", String(format: "%.1f", theirsPer),
                ] + (swiftAPI ? SwiftAPICases.columns(oursRounds, key: key) : []))
                ratios.append(oursPer / theirsPer)
            }
        }
        printRatioTable(
            header: ["case", "ours ms", "ours found", "ours ms per found", "peer ms", "peer found", "peer ms per found"]
                + (swiftAPI ? SwiftAPICases.header : []),
            rows: rows, ratios: ratios)
    }

    /// Runs a new request of `task` and returns how many people or hands it found.
    static func perform(_ task: Task, _ handler: VNImageRequestHandler) throws -> Int {
        switch task {
        case .pose:
            let request = VNDetectHumanBodyPoseRequest()
            try handler.perform([request])
            return request.results?.count ?? 0
        case .hands:
            let request = VNDetectHumanHandPoseRequest()
            try handler.perform([request])
            return request.results?.count ?? 0
        case .pose3d:
            let request = VNDetectHumanBodyPose3DRequest()
            try handler.perform([request])
            return request.results?.count ?? 0
        }
    }

    /// The benchmark images, built from the installed samples.
    static func images() throws -> [(name: String, pixels: PixelBuffer, tasks: [Task])] {
        let astronaut = try ImageDecoder.decode(contentsOf: ModelStore.default.url(for: "astronaut.png")).pixels
            .converted(to: .rgba32)
        let camera = try ImageDecoder.decode(contentsOf: ModelStore.default.url(for: "camera.png")).pixels
            .converted(to: .rgba32)
        let small = try astronaut.resized(width: 160, height: 160)
        return [
            ("astronaut-512", astronaut, [.pose, .pose3d]),
            ("two-astronauts-1024x512", try astronaut.pasted(onto: 1024, 512, at: [(0, 0), (512, 0)]), [.pose, .pose3d]),
            ("four-small-1080p", try small.pasted(onto: 1920, 1080, at: [(100, 100), (700, 500), (1200, 200), (1650, 800)]), [.pose]),
            ("camera-glove-160", try camera.cropped(x: 208, y: 182, width: 160, height: 160), [.hands]),
        ]
    }
}

import ArgumentParser
import Foundation
import PVCore
import PeopleVision

/// The benchmarks' requests performed through the Swift-only API (iOS 18's), for rows measured through both APIs.
enum SwiftAPICases {
    /// The faces bench's cases by name (revision 2 rectangles have no Swift-API request).
    static let faces: [String: @Sendable (CVPixelBuffer) async throws -> Int] = [
        "rectangles rev 3 (with pose)": { buffer in
            try await ImageRequestHandler(buffer).perform(DetectFaceRectanglesRequest()).count
        },
        "landmarks rev 3": { buffer in
            try await ImageRequestHandler(buffer).perform(DetectFaceLandmarksRequest()).filter { $0.landmarks != nil }.count
        },
        "capture quality rev 3": { buffer in
            try await ImageRequestHandler(buffer).perform(DetectFaceCaptureQualityRequest()).filter { $0.captureQuality != nil }.count
        },
        "rectangles rev 3 + landmarks + capture quality, one handler": { buffer in
            let (_, _, quality) = try await ImageRequestHandler(buffer).perform(
                DetectFaceRectanglesRequest(), DetectFaceLandmarksRequest(), DetectFaceCaptureQualityRequest())
            return quality.filter { $0.captureQuality != nil }.count
        },
    ]

    /// The bodies bench's tasks by name.
    static let bodies: [String: @Sendable (CVPixelBuffer) async throws -> Int] = [
        "pose": { try await ImageRequestHandler($0).perform(DetectHumanBodyPoseRequest()).count },
        "hands": { try await ImageRequestHandler($0).perform(DetectHumanHandPoseRequest()).count },
        "pose3d": { try await ImageRequestHandler($0).perform(DetectHumanBodyPose3DRequest()).count },
    ]

    /// The segmentation bench's levels by name, each request new (no smoothing carried over), 8-bit masks.
    static let segmentation: [String: @Sendable (CVPixelBuffer) async throws -> Int] = [
        "accurate": segment(.accurate), "balanced": segment(.balanced), "fast": segment(.fast),
    ]

    private static func segment(_ level: GeneratePersonSegmentationRequest.QualityLevel) -> @Sendable (CVPixelBuffer) async throws -> Int {
        { buffer in
            let request = GeneratePersonSegmentationRequest()
            request.qualityLevel = level
            request.outputPixelFormatType = kCVPixelFormatType_OneComponent8
            _ = try await ImageRequestHandler(buffer).perform(request)
            return 1
        }
    }

    /// The `--swift-api` flag's help, the same for every bench that has it.
    static let flagHelp: ArgumentHelp = """
        Also perform each request through the Swift-only API (iOS 18's), and the same VN request from a task the same \
        way, in the same rounds as the VN API, the order alternating; report the share of the Swift API's time spent in \
        its own code.
        """

    /// The columns the Swift-API rows add to a bench's table.
    static let header = [
        "Swift API ms", "VN API in a task ms", "Swift ÷ VN in a task", "VN in a task, spread of round medians",
        "Swift API's own code",
    ]

    /// Times one case through the VN API (`vn`, returning what it found) and, when `swift` is given, through the
    /// Swift-only API and through the VN API called from a task in the same way (so that the two differ only by the
    /// API), in the same round, `swiftFirst` deciding the order. Keys: `key` (VN ms), `swift key`, `task key` (ms),
    /// `own key` (the share of the Swift API's time spent in its own code) and `key found`.
    static func time(
        _ key: String, buffer: CVPixelBuffer, warmup: Int, iterations: Int, swiftFirst: Bool,
        swift: (@Sendable (CVPixelBuffer) async throws -> Int)?, vn: @escaping @Sendable (CVPixelBuffer) throws -> Int
    ) throws -> [String: Double] {
        var results: [String: Double] = [:]
        var found = 0
        let direct = { results[key] = median(try measure(warmup: warmup, iterations: iterations) { found = try vn(buffer) }) }
        guard let swift else {
            try direct()
            results["\(key) found"] = Double(found)
            return results
        }
        let inTask = {
            results["task \(key)"] = median(try measure(warmup: warmup, iterations: iterations) {
                _ = try blocking { try vn(buffer) }
            })
        }
        let throughSwift = {
            // Warmed up before recording: the first performs pay one-time costs (type metadata, lazy tables).
            for _ in 0..<warmup { _ = try blocking { try await swift(buffer) } }
            SwiftAPIOverhead.start()
            results["swift \(key)"] = median(try measure(warmup: 0, iterations: iterations) {
                _ = try blocking { try await swift(buffer) }
            })
            results["own \(key)"] = SwiftAPIOverhead.stop().ownFraction
        }
        for step in swiftFirst ? [throughSwift, inTask, direct] : [direct, inTask, throughSwift] { try step() }
        results["\(key) found"] = Double(found)
        return results
    }

    /// A row's Swift-API columns (``header``) from the rounds' medians; dashes for a case not performed through it.
    static func columns(_ rounds: [[String: Double]], key: String) -> [String] {
        guard let swiftMs = medianOverRounds(rounds, "swift \(key)"), let taskMs = medianOverRounds(rounds, "task \(key)"),
            let own = medianOverRounds(rounds, "own \(key)")
        else { return Array(repeating: "–", count: header.count) }
        let taskRounds = rounds.compactMap { $0["task \(key)"] }
        let spread = (taskRounds.max()! - taskRounds.min()!) / taskMs
        return [
            String(format: "%.2f", swiftMs), String(format: "%.2f", taskMs), String(format: "%.3f", swiftMs / taskMs),
            String(format: "%.1f %%", spread * 100), String(format: "%.2f %%", own * 100),
        ]
    }

    /// Waits for `body`, run as a task, on the calling (non-task) thread.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let value = try await body()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}

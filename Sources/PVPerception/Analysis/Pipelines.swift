import PVThreads
import Synchronization

/// The pipelines every analysis shares: loaded once per process, on first use, each running its models with
/// ``CPUBudget/modelThreads`` threads. All are safe to share between threads (they borrow interpreters from pools).
package enum Pipelines {
    private static let faces = OncePerKey<Bool, FaceLandmarker>()
    private static let body = OncePerKey<Int, PoseLandmarker>()
    private static let hands = OncePerKey<Int, HandLandmarker>()
    private static let segmenters = OncePerKey<SegmentationQuality, PersonSegmenter>()

    /// Most people one body analysis reports.
    package static let maxPeople = 32

    /// The body analyses' detection threshold. Lower than MediaPipe's 0.5: people partly hidden by others score low,
    /// and the landmark model's presence test (> 0.5) still rejects what is not a person (measured on the evaluation
    /// sets: 20 → 27 of 38 people).
    package static let bodyDetectionScore = 0.3

    /// The face landmarker, with or without the iris stage.
    package static func faceLandmarker(irises: Bool) throws -> FaceLandmarker {
        try faces.value(for: irises) {
            var options = FaceLandmarker.Options()
            options.refineIrises = irises
            return try FaceLandmarker(options: options, threads: CPUBudget.modelThreads)
        }
    }

    /// The multi-person pose landmarker of the body analyses (kernel 7 as MediaPipe's graph, no masks).
    package static func bodyLandmarker() throws -> PoseLandmarker {
        try body.value(for: maxPeople) {
            var options = PoseLandmarker.Options()
            options.segmentation = .none
            options.maxPeople = maxPeople
            options.minDetectionScore = bodyDetectionScore
            return try PoseLandmarker(options: options, threads: CPUBudget.modelThreads)
        }
    }

    /// The hand landmarker returning at most `maxHands` hands.
    package static func handLandmarker(maxHands: Int) throws -> HandLandmarker {
        try hands.value(for: maxHands) {
            var options = HandLandmarker.Options()
            options.maxHands = maxHands
            options.maxPalmCandidates = max(4, maxHands + 2)
            return try HandLandmarker(options: options, threads: CPUBudget.modelThreads)
        }
    }

    /// The person segmenter of a quality level.
    package static func segmenter(_ quality: SegmentationQuality) throws -> PersonSegmenter {
        try segmenters.value(for: quality) { try PersonSegmenter(quality: quality) }
    }
}

import PVThreads
import Synchronization

/// The pipelines every analysis shares: loaded once per process, on first use (a racing load's result is dropped), each running its models with
/// ``CPUBudget/modelThreads`` threads. All are safe to share between threads (they borrow interpreters from pools).
package enum Pipelines {
    private static let faces = Mutex<[Bool: FaceLandmarker]>([:])
    private static let body = Mutex<PoseLandmarker?>(nil)
    private static let hands = Mutex<[Int: HandLandmarker]>([:])
    private static let segmenters = Mutex<[SegmentationQuality: PersonSegmenter]>([:])

    /// Most people one body analysis reports.
    package static let maxPeople = 32

    /// The face landmarker, with or without the iris stage.
    package static func faceLandmarker(irises: Bool) throws -> FaceLandmarker {
        if let hit = faces.withLock({ $0[irises] }) { return hit }
        var options = FaceLandmarker.Options()
        options.refineIrises = irises
        let made = try FaceLandmarker(options: options, threads: CPUBudget.modelThreads)
        return faces.withLock { c in
            if let raced = c[irises] { return raced }
            c[irises] = made
            return made
        }
    }

    /// The multi-person pose landmarker of the body analyses (kernel 7 as MediaPipe's graph), with each person's mask
    /// in their ROI (the accurate person mask fuses them).
    package static func bodyLandmarker() throws -> PoseLandmarker {
        if let b = body.withLock({ $0 }) { return b }
        var options = PoseLandmarker.Options()
        options.segmentation = .roi
        options.maxPeople = maxPeople
        // Lower than MediaPipe's 0.5: people partly hidden by others score low, and the landmark model's presence
        // test (> 0.5) still rejects what is not a person (measured on the evaluation sets: 20 → 27 of 38 people).
        options.minDetectionScore = 0.3
        let made = try PoseLandmarker(options: options, threads: CPUBudget.modelThreads)
        return body.withLock { b in
            if let raced = b { return raced }
            b = made
            return made
        }
    }

    /// The hand landmarker returning at most `maxHands` hands.
    package static func handLandmarker(maxHands: Int) throws -> HandLandmarker {
        if let hit = hands.withLock({ $0[maxHands] }) { return hit }
        var options = HandLandmarker.Options()
        options.maxHands = maxHands
        options.maxPalmCandidates = max(4, maxHands + 2)
        let made = try HandLandmarker(options: options, threads: CPUBudget.modelThreads)
        return hands.withLock { c in
            if let raced = c[maxHands] { return raced }
            c[maxHands] = made
            return made
        }
    }

    /// The person segmenter of a quality level.
    package static func segmenter(_ quality: SegmentationQuality) throws -> PersonSegmenter {
        if let hit = segmenters.withLock({ $0[quality] }) { return hit }
        let made = try PersonSegmenter(quality: quality)
        return segmenters.withLock { c in
            if let raced = c[quality] { return raced }
            c[quality] = made
            return made
        }
    }
}

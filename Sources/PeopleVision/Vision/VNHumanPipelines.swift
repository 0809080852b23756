import Foundation
import PVImaging
import PVPerception
import Synchronization

/// The body and hand pipelines behind the human requests: loaded once per process, shared by every request, plus
/// a small cache so that several human requests performed by one handler run the body pipeline once.
enum VNHumanPipelines {
    /// Most people one body-pose or human-rectangles request reports.
    static let maxPeople = 32

    private static let body = Mutex<PoseLandmarker?>(nil)
    private static let hands = Mutex<[Int: HandLandmarker]>([:])
    private static let recent = Mutex<[(context: Weak, region: CGRect, multiScale: Bool, people: [PersonPose])]>([])

    final class Weak: @unchecked Sendable {
        weak var value: VNImageContext?
        init(_ value: VNImageContext) { self.value = value }
    }

    /// XNNPACK threads per body and hand model: one, as for faces and person segmentation. A second thread
    /// saves about a third of a large model's time on an idle machine, but on a busy one the shared worker
    /// pool's waiting made runs 5–20 times slower (`peoplevision bench bodies`: 52 ms with one thread, 978 ms
    /// with two, at load 6). Requests on different handlers still use every core by running side by side.
    static let threads = 1

    /// The multi-person pose landmarker (kernel 7 as MediaPipe's graph, no masks).
    static func bodyLandmarker() throws -> PoseLandmarker {
        if let b = body.withLock({ $0 }) { return b }
        var options = PoseLandmarker.Options()
        options.segmentation = .none
        options.maxPeople = maxPeople
        // Lower than MediaPipe's 0.5: people partly hidden by others score low, and the landmark model's presence
        // test (> 0.5) still rejects what is not a person (measured on the evaluation sets: 20 → 27 of 38 people).
        options.minDetectionScore = 0.3
        let made = try PoseLandmarker(options: options, threads: threads)
        return body.withLock { b in
            if let raced = b { return raced }
            b = made
            return made
        }
    }

    /// The hand landmarker returning at most `maxHands` hands.
    static func handLandmarker(maxHands: Int) throws -> HandLandmarker {
        if let h = hands.withLock({ $0[maxHands] }) { return h }
        var options = HandLandmarker.Options()
        options.maxHands = maxHands
        options.maxPalmCandidates = max(4, maxHands + 2)
        let made = try HandLandmarker(options: options, threads: threads)
        return hands.withLock { h in
            if let raced = h[maxHands] { return raced }
            h[maxHands] = made
            return made
        }
    }

    /// The people in a request's region of interest (pixels of the region). Multi-scale: the whole-image pass, then
    /// tiles of about 320 px unless the people found fill the picture
    /// (``PoseLandmarker/detectMultiScale(in:maxPeople:options:)``); otherwise the whole-image pass only (enough for
    /// the hand request's wrist search: the people whose hands are too small for the palm pass are large). Computed
    /// once per handler and region: a multi-scale result also serves a whole-image request.
    static func people(in context: VNImageContext, region roi: CGRect, image: PixelBuffer, multiScale: Bool = true) throws
        -> [PersonPose]
    {
        let hit = recent.withLock { r in
            r.first { $0.context.value === context && $0.region == roi && ($0.multiScale || !multiScale) }?.people
        }
        if let hit { return hit }
        let landmarker = try bodyLandmarker()
        let people = multiScale
            ? try landmarker.detectMultiScale(in: image, maxPeople: maxPeople)
            : try landmarker.detect(in: image, detectorTiling: nil, maxPeople: maxPeople)
        recent.withLock { r in
            r.removeAll { $0.context.value == nil }
            r.append((Weak(context), roi, multiScale, people))
            if r.count > 4 { r.removeFirst(r.count - 4) }
        }
        return people
    }
}

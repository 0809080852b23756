import Foundation
import PVCore
import PVImaging
import PVInference
import PVThreads

/// Hands with 21 landmarks and handedness: MediaPipe's palm detector and hand landmark model
/// (`palm_detection_{full,lite}.tflite` + `hand_landmark_{full,lite}.tflite`, MODELS.md §11.8–11.9), plus a
/// search around body-pose wrists for hands too small for the whole-image palm pass.
///
/// One call on an upright image:
/// 1. the palm detector runs on the whole image; each palm (by descending score, at most
///    ``Options/maxPalmCandidates``) gets a ROI: palm box centre, kp0 → kp2 pointing up, shifted −0.5 towards
///    the fingers, ×2.6, square (MODELS.md §7.4);
/// 2. when fewer than ``Options/maxHands`` hands were found and ``Options/bodyWristSearch`` allows it, the
///    people a ``PoseLandmarker`` finds contribute one ROI per visible wrist not already covered by a hand:
///    centre the wrist, side twice the distance to the estimated middle-finger knuckle `(2·index + pinky)/3`,
///    pointing up along that vector, shifted −0.1, ×2.7, square (MODELS.md §11.10, MediaPipe's holistic graph);
/// 3. the landmark model runs on each ROI (224×224, [0, 1], replicate border); results with presence
///    ≤ ``Options/minPresence`` are dropped; ``Options/recropPasses`` times the ROI is then rebuilt from the
///    landmarks (MODELS.md §7.5, what MediaPipe's tracker does on the next frame) and the model runs again, its result
///    kept when the model is at least as sure it sees a hand (presence not lower);
/// 4. results describing one hand twice are merged (landmark boxes with IoU > ``Options/duplicateIoU``),
///    keeping the higher presence; the largest ``Options/maxHands`` hands are returned, largest first.
///
/// Safe to share between threads.
///
/// ```swift
/// let hands = try HandLandmarker()
/// for hand in try hands.detect(in: image) { print(hand.side, hand.landmarks[8]) }   // index fingertip, pixels
/// ```
public final class HandLandmarker: Sendable {
    /// Which landmark model to run.
    public enum Model: String, Sendable, Hashable, CaseIterable {
        /// `hand_landmark_full.tflite`.
        case full
        /// `hand_landmark_lite.tflite`.
        case lite

        var fileName: String { "hand_landmark_\(rawValue).tflite" }
    }

    /// When body-pose wrists are searched for hands.
    public enum BodyWristSearch: Sendable, Hashable {
        /// Never: palms only, as MediaPipe does.
        case never
        /// When the palm pass found fewer than ``Options/maxHands`` hands (default).
        case whenHandsMissing
        /// Always.
        case always
    }

    /// Options; defaults follow MediaPipe's hand graph where it has one.
    public struct Options: Sendable, Hashable {
        /// Most hands returned, 1…64 (MediaPipe's `max_num_hands`, default 2).
        public var maxHands: Int = 2
        /// Palm detections sent to the landmark model, 1…64 (default 4): the rest are dropped by score.
        public var maxPalmCandidates: Int = 4
        /// Palm detector score threshold, 0…1 (`min_detection_confidence`, default 0.5).
        public var minDetectionScore: Double = 0.5
        /// Hand-presence threshold, 0…1; kept when presence is **greater than** it (default 0.5).
        public var minPresence: Double = 0.5
        /// Palm model (default full).
        public var palmModel: PalmDetector.Model = .full
        /// Landmark model (default full).
        public var landmarkModel: Model = .full
        /// Extra landmark passes on the ROI rebuilt from the previous pass's landmarks, 0…3 (default 1: on the evaluation
        /// sets it brings panoptic's PCK from 83 to 86 % and freihand's from 63.7 to 64.9 %).
        public var recropPasses: Int = 1
        /// Hand search around body-pose wrists (default ``BodyWristSearch/whenHandsMissing``).
        public var bodyWristSearch: BodyWristSearch = .whenHandsMissing
        /// A wrist is searched when its pose visibility is at least this (default 0.3).
        public var minWristVisibility: Double = 0.3
        /// Two results are the same hand when their landmark boxes overlap by more than this IoU (default 0.5).
        public var duplicateIoU: Double = 0.5
        /// Palms scoring from this up to ``minDetectionScore`` are tried when the palms above it give fewer than
        /// ``maxHands`` hands (before the wrist search), the best one per missing hand; ``minDetectionScore`` turns
        /// this off. Default 0.15: close-ups of hands in unusual poses (FreiHAND) score 0.2–0.5.
        public var weakPalmScore: Double = 0.15
        /// Hand presence a weak palm's hand needs (default 0.85; a strong palm's needs ``minPresence``): at
        /// lower presence, weak palms were faces.
        public var weakPalmMinPresence: Double = 0.85

        public init() {}

        func validate() throws {
            try checkOption((1...64).contains(maxHands), "maxHands \(maxHands) is outside 1…64")
            try checkOption((1...64).contains(maxPalmCandidates), "maxPalmCandidates \(maxPalmCandidates) is outside 1…64")
            try checkOption((0...1).contains(minDetectionScore), "minDetectionScore \(minDetectionScore) is outside 0…1")
            try checkOption((0...1).contains(minPresence), "minPresence \(minPresence) is outside 0…1")
            try checkOption((0...3).contains(recropPasses), "recropPasses \(recropPasses) is outside 0…3")
            try checkOption((0...1).contains(minWristVisibility), "minWristVisibility \(minWristVisibility) is outside 0…1")
            try checkOption((0...1).contains(duplicateIoU), "duplicateIoU \(duplicateIoU) is outside 0…1")
            try checkOption(
                (0...minDetectionScore).contains(weakPalmScore),
                "weakPalmScore \(weakPalmScore) is outside 0…minDetectionScore (\(minDetectionScore))")
            try checkOption((0...1).contains(weakPalmMinPresence), "weakPalmMinPresence \(weakPalmMinPresence) is outside 0…1")
        }
    }

    /// The options this landmarker runs with.
    public let options: Options
    /// The palm detector it uses.
    public let palmDetector: PalmDetector
    private let pool: InterpreterPool

    static let inputSize = 224

    /// Loads the models (once per process) and checks their tensors.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for bad options, `.unexpectedModel` for a model with other
    ///   tensors; `InferenceError` `.modelNotFound` when a model is not installed.
    public init(options: Options = Options(), threads: Int? = nil) throws {
        try options.validate()
        self.options = options
        palmDetector = try PalmDetector(model: options.palmModel, threads: threads)
        pool = try InterpreterPool(
            modelNamed: options.landmarkModel.fileName, threads: threads, input: [1, 224, 224, 3], outputCounts: [63, 1, 1, 63])
    }

    /// Finds the hands in an upright image.
    ///
    /// - Parameters:
    ///   - image: any ``PixelFormat``, upright.
    ///   - bodies: called at most once, on another thread beside the palm detector and landmark runs, unless the
    ///     wrist search is off (its result is unused when the palms alone give ``Options/maxHands`` hands); the
    ///     people in the image (pixels), e.g. `{ try poseLandmarker.detect(in: image) }`. `nil`: no wrist search.
    /// - Returns: up to ``Options/maxHands`` hands, largest first.
    /// - Throws: errors of the sampler, the interpreters or `bodies`.
    /// - Complexity: one palm-detector run plus `1 + recropPasses` landmark runs per candidate ROI (strong palms,
    ///   then weak ones and body wrists while hands are missing).
    public func detect(in image: PixelBuffer, bodies: (@Sendable () throws -> [PersonPose])? = nil) throws -> [HandPose] {
        // Whenever the wrist search may run (always, or unless the palms already reach maxHands), the body pipeline
        // (the longest job) starts at once, beside the palm detector and the palms' landmark runs, instead of
        // after them; if the palms turn out to yield maxHands hands, its result is dropped (the price of not
        // waiting: one body pass of otherwise idle CPU). A failure of the body pass matters only if the wrist
        // search then needs it.
        let startBodies: Bool
        switch options.bodyWristSearch {
        case .never: startBodies = false
        case .whenHandsMissing, .always: startBodies = bodies != nil
        }
        // One queue drained by every core: the palm detector, then each strong palm's landmark runs as soon as the
        // palms are known, beside the body pass. A weak palm's run is queued as soon as it is sure to be used (the
        // strong palms' hands so far and those still running cannot reach maxHands without it), by whichever job
        // settles that, and never once it cannot be; so a core freed early takes it instead of waiting for the
        // others. The hands are merged afterwards in the same order as running the steps one after the other.
        let found = Locked(PalmSearch())
        let maxHands = options.maxHands
        // The finished strong palms' hands, merged in palm order as `insert` does.
        @Sendable func strongHands(_ f: PalmSearch) -> [HandPose] {
            var hands: [HandPose] = []
            for k in f.strong.keys.sorted() { if let hand = f.strong[k] ?? nil { insert(hand, into: &hands) } }
            return hands
        }
        let weakEarly = CPUBudget.available > 1
        // Queues the weak palms whose use the strong palms' hands so far settle: weak palm j is used when the strong
        // palms give fewer than maxHands − j hands. Both outcomes are final: hands only grow, and hands plus the strong
        // palms still running only shrink.
        @Sendable func queueSettledWeakPalms(_ queue: JobQueue) {
            guard weakEarly else { return }
            let ready = found.withLock { $0.settleWeakPalms(maxHands: maxHands, strongHands: strongHands($0).count) }
            for (j, palm) in ready {
                queue.add { @Sendable [self] _ in
                    let outcome = Result { try weakPalmHand(palm, in: image) }
                    found.withLock { $0.weakTried[j] = outcome }
                }
            }
        }
        var jobs: [(job: JobQueue.Job, mayAddJobs: Bool)] = [
            (
                { @Sendable [self] queue in
                    let (strong, weak) = try palmDetector.detect(
                        in: image, minScore: options.minDetectionScore, weakScore: options.weakPalmScore)
                    let palms = Array(strong.prefix(options.maxPalmCandidates))
                    found.withLock {
                        $0.strongCount = palms.count
                        $0.weak = weak
                    }
                    for (k, palm) in palms.enumerated() {
                        queue.add({ @Sendable [self] queue in
                            var hand = try refinedLandmarks(in: image, roi: Self.roi(forPalm: palm), source: .palm)
                            hand?.detectionScore = palm.score
                            found.withLock { $0.strong[k] = .some(hand) }
                            queueSettledWeakPalms(queue)
                        }, mayAddJobs: weakEarly)
                    }
                    queueSettledWeakPalms(queue)
                }, true
            )
        ]
        if startBodies, let bodies {
            jobs.append(({ @Sendable _ in
                let people = Result { try bodies() }
                found.withLock { $0.people = people }
            }, false))
        }
        try JobQueue.run(jobs)
        let done = found.withLock { $0 }
        var hands = strongHands(done)
        let weak = done.weak
        let people = done.people
        if hands.count < options.maxHands, !weak.isEmpty {
            try addWeakPalmHands(weak, tried: done.weakTried, in: image, to: &hands)
        }
        let search: Bool
        switch options.bodyWristSearch {
        case .never: search = false
        case .whenHandsMissing: search = hands.count < options.maxHands
        case .always: search = true
        }
        if search, let bodies {
            try addWristHands(of: try people?.get() ?? bodies(), in: image, to: &hands)
        }
        hands.sort { $0.size > $1.size }
        return Array(hands.prefix(options.maxHands))
    }

    /// What the palm search of one ``detect(in:bodies:)`` call has found so far.
    private struct PalmSearch {
        var strong: [Int: HandPose?] = [:]
        var strongCount = 0
        var weak: [Detection] = []
        var weakTried: [Int: Result<HandPose?, any Error>] = [:]
        /// Weak palms whose use is settled (queued, or known not to be needed).
        var weakSettled = Set<Int>()
        var people: Result<[PersonPose], any Error>?

        /// The weak palms whose use `strongHands` (the finished strong palms' hands) now settles as needed, marked
        /// settled; those it settles as not needed are marked too.
        mutating func settleWeakPalms(maxHands: Int, strongHands hands: Int) -> [(Int, Detection)] {
            let pending = strongCount - strong.count
            var ready: [(Int, Detection)] = []
            for j in 0..<min(maxHands, weak.count) where !weakSettled.contains(j) {
                if hands >= maxHands - j {
                    weakSettled.insert(j)
                } else if hands + pending < maxHands - j {
                    weakSettled.insert(j)
                    ready.append((j, weak[j]))
                }
            }
            return ready
        }
    }

    /// The best weak palm per missing hand, merged in palm order: those already tried (`tried`, by index), the others
    /// side by side now.
    private func addWeakPalmHands(
        _ weak: [Detection], tried: [Int: Result<HandPose?, any Error>], in image: PixelBuffer, to hands: inout [HandPose]
    ) throws {
        let wanted = Array(weak.prefix(options.maxHands - hands.count))
        let late = try concurrently(wanted.indices.map { j in
            { @Sendable [self] () throws -> HandPose? in
                if let known = tried[j] { return try known.get() }
                return try weakPalmHand(wanted[j], in: image)
            }
        })
        for hand in late { if let hand { insert(hand, into: &hands) } }
    }

    /// Searches around the wrists of `people`: one ROI per visible wrist not covered by a hand found so far; their
    /// landmark runs side by side, each result dropped if a hand merged before it covers its wrist (as searching them
    /// one by one would).
    private func addWristHands(of people: [PersonPose], in image: PixelBuffer, to hands: inout [HandPose]) throws {
        var wrists: [(wrist: SIMD2<Double>, roi: RotatedRect, side: HandPose.Side)] = []
        for person in people {
            for side in [HandPose.Side.left, .right] {
                let (w, p, i) = side == .left ? (15, 17, 19) : (16, 18, 20)
                let wrist = person.landmarks[w]
                guard (wrist.visibility ?? 0) >= options.minWristVisibility,
                    wrist.x >= 0, wrist.y >= 0, wrist.x < Double(image.width), wrist.y < Double(image.height),
                    !hands.contains(where: { $0.landmarkBoundingBox.contains(wrist.position) }),
                    let roi = Self.roi(wrist: wrist.position, index: person.landmarks[i].position,
                        pinky: person.landmarks[p].position)
                else { continue }
                wrists.append((wrist.position, roi, side))
            }
        }
        let found = try concurrently(wrists.map { w in
            { @Sendable [self] in try refinedLandmarks(in: image, roi: w.roi, source: .bodyWrist(w.side)) }
        })
        for (w, hand) in zip(wrists, found) {
            guard let hand, !hands.contains(where: { $0.landmarkBoundingBox.contains(w.wrist) }) else { continue }
            insert(hand, into: &hands)
        }
    }

    /// A weak palm's hand: the model must be sure on the first pass (``Options/weakPalmMinPresence``) before the
    /// re-crop passes are spent on it, each kept only when its presence is not lower.
    private func weakPalmHand(_ palm: Detection, in image: PixelBuffer) throws -> HandPose? {
        guard let first = try landmarks(in: image, roi: Self.roi(forPalm: palm), source: .palm),
            first.presence >= options.weakPalmMinPresence
        else { return nil }
        var hand = try refinedLandmarks(from: first, in: image)
        hand.detectionScore = palm.score
        return hand
    }

    /// Adds `hand` unless it duplicates one already there (then the one with the higher presence stays).
    private func insert(_ hand: HandPose, into hands: inout [HandPose]) {
        let box = hand.landmarkBoundingBox
        if let same = hands.firstIndex(where: { $0.landmarkBoundingBox.intersectionOverUnion(with: box) > options.duplicateIoU }) {
            if hand.presence > hands[same].presence { hands[same] = hand }
        } else {
            hands.append(hand)
        }
    }

    /// The landmark ROI of a palm detection in pixels (MODELS.md §7.4, §11.8): box centre, kp0 → kp2 at 90°,
    /// shift −0.5, ×2.6, square.
    public static func roi(forPalm palm: Detection) -> RotatedRect {
        let angle = ROI.rotation(from: palm.keypoints[0], to: palm.keypoints[2], targetAngle: .pi / 2)
        return ROI.rect(box: palm.box, angle: angle).transformed(by: .handFromPalm)
    }

    /// The hand ROI MediaPipe's holistic graph builds from a body pose's wrist, index and pinky landmarks
    /// (pixels; MODELS.md §11.10): centre the wrist, side `2·|m − wrist|` with `m = (2·index + pinky)/3`,
    /// rotated so that wrist → m points up, shift −0.1, ×2.7, square. `nil` when the points coincide or are not finite.
    public static func roi(wrist: SIMD2<Double>, index: SIMD2<Double>, pinky: SIMD2<Double>) -> RotatedRect? {
        let m = (2 * index + pinky) / 3
        let rect = ROI.alignmentPointsRect(center: wrist, scalePoint: m, targetAngle: .pi / 2)
            .transformed(by: RectTransform(scaleX: 2.7, scaleY: 2.7, shiftY: -0.1, squareLong: true))
        guard rect.width > 1, rect.width.isFinite, rect.centerX.isFinite, rect.centerY.isFinite else { return nil }
        return rect
    }

    /// The landmark model on `roi`, then up to ``Options/recropPasses`` more passes on the ROI rebuilt from the landmarks,
    /// each kept only when its presence is not lower.
    func refinedLandmarks(in image: PixelBuffer, roi: RotatedRect, source: HandPose.Source) throws -> HandPose? {
        guard let hand = try landmarks(in: image, roi: roi, source: source) else { return nil }
        return try refinedLandmarks(from: hand, in: image)
    }

    /// ``Options/recropPasses`` more passes after a first one, each kept only when its presence is not lower.
    func refinedLandmarks(from first: HandPose, in image: PixelBuffer) throws -> HandPose {
        var hand = first
        let source = first.source
        for _ in 0..<options.recropPasses {
            let next = ROI.handRect(landmarks: hand.landmarks.map(\.position)).transformed(by: .handFromLandmarks)
            guard next.width > 1, next.width.isFinite,
                var better = try landmarks(in: image, roi: next, source: source), better.presence >= hand.presence
            else { break }
            better.detectionScore = hand.detectionScore
            // Handedness stays the first pass's: that is what MediaPipe reports for a detected hand, and the
            // re-cropped view of an unusual hand (a glove) can tip it.
            better.handednessScore = hand.handednessScore
            hand = better
        }
        return hand
    }

    /// Runs the landmark model on one square ROI (pixels).
    ///
    /// - Returns: the hand, or `nil` when presence is not above ``Options/minPresence``.
    /// - Throws: `ImagingError` for a non-finite or empty ROI; interpreter errors.
    public func landmarks(in image: PixelBuffer, roi: RotatedRect, source: HandPose.Source = .palm) throws -> HandPose? {
        let n = Self.inputSize
        let sampler = TensorSampler(width: n, height: n, range: 0...1, fit: .letterbox, border: .replicate)
        return try pool.withInterpreter { interpreter -> HandPose? in
            let padding = try interpreter.sampleInput(image, rect: roi, sampler: sampler)
            try interpreter.invoke()
            let presence = Double(interpreter.withOutput(1) { $0[0] })
            guard presence > options.minPresence else { return nil }
            let handedness = Double(interpreter.withOutput(2) { $0[0] })
            let points = interpreter.withOutput(0) {
                LandmarkDecoder(count: 21, valuesPerLandmark: 3, tensorWidth: n, tensorHeight: n, zNormalizer: 0.4)
                    .decode($0)
            }.map { $0.removingLetterbox(padding).projected(onto: roi) }
            let world = interpreter.withOutput(3) {
                LandmarkDecoder(count: 21, valuesPerLandmark: 3, tensorWidth: 1, tensorHeight: 1).decode($0)
            }.map { $0.rotated(by: roi.angle) }
            return HandPose(
                landmarks: points, worldLandmarks: world, roi: roi, presence: presence, handednessScore: handedness,
                detectionScore: nil, source: source)
        }
    }
}

import Foundation
import PVCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PVImaging
import PVInference
import PVThreads

/// Multi-person 2-D and 3-D body pose with per-person masks: BlazePose GHUM full
/// (`pose_detection.tflite` + `pose_landmark_full.tflite`, MODELS.md §11.6–11.7).
///
/// One call on an upright image:
/// 1. the pose detector runs on the whole image (and optionally on tiles, ``Options/detectorTiling``);
/// 2. **every** detection left after weighted NMS (MediaPipe's graph keeps only the first) gets a ROI:
///    centre = hip centre kp0, side = 2·|kp1 − kp0|, kp0 → kp1 pointing up, ×1.25, square (MODELS.md §7.4);
/// 3. the landmark model runs on that ROI (256×256, [0, 1], replicate border; both model inputs are rounded to
///    byte levels as MediaPipe's are, see `InputQuantization`); results with presence
///    ≤ ``Options/minPresence`` are dropped;
/// 4. 39 landmarks are decoded (sigmoid visibility and presence), refined with the heatmap, freed of the
///    letterbox and projected to image pixels; world landmarks are rotated by the ROI angle; the mask is
///    the sigmoid of the segmentation logits;
/// 5. results describing the same person twice are merged (``Options/duplicateIoU``,
///    ``Options/duplicateDistance``), keeping the higher presence.
///
/// Detections are processed by descending score until ``Options/maxPeople`` distinct people are found,
/// so the cost is one detector run plus one landmark run per processed detection.
///
/// Safe to share between threads: each model run borrows an interpreter from a pool, so concurrent calls
/// run in parallel on separate interpreters (each sized by `threads`).
///
/// ```swift
/// let landmarker = try PoseLandmarker()
/// for person in try landmarker.detect(in: image) {
///     let nose = person.landmarks[0]          // pixels
///     let mask = try person.segmentation?.warped(width: image.width, height: image.height)
/// }
/// ```
public final class PoseLandmarker: Sendable {
    /// Which segmentation output each person carries.
    public enum SegmentationOutput: Sendable, Hashable {
        /// None: the model still computes the mask, but no sigmoid or copy is paid for.
        case none
        /// The 256×256 ROI mask and its crop rect (``PoseSegmentationMask``); warp on demand. Cheap.
        case roi
        /// As ``roi``, plus the mask warped to the full image size (``PoseSegmentationMask/fullImage``),
        /// costing one bilinear sample per image pixel per person.
        case fullImage
    }

    /// Options; the defaults follow MediaPipe's pose graph files (see each).
    public struct Options: Sendable, Hashable {
        /// Most people returned, 1…64. Default 4, like a typical group photo budget: each person costs one
        /// landmark-model run (the dominant cost).
        public var maxPeople: Int = 4
        /// Detector score threshold, 0…1 (Python's `min_detection_confidence`, default 0.5).
        public var minDetectionScore: Double = 0.5
        /// Pose-presence threshold, 0…1; a person is kept when presence is **greater than** it
        /// (Python's `min_tracking_confidence`, default 0.5).
        public var minPresence: Double = 0.5
        /// Heatmap refinement window (odd, 1…63). Default 7, the graph files' value, which native MediaPipe
        /// and the Tasks API use; MediaPipe's Python `mp.solutions.pose` runs with 9 (MODELS.md §14), so set 9
        /// to compare with it.
        public var heatmapKernelSize: Int = 7
        /// Segmentation output per person. Default ``SegmentationOutput/roi``.
        public var segmentation: SegmentationOutput = .roi
        /// Extra detector passes over tiles for small people in large frames; default none. See
        /// ``PoseDetector/Tiling`` for the cost.
        public var detectorTiling: PoseDetector.Tiling? = nil
        /// Two results are the same person when the IoU of their landmark boxes exceeds this **and**
        /// their landmarks are close (``duplicateDistance``). Default 0.5.
        public var duplicateIoU: Double = 0.5
        /// … and the mean distance between corresponding body landmarks is below this fraction of the larger
        /// person's size (mean of its landmark box's width and height). Default 0.2. Both tests together keep
        /// two people standing one behind the other apart while merging two detections of one person.
        public var duplicateDistance: Double = 0.2

        public init() {}

        func validate() throws {
            try checkOption((1...64).contains(maxPeople), "maxPeople \(maxPeople) is outside 1…64")
            try checkOption((0...1).contains(minDetectionScore), "minDetectionScore \(minDetectionScore) is outside 0…1")
            try checkOption((0...1).contains(minPresence), "minPresence \(minPresence) is outside 0…1")
            try checkOption(
                (1...63).contains(heatmapKernelSize) && heatmapKernelSize % 2 == 1,
                "heatmapKernelSize \(heatmapKernelSize) must be odd and within 1…63")
            try checkOption((0...1).contains(duplicateIoU), "duplicateIoU \(duplicateIoU) is outside 0…1")
            try checkOption(duplicateDistance >= 0 && duplicateDistance.isFinite, "duplicateDistance \(duplicateDistance) must be ≥ 0")
            try detectorTiling?.validate()
        }
    }

    /// The options this landmarker runs with.
    public let options: Options
    /// The detector it uses.
    public let detector: PoseDetector
    private let pool: InterpreterPool
    /// The selfie model for multi-scale segmentation proposals, loaded at first use.
    private let proposals = Locked<PersonProposals?>(nil)
    private let threads: Int?

    /// The segmentation proposer (loads the landscape selfie model once).
    func personProposals() throws -> PersonProposals {
        try proposals.withLock { cached in
            if let cached { return cached }
            let made = try PersonProposals(threads: threads)
            cached = made
            return made
        }
    }

    static let inputSize = 256
    static let modelLandmarkCount = 39
    static let heatmapSize = 64

    /// Loads the models (once per process) and checks their tensors.
    /// - Parameters:
    ///   - options: see ``Options``.
    ///   - threads: XNNPACK threads per interpreter (default: the usable cores).
    /// - Throws: ``PerceptionError`` `.invalidArgument` for bad options, `.unexpectedModel` for a model with other
    ///   tensors; `InferenceError` `.modelNotFound` when a model is not installed.
    public init(options: Options = Options(), threads: Int? = nil) throws {
        try options.validate()
        self.options = options
        self.threads = threads
        detector = try PoseDetector(threads: threads)
        let name = "pose_landmark_full.tflite", expected = "[1, 256, 256, 3] → 195, 1, 256×256, 64×64×39, 117 values"
        pool = try InterpreterPool(
            modelNamed: name, threads: threads, input: [1, 256, 256, 3],
            outputCounts: [195, 1, 256 * 256, 64 * 64 * 39, 117], expected: expected)
        guard pool.model.outputs[3].shape == [1, 64, 64, 39] else {
            throw PerceptionError.unexpectedTensors(of: name, pool.model, expected: expected)
        }
    }

    /// Finds the people in an upright image.
    ///
    /// - Parameter image: any ``PixelFormat`` (RGBA, BGRA, RGB, …), upright.
    /// - Returns: up to ``Options/maxPeople`` people, by descending detection score.
    /// - Throws: errors of the sampler or the interpreters.
    /// - Complexity: one detector run (plus one per tile) and one landmark run per processed detection.
    public func detect(in image: PixelBuffer) throws -> [PersonPose] {
        try detect(in: image, detectorTiling: options.detectorTiling, maxPeople: options.maxPeople)
    }

    /// Finds the people in an upright image with a tiling and a people budget other than the options' (for
    /// example ``PoseDetector/Tiling/automatic(width:height:)`` chosen per image).
    ///
    /// - Parameters:
    ///   - image: any ``PixelFormat``, upright.
    ///   - detectorTiling: extra detector passes over tiles, or `nil` for the whole image only.
    ///   - maxPeople: most people returned, 1…64.
    /// - Returns: up to `maxPeople` people, by descending detection score.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for a bad tiling or budget; errors of the sampler or the
    ///   interpreters.
    public func detect(in image: PixelBuffer, detectorTiling: PoseDetector.Tiling?, maxPeople: Int) throws -> [PersonPose] {
        try detect(in: image, detectorTiling: detectorTiling, maxPeople: maxPeople, runs: nil)
    }

    /// ``detect(in:detectorTiling:maxPeople:)``, taking from `runs` the detector passes and landmark runs already made.
    package func detect(in image: PixelBuffer, detectorTiling: PoseDetector.Tiling?, maxPeople: Int, runs: PoseRuns?)
        throws -> [PersonPose]
    {
        guard (1...64).contains(maxPeople) else {
            throw PerceptionError(.invalidArgument, "maxPeople \(maxPeople) is outside 1…64")
        }
        let detections = try detector.detect(
            in: image, minScore: options.minDetectionScore, tiling: detectorTiling, runs: runs)
        return try people(for: detections, in: image, maxPeople: maxPeople, runs: runs)
    }

    /// The distinct people the landmark runs on `detections` find, by descending detection score (the second half of
    /// ``detect(in:detectorTiling:maxPeople:)``).
    func people(for detections: [Detection], in image: PixelBuffer, maxPeople: Int, runs: PoseRuns?) throws -> [PersonPose] {
        var people: [PersonPose] = []
        try runLandmarks(
            for: detections, in: image, into: &people, maxPeople: maxPeople, runs: runs, skip: { _, _ in false }
        ) {
            self.add($0, to: &$1)
        }
        return people
    }

    /// Adds `person` to `people`, or, when it is someone already there, keeps whichever of the two the model is
    /// surer of.
    func add(_ person: PersonPose, to people: inout [PersonPose]) {
        if let same = people.firstIndex(where: { isSamePerson($0, person) }) {
            if person.presence > people[same].presence { people[same] = person }
        } else {
            people.append(person)
        }
    }

    /// The landmark runs for `detections`, with exactly the result of the loop
    /// `for d in detections { stop at maxPeople; if skip(d, people) { continue }; merge(landmarks of d, &people) }`
    /// (degenerate ROIs and absent people merge nothing), but several runs at a time, one per core, when the loop
    /// needs a run: the next detection's, and those of the following detections not skipped yet whose boxes are
    /// disjoint from it and from each other (most likely other people; a detection overlapping the next one is most
    /// likely the same person, skipped once that one is merged). A result waits until the loop reaches its detection
    /// and is dropped if `skip` has become true for it by then, which is all the extra work this costs. `skip` must
    /// only become true, never false, as `people` grows.
    func runLandmarks(
        for detections: [Detection], in image: PixelBuffer, into people: inout [PersonPose], maxPeople: Int,
        runs: PoseRuns?, sideBySide side: Bool = CPUBudget.available > 1,
        skip: (Detection, [PersonPose]) -> Bool, merge: (PersonPose, inout [PersonPose]) -> Void
    ) throws {
        func run(_ detection: Detection) -> (@Sendable () throws -> PersonPose?) {
            { [self] in try landmarks(for: detection, in: image, runs: runs) }
        }
        var ran: [Int: PersonPose?] = [:]
        for k in detections.indices {
            guard people.count < maxPeople else { break }
            if skip(detections[k], people) { continue }
            if ran[k] == nil {
                var batch = [k]
                let width = min(side ? CPUBudget.available : 1, maxPeople - people.count)
                var j = k + 1
                while batch.count < width, j < detections.count {
                    let box = detections[j].box
                    if ran[j] == nil, !skip(detections[j], people),
                        batch.allSatisfy({ detections[$0].box.intersectionOverUnion(with: box) == 0 })
                    {
                        batch.append(j)
                    }
                    j += 1
                }
                for (b, result) in zip(batch, try concurrently(batch.map { run(detections[$0]) })) { ran[b] = .some(result) }
            }
            if let person = ran[k] ?? nil { merge(person, &people) }
        }
    }

    /// The landmark run on a detection's ROI, with the detection's score; `nil` for a degenerate ROI or no person.
    func landmarks(for detection: Detection, in image: PixelBuffer, runs: PoseRuns?) throws -> PersonPose? {
        let roi = Self.roi(for: detection)
        guard roi.hasSampleableCentreAndSide, var person = try landmarks(in: image, roi: roi, runs: runs) else { return nil }
        person.detectionScore = detection.score
        return person
    }

    /// The landmark ROI of a pose detection in pixels (MODELS.md §7.4): alignment points kp0 → kp1 at 90°, ×1.25,
    /// square.
    public static func roi(for detection: Detection) -> RotatedRect {
        ROI.alignmentPointsRect(center: detection.keypoints[0], scalePoint: detection.keypoints[1], targetAngle: .pi / 2)
            .transformed(by: .poseFromDetection)
    }

    /// Runs the landmark model on one ROI (for example the previous frame's, when tracking).
    ///
    /// - Parameters:
    ///   - image: the upright image.
    ///   - roi: a square ROI in image pixels.
    /// - Returns: the person, or `nil` when presence is not above ``Options/minPresence``.
    /// - Throws: `ImagingError` for a non-finite or empty ROI; interpreter errors.
    public func landmarks(in image: PixelBuffer, roi: RotatedRect) throws -> PersonPose? {
        try landmarks(in: image, roi: roi, runs: nil)
    }

    /// ``landmarks(in:roi:)``, taken from `runs` when that run was made already. The run kept there holds the ROI
    /// mask whatever the options ask, so that it serves a landmarker that wants the mask as well as one that does not.
    package func landmarks(in image: PixelBuffer, roi: RotatedRect, runs: PoseRuns?) throws -> PersonPose? {
        guard let runs else { return try landmarks(in: image, roi: roi, segmentation: options.segmentation) }
        let roi = runs.steadied(roi)
        let key = PoseRuns.LandmarkKey(roi: roi, heatmapKernelSize: options.heatmapKernelSize, minPresence: options.minPresence)
        guard var person = try runs.landmarks(key, run: { try landmarks(in: image, roi: roi, segmentation: .roi) }) else {
            return nil
        }
        switch options.segmentation {
        case .none: person.segmentation = nil
        case .roi: break
        case .fullImage:
            if let m = person.segmentation { person.segmentation?.fullImage = try m.warped(width: image.width, height: image.height) }
        }
        return person
    }

    /// The landmark run on `roi`, with the segmentation output `segmentation`.
    private func landmarks(in image: PixelBuffer, roi: RotatedRect, segmentation: SegmentationOutput) throws -> PersonPose? {
        let n = Self.inputSize
        let sampler = TensorSampler(width: n, height: n, range: 0...1, fit: .letterbox, border: .replicate)
        let cropRect = roi.letterboxed(toAspectOf: n, n).rect
        let refinement = HeatmapRefinement(kernelSize: options.heatmapKernelSize)
        let person = try pool.withInterpreter { interpreter -> PersonPose? in
            let padding = try interpreter.sampleInput(image, rect: roi, sampler: sampler)
            try interpreter.invoke()
            let presence = Double(interpreter.withOutput(1) { $0[0] })
            guard presence > options.minPresence else { return nil }

            var all = interpreter.withOutput(0) {
                LandmarkDecoder(
                    count: Self.modelLandmarkCount, valuesPerLandmark: 5, tensorWidth: n, tensorHeight: n,
                    activation: .sigmoid
                ).decode($0)
            }
            interpreter.withOutput(3) {
                refinement.refine(
                    &all, heatmap: $0, width: Self.heatmapSize, height: Self.heatmapSize, channels: Self.modelLandmarkCount)
            }
            all = all.map { $0.removingLetterbox(padding).projected(onto: roi) }
            let body = Array(all[0..<PersonPose.landmarkCount])

            let world = interpreter.withOutput(4) {
                LandmarkDecoder(count: Self.modelLandmarkCount, valuesPerLandmark: 3, tensorWidth: 1, tensorHeight: 1)
                    .decode($0)
            }
            let worldBody = (0..<PersonPose.landmarkCount).map { i in
                var w = world[i].rotated(by: roi.angle)
                w.visibility = body[i].visibility
                w.presence = body[i].presence
                return w
            }

            var mask: PoseSegmentationMask?
            if segmentation != .none {
                let logits = interpreter.output(2)
                mask = PoseSegmentationMask(
                    roiMask: logits.map { 1 / (1 + expf(-$0)) }, maskWidth: n, maskHeight: n, cropRect: cropRect,
                    imageWidth: image.width, imageHeight: image.height)
            }
            return PersonPose(
                landmarks: body, worldLandmarks: worldBody, auxiliaryLandmarks: [all[33], all[34]], roi: roi,
                detectionScore: nil, presence: presence, segmentation: mask)
        }
        // The full-size warp runs after the interpreter is back in the pool.
        guard var person else { return nil }
        if segmentation == .fullImage, let m = person.segmentation {
            person.segmentation?.fullImage = try m.warped(width: image.width, height: image.height)
        }
        return person
    }

    /// Whether two results describe one person: landmark boxes overlapping (IoU > duplicateIoU) and
    /// landmarks close (mean distance < duplicateDistance × the larger person's size).
    func isSamePerson(_ a: PersonPose, _ b: PersonPose) -> Bool {
        let ba = a.landmarkBoundingBox, bb = b.landmarkBoundingBox
        guard ba.intersectionOverUnion(with: bb) > options.duplicateIoU else { return false }
        let size = max((ba.width + ba.height) / 2, (bb.width + bb.height) / 2)
        guard size > 0 else { return true }
        var total = 0.0
        for (p, q) in zip(a.landmarks, b.landmarks) {
            let d = p.position - q.position
            total += (d * d).sum().squareRoot()
        }
        return total / Double(a.landmarks.count) < options.duplicateDistance * size
    }
}

import PVImaging
import PVInference
import PVCore

/// MediaPipe's palm detector (`palm_detection_full.tflite` or `palm_detection_lite.tflite`, MODELS.md §11.8):
/// finds palms and, for each, seven keypoints the hand landmark model's ROI is built from.
///
/// The image (or a part of it) is letterboxed to 192×192 (**[0, 1]**, zero border), decoded against 2016
/// anchors, merged with weighted NMS (IoU 0.3) and mapped back to image pixels. Keypoint 0 is the wrist
/// centre, keypoint 2 the middle finger's MCP joint.
///
/// Safe to share between threads: each call borrows an interpreter from a pool.
///
/// ```swift
/// let detector = try PalmDetector(model: .full)
/// for palm in try detector.detect(in: image) { print(palm.score, palm.keypoints[0]) }
/// ```
public final class PalmDetector: Sendable {
    /// Which of the two interchangeable palm models to run.
    public enum Model: String, Sendable, Hashable, CaseIterable {
        /// `palm_detection_full.tflite`.
        case full
        /// `palm_detection_lite.tflite`: smaller, slightly less accurate.
        case lite

        var fileName: String { "palm_detection_\(rawValue).tflite" }
    }

    /// Tensor side.
    static let inputSize = 192
    /// Weighted-NMS IoU threshold of the palm graph.
    static let iouThreshold = 0.3

    /// The model this detector runs.
    public let model: Model
    private let pool: InterpreterPool
    private let anchors: [Anchor]

    /// Loads the detector (once per process) and checks its tensors.
    /// - Parameters:
    ///   - model: full (default) or lite.
    ///   - threads: XNNPACK threads per interpreter (default: the usable cores).
    /// - Throws: `InferenceError` `.modelNotFound` when the model is not installed; ``PerceptionError``
    ///   `.unexpectedModel` when its tensors are not the expected ones.
    public init(model: Model = .full, threads: Int? = nil) throws {
        self.model = model
        pool = try SSDPass.pool(modelNamed: model.fileName, size: Self.inputSize, anchors: 2016, values: 18, threads: threads)
        anchors = SSDAnchorOptions.palm.anchors()
    }

    /// Detects palms in an upright image, or in an axis-aligned part of it.
    ///
    /// - Parameters:
    ///   - image: any ``PixelFormat``; upright.
    ///   - region: the part of the image to look at, in pixels (default: the whole image). Parts outside the
    ///     image read as black, as the letterbox does.
    ///   - minScore: keep candidates scoring at least this (0…1; the graph's value is 0.5).
    /// - Returns: detections in **image pixels**, by descending score, after weighted NMS. Not capped.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for a score outside 0…1; errors of the sampler or the
    ///   interpreter.
    /// - Complexity: one detector run.
    public func detect(in image: PixelBuffer, region: RotatedRect? = nil, minScore: Double = 0.5) throws -> [Detection] {
        try detect(in: image, region: region, minScore: minScore, weakScore: minScore).strong
    }

    /// One detector run giving the palms scoring at least `minScore` (exactly ``detect(in:region:minScore:)``'s) and,
    /// apart, the weaker ones scoring at least `weakScore`: merged by their own weighted NMS and kept only where no
    /// strong palm is (so the strong palms' boxes are those `minScore` alone gives).
    ///
    /// - Throws: ``PerceptionError`` `.invalidArgument` unless `0 ≤ weakScore ≤ minScore ≤ 1`; sampler or interpreter
    ///   errors.
    public func detect(in image: PixelBuffer, region: RotatedRect? = nil, minScore: Double, weakScore: Double) throws
        -> (strong: [Detection], weak: [Detection])
    {
        guard (0...1).contains(minScore), (0...minScore).contains(weakScore) else {
            throw PerceptionError(
                .invalidArgument, "palm scores: minimum \(minScore) must be within 0…1 and the weak one \(weakScore) within 0…minimum")
        }
        let decoder = SSDDecoder(
            anchors: anchors, valuesPerAnchor: 18, keypointCount: 7, inputWidth: Self.inputSize,
            inputHeight: Self.inputSize, minScore: weakScore)
        let rect = region ?? RotatedRect(covering: image)
        let sampler = TensorSampler(
            width: Self.inputSize, height: Self.inputSize, range: 0...1, fit: .letterbox, border: .zero)
        return try pool.withInterpreter { interpreter in
            let (raw, _) = try SSDPass.run(interpreter, image: image, rect: rect, sampler: sampler, decoder: decoder)
            // NMS in tensor space (as MediaPipe does, before the letterbox comes off), then pixels.
            let sampled = rect.letterboxed(toAspectOf: Self.inputSize, Self.inputSize).rect
            let strong = NonMaxSuppression.weighted(raw.filter { $0.score >= minScore }, iouThreshold: Self.iouThreshold)
            let weak = weakScore < minScore
                ? NonMaxSuppression.weighted(raw.filter { $0.score < minScore }, iouThreshold: Self.iouThreshold).filter { w in
                    !strong.contains { $0.box.intersectionOverUnion(with: w.box) > Self.iouThreshold }
                }
                : []
            return (strong.map { $0.mapped(fromTensorOf: sampled) }, weak.map { $0.mapped(fromTensorOf: sampled) })
        }
    }
}

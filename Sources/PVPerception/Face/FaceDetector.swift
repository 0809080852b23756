import PVImaging
import PVInference
import PVThreads
import PVCore

/// BlazeFace, short range and full range (sparse) (`face_detection_short_range.tflite`,
/// `face_detection_full_range_sparse.tflite`, MODELS.md §11.1–11.2): face boxes with six keypoints
/// (subject's right eye, left eye, nose tip, mouth centre, right ear tragion, left ear tragion).
///
/// **Combination rule** (``Model/combined``, the default). The short-range model sees the image at
/// 128 px with coarse anchors (strides 8 and 16) and is trained for faces filling much of the frame; the
/// full-range model sees it at 192 px with one anchor every 4 px and finds faces down to a few percent of
/// the frame, but misses some close-ups. Both run on the whole image; their candidates (each above its
/// own threshold) are mapped to image pixels and merged by **one** weighted NMS (IoU 0.3, MODELS.md §5).
/// A face both models see becomes one detection whose box and keypoints are the score-weighted mean of
/// both clusters and whose score is the higher one; a face only one model sees is kept as that model
/// found it. Merging the raw candidates (rather than two NMS outputs) keeps the rule exactly
/// MediaPipe's NMS, so a single model's output is unchanged when the other finds nothing.
///
/// Optionally (``detect(in:model:minScore:tiling:)``'s `tiling`), the full-range model also runs on
/// overlapping tiles, which finds faces too small for the whole-image passes. Tiles only **add** faces: their
/// detections (merged by their own weighted NMS) are kept where they do not overlap any whole-image
/// detection, so the faces found without tiling keep exactly their boxes.
///
/// Safe to share between threads: each call borrows interpreters from pools.
///
/// ```swift
/// let detector = try FaceDetector()
/// for face in try detector.detect(in: image) { print(face.score, face.box) }   // pixels
/// ```
public final class FaceDetector: Sendable {
    /// Which detector model(s) run.
    public enum Model: Sendable, Hashable, CaseIterable {
        /// `face_detection_short_range.tflite` alone (MediaPipe's `model_selection=0`).
        case shortRange
        /// `face_detection_full_range_sparse.tflite` alone (MediaPipe's `model_selection=1`).
        case fullRange
        /// Both, merged by one weighted NMS (see the type's documentation).
        case combined
    }

    /// Weighted-NMS IoU threshold of both face graphs.
    static let iouThreshold = 0.3
    /// The short-range graph's score threshold.
    public static let shortRangeThreshold = 0.5
    /// The full-range graph's score threshold (MediaPipe's Python solution uses it too).
    public static let fullRangeThreshold = 0.6
    /// Both models' threshold in ``Model/combined``: MediaPipe's documented default detection confidence.
    /// Partly covered faces (masks, hands) and small faces often score 0.5–0.6 on the full-range model; the
    /// extra candidates this admits are few, and the face mesh's presence check rejects non-faces downstream.
    public static let combinedThreshold = 0.5

    private struct Stage: Sendable {
        let pool: InterpreterPool
        let anchors: [Anchor]
        let size: Int
    }

    private let short: Stage
    private let full: Stage

    /// Loads both models (once per process) and checks their tensors.
    /// - Parameter threads: XNNPACK threads per interpreter (default: the usable cores).
    /// - Throws: `InferenceError` `.modelNotFound` when a model is not installed; ``PerceptionError``
    ///   `.unexpectedModel` when its tensors are not the expected ones.
    public init(threads: Int? = nil) throws {
        short = try Self.stage("face_detection_short_range.tflite", size: 128, anchors: 896, options: .faceShortRange, threads: threads)
        full = try Self.stage("face_detection_full_range_sparse.tflite", size: 192, anchors: 2304, options: .faceFullRange, threads: threads)
    }

    private static func stage(
        _ name: String, size: Int, anchors count: Int, options: SSDAnchorOptions, threads: Int?
    ) throws -> Stage {
        let pool = try SSDPass.pool(modelNamed: name, size: size, anchors: count, values: 16, threads: threads)
        return Stage(pool: pool, anchors: options.anchors(), size: size)
    }

    /// Detects faces in an upright image.
    ///
    /// - Parameters:
    ///   - image: any ``PixelFormat``; must be upright (the detectors see no rotation).
    ///   - model: which model(s) run; default ``Model/combined``.
    ///   - minScore: keep candidates scoring at least this (0…1); `nil` uses each graph's own threshold for a
    ///     single model, 0.5 short range and 0.6 full range (MediaPipe's Python solution keeps the full-range
    ///     graph's 0.6), and ``combinedThreshold`` (0.5) for both models in ``Model/combined``.
    ///   - tiling: extra full-range passes over tiles (default none).
    /// - Returns: detections in **image pixels**, by descending score, after weighted NMS. Not capped.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for a score outside 0…1 or bad tiling; errors of the
    ///   sampler or the interpreters.
    /// - Complexity: one run per model, plus one full-range run per tile.
    public func detect(
        in image: PixelBuffer, model: Model = .combined, minScore: Double? = nil, tiling: PoseDetector.Tiling? = nil
    ) throws -> [Detection] {
        try detectWithShortRange(in: image, model: model, minScore: minScore, tiling: tiling).detections
    }

    /// ``detect(in:model:minScore:tiling:)``, plus what the short-range model found on its own (its candidates after
    /// their own weighted NMS, from the same run; empty for ``Model/fullRange``): the crops MediaPipe's face mesh is
    /// run on.
    ///
    /// `onShortRange`, when given, is called with those short-range faces as soon as they are known, on the thread
    /// that found them, while the full-range passes may still run; the jobs it adds to the queue (work on those faces)
    /// are taken by whichever thread is free, the full-range pass's once it ends, and all end before this returns.
    package func detectWithShortRange(
        in image: PixelBuffer, model: Model = .combined, minScore: Double? = nil, tiling: PoseDetector.Tiling? = nil,
        onShortRange: (@Sendable ([Detection], JobQueue) throws -> Void)? = nil
    ) throws -> (detections: [Detection], shortRange: [Detection]) {
        if let minScore, !(0...1).contains(minScore) {
            throw PerceptionError(.invalidArgument, "minimum detection score \(minScore) is outside 0…1")
        }
        try tiling?.validate()
        let whole = RotatedRect(covering: image)
        let fullThreshold = minScore ?? (model == .combined ? Self.combinedThreshold : Self.fullRangeThreshold)
        let shortThreshold = minScore ?? Self.shortRangeThreshold
        // The passes are independent and each model runs on one thread, so they run side by side. The full-range
        // passes (two to four times the short-range one) are handed out first: the calling thread starts on one,
        // and on a busy machine, where the second thread may wake late, the short pass is still waiting for it
        // instead of the long one. Results keep the sequential order (short range, full range, tiles), so the
        // outcome is the same.
        var passes: [(job: @Sendable (JobQueue) throws -> [Detection], mayAddJobs: Bool)] = []
        if model != .shortRange {
            passes.append(({ [self] _ in try self.run(self.full, image: image, rect: whole, minScore: fullThreshold) }, false))
        }
        let tiles = model != .shortRange ? tiling?.tiles(width: image.width, height: image.height) ?? [] : []
        for tile in tiles {
            passes.append(({ [self] _ in try self.run(self.full, image: image, rect: tile, minScore: fullThreshold) }, false))
        }
        if model != .fullRange {
            passes.append(
                ({ [self] queue in
                    let candidates = try self.run(self.short, image: image, rect: whole, minScore: shortThreshold)
                    try onShortRange?(NonMaxSuppression.weighted(candidates, iouThreshold: Self.iouThreshold), queue)
                    return candidates
                }, onShortRange != nil))
        }
        var results = try JobQueue.collect(passes)
        if model != .fullRange { results.insert(results.removeLast(), at: 0) }
        let shortRange = model == .fullRange ? [] : NonMaxSuppression.weighted(results[0], iouThreshold: Self.iouThreshold)
        let candidates = Array(results.dropLast(tiles.count).joined())
        if model != .shortRange {
            if tiling != nil {
                let tiled = Array(results.suffix(tiles.count).joined())
                // Tiles only add faces: a tile detection overlapping a whole-image one is dropped, so the faces
                // the whole-image passes find keep exactly the boxes they have without tiling.
                let found = NonMaxSuppression.weighted(candidates, iouThreshold: Self.iouThreshold)
                let added = NonMaxSuppression.weighted(tiled, iouThreshold: Self.iouThreshold).filter { t in
                    !found.contains { f in
                        f.box.intersectionOverUnion(with: t.box) > 0 || f.box.contains(t.box.center)
                            || t.box.contains(f.box.center)
                    }
                }
                return ((found + added).sorted { $0.score > $1.score }, shortRange)
            }
        }
        return (NonMaxSuppression.weighted(candidates, iouThreshold: Self.iouThreshold), shortRange)
    }

    /// One detector pass over `rect`: raw candidates (before NMS) in image pixels.
    private func run(_ stage: Stage, image: PixelBuffer, rect: RotatedRect, minScore: Double) throws -> [Detection] {
        let n = stage.size
        let decoder = SSDDecoder(
            anchors: stage.anchors, valuesPerAnchor: 16, keypointCount: 6, inputWidth: n, inputHeight: n, minScore: minScore)
        let sampler = TensorSampler(width: n, height: n, range: -1...1, fit: .letterbox, border: .zero)
        let sampled = rect.letterboxed(toAspectOf: n, n).rect
        return try stage.pool.withInterpreter { interpreter in
            try SSDPass.run(interpreter, image: image, rect: rect, sampler: sampler, decoder: decoder).0.map {
                $0.mapped(fromTensorOf: sampled)
            }
        }
    }
}

import PVImaging
import PVInference
import PVCore

/// BlazePose's person detector (`pose_detection.tflite`, MODELS.md §11.6): finds people and, for each,
/// the two alignment points the landmark model's ROI is built from.
///
/// The image is letterboxed to 224×224 ([−1, 1], zero border), decoded against 2254 anchors, merged with
/// weighted NMS (IoU 0.3) and mapped back to image pixels. The box is roughly the **head**, not the body;
/// keypoint 0 is the hip centre and keypoint 1 a point about one body "radius" beyond the head.
///
/// Safe to share between threads: each call borrows an interpreter from a pool.
///
/// ```swift
/// let detector = try PoseDetector()
/// for person in try detector.detect(in: image) { print(person.score, person.keypoints[0]) }
/// ```
public final class PoseDetector: Sendable {
    /// Optional extra detector passes over overlapping tiles, for small people in large frames.
    ///
    /// The whole image is always detected; tiling adds `columns × rows` passes, each costing one
    /// detector run (about as much as the whole-image pass), and merges every candidate with one weighted
    /// NMS. A person the whole-image pass finds is found again in the tiles and merged; a person too small
    /// for the whole-image pass (the detector sees the image at 224 px) becomes visible at the tile's
    /// higher resolution.
    public struct Tiling: Sendable, Hashable {
        /// Tiles across.
        public var columns: Int
        /// Tiles down.
        public var rows: Int
        /// Fraction of a tile's width (height) shared with its right (lower) neighbour, 0 ..< 0.9.
        public var overlap: Double

        public init(columns: Int, rows: Int, overlap: Double = 0.25) {
            self.columns = columns
            self.rows = rows
            self.overlap = overlap
        }

        /// 2×2 tiles overlapping by a quarter: 5 detector runs instead of 1.
        public static let grid2x2 = Tiling(columns: 2, rows: 2, overlap: 0.25)

        func validate() throws {
            guard (1...8).contains(columns), (1...8).contains(rows), overlap >= 0, overlap < 0.9 else {
                throw PerceptionError(
                    .invalidArgument, "tiling \(columns)×\(rows) overlap \(overlap): use 1…8 tiles per axis and overlap in 0..<0.9")
            }
        }

        /// The tile rects (pixels, axis-aligned) of a `width × height` image.
        func tiles(width: Int, height: Int) -> [RotatedRect] {
            let W = Double(width), H = Double(height)
            let tw = W / (Double(columns) - Double(columns - 1) * overlap)
            let th = H / (Double(rows) - Double(rows - 1) * overlap)
            var result: [RotatedRect] = []
            for r in 0..<rows {
                for c in 0..<columns {
                    let x0 = Double(c) * tw * (1 - overlap), y0 = Double(r) * th * (1 - overlap)
                    result.append(RotatedRect(centerX: x0 + tw / 2, centerY: y0 + th / 2, width: tw, height: th))
                }
            }
            return result
        }
    }

    /// Tensor side.
    static let inputSize = 224
    /// Weighted-NMS IoU threshold of the pose graph.
    static let iouThreshold = 0.3

    private let pool: InterpreterPool
    private let anchors: [Anchor]

    /// Loads the detector (once per process) and checks its inputs and outputs.
    /// - Parameter threads: XNNPACK threads per interpreter (default: the usable cores).
    /// - Throws: `InferenceError` `.modelNotFound` when the model is not installed; ``PerceptionError``
    ///   `.unexpectedModel` when its tensors are not the expected ones.
    public init(threads: Int? = nil) throws {
        pool = try SSDPass.pool(modelNamed: "pose_detection.tflite", size: Self.inputSize, anchors: 2254, values: 12, threads: threads)
        anchors = SSDAnchorOptions.pose.anchors()
    }

    /// Detects people in an upright image.
    ///
    /// - Parameters:
    ///   - image: any ``PixelFormat``; must be upright (the detector sees no rotation).
    ///   - minScore: keep candidates scoring at least this (0…1; the graph's value is 0.5).
    ///   - tiling: extra passes over tiles (default none).
    /// - Returns: detections in **image pixels**, by descending score, after weighted NMS. Not capped.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for a score outside 0…1 or bad tiling; errors of the
    ///   sampler or the interpreter.
    /// - Complexity: one detector run, plus one per tile.
    public func detect(in image: PixelBuffer, minScore: Double = 0.5, tiling: Tiling? = nil) throws -> [Detection] {
        try detect(in: image, minScore: minScore, tiling: tiling, runs: nil)
    }

    /// ``detect(in:minScore:tiling:)``, each pass's candidates taken from `runs` when that pass was made already.
    package func detect(in image: PixelBuffer, minScore: Double = 0.5, tiling: Tiling? = nil, runs: PoseRuns?) throws
        -> [Detection]
    {
        guard (0...1).contains(minScore) else {
            throw PerceptionError(.invalidArgument, "minimum detection score \(minScore) is outside 0…1")
        }
        try tiling?.validate()
        let W = Double(image.width), H = Double(image.height)
        // Whole image: NMS in tensor space, then letterbox removal (MODELS.md §11.6), then pixels.
        let (raw, padding) = try pass(over: RotatedRect(covering: image), of: image, minScore: minScore, runs: runs)
        guard let tiling else {
            return NonMaxSuppression.weighted(raw, iouThreshold: Self.iouThreshold).map {
                $0.removingLetterbox(padding).scaled(x: W, y: H)
            }
        }
        // Tiles: every pass's candidates in image pixels, one NMS over all of them.
        var candidates = raw.map { $0.removingLetterbox(padding).scaled(x: W, y: H) }
        for tile in tiling.tiles(width: image.width, height: image.height) {
            let (tileRaw, _) = try pass(over: tile, of: image, minScore: minScore, runs: runs)
            let sampled = tile.letterboxed(toAspectOf: Self.inputSize, Self.inputSize).rect
            candidates += tileRaw.map { $0.mapped(fromTensorOf: sampled) }
        }
        return NonMaxSuppression.weighted(candidates, iouThreshold: Self.iouThreshold)
    }

    /// Detects people in one axis-aligned part of an upright image (a tile), letterboxed to the detector's input.
    ///
    /// - Parameters:
    ///   - image: any ``PixelFormat``; upright.
    ///   - region: the part to look at, in pixels; parts outside the image read as black.
    ///   - minScore: keep candidates scoring at least this (0…1).
    /// - Returns: detections in **image pixels**, by descending score, after weighted NMS within the region.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for a score outside 0…1; sampler or interpreter errors.
    /// - Complexity: one detector run.
    public func detect(in image: PixelBuffer, region: RotatedRect, minScore: Double = 0.5) throws -> [Detection] {
        try detect(in: image, region: region, minScore: minScore, runs: nil)
    }

    /// ``detect(in:region:minScore:)``, the pass's candidates taken from `runs` when it was made already.
    package func detect(in image: PixelBuffer, region: RotatedRect, minScore: Double = 0.5, runs: PoseRuns?) throws
        -> [Detection]
    {
        guard (0...1).contains(minScore) else {
            throw PerceptionError(.invalidArgument, "minimum detection score \(minScore) is outside 0…1")
        }
        let (raw, _) = try pass(over: region, of: image, minScore: minScore, runs: runs)
        let sampled = region.letterboxed(toAspectOf: Self.inputSize, Self.inputSize).rect
        return NonMaxSuppression.weighted(raw, iouThreshold: Self.iouThreshold).map { $0.mapped(fromTensorOf: sampled) }
    }

    /// One detector pass over `rect`, or its candidates from `runs`: candidates scoring at least `minScore`,
    /// normalized to the tensor, and the letterbox padding.
    private func pass(over rect: RotatedRect, of image: PixelBuffer, minScore: Double, runs: PoseRuns?) throws
        -> ([Detection], LetterboxPadding)
    {
        func run(from floor: Double) throws -> ([Detection], LetterboxPadding) {
            let decoder = SSDDecoder(
                anchors: anchors, valuesPerAnchor: 12, keypointCount: 4, inputWidth: Self.inputSize,
                inputHeight: Self.inputSize, minScore: floor)
            let sampler = TensorSampler(
                width: Self.inputSize, height: Self.inputSize, range: -1...1, fit: .letterbox, border: .zero)
            return try pool.withInterpreter { try SSDPass.run($0, image: image, rect: rect, sampler: sampler, decoder: decoder) }
        }
        guard let runs else { return try run(from: minScore) }
        return try runs.candidates(over: rect, minScore: minScore, pass: run(from:))
    }
}

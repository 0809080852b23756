import PVImaging

/// An axis-aligned box given by its corners. The unit (tensor-normalized, image-normalized or pixels)
/// is whatever the producing function documents.
public struct BoundingBox: Sendable, Hashable, CustomStringConvertible {
    public var xMin: Double
    public var yMin: Double
    public var xMax: Double
    public var yMax: Double

    public init(xMin: Double, yMin: Double, xMax: Double, yMax: Double) {
        self.xMin = xMin
        self.yMin = yMin
        self.xMax = xMax
        self.yMax = yMax
    }

    /// The smallest box holding `points`; `nil` when there are none.
    public init?(enclosing points: some Sequence<SIMD2<Double>>) {
        var it = points.makeIterator()
        guard let first = it.next() else { return nil }
        var lo = first, hi = first
        while let p = it.next() {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        self.init(xMin: lo.x, yMin: lo.y, xMax: hi.x, yMax: hi.y)
    }

    public var width: Double { xMax - xMin }
    public var height: Double { yMax - yMin }
    public var center: SIMD2<Double> { SIMD2((xMin + xMax) / 2, (yMin + yMax) / 2) }
    /// Area; 0 for an empty or inverted box.
    public var area: Double { width > 0 && height > 0 ? width * height : 0 }

    /// Whether `p` lies inside the box (edges included).
    func contains(_ p: SIMD2<Double>) -> Bool { p.x >= xMin && p.x <= xMax && p.y >= yMin && p.y <= yMax }

    /// Intersection over union, as MediaPipe's NMS computes it: 0 when the boxes are disjoint or the
    /// union is empty. Invariant under scaling either axis, so it can be taken in any of the units above.
    public func intersectionOverUnion(with other: BoundingBox) -> Double {
        let iw = min(xMax, other.xMax) - max(xMin, other.xMin)
        let ih = min(yMax, other.yMax) - max(yMin, other.yMin)
        guard iw > 0, ih > 0 else { return 0 }
        let intersection = iw * ih
        let union = area + other.area - intersection
        return union > 0 ? intersection / union : 0
    }

    /// The overlap of two boxes; `nil` when they do not overlap.
    public func intersection(with other: BoundingBox) -> BoundingBox? {
        let b = BoundingBox(
            xMin: max(xMin, other.xMin), yMin: max(yMin, other.yMin), xMax: min(xMax, other.xMax), yMax: min(yMax, other.yMax))
        return b.width > 0 && b.height > 0 ? b : nil
    }

    /// The box with x multiplied by `sx` and y by `sy` (e.g. normalized → pixels).
    public func scaled(x sx: Double, y sy: Double) -> BoundingBox {
        BoundingBox(xMin: xMin * sx, yMin: yMin * sy, xMax: xMax * sx, yMax: yMax * sy)
    }

    public var description: String { "BoundingBox(x: \(xMin)…\(xMax), y: \(yMin)…\(yMax))" }
}

/// One detector result: a box, keypoints and a score (MODELS.md §4).
///
/// Detectors produce these normalized to the input tensor; ``removingLetterbox(_:)`` makes them
/// normalized to the image and ``scaled(x:y:)`` turns them into pixels.
public struct Detection: Sendable, Hashable {
    /// The box.
    public var box: BoundingBox
    /// Keypoints in the detector's order (pose: hip centre, full-body point, shoulder centre, upper-body point).
    public var keypoints: [SIMD2<Double>]
    /// Score, 0…1 (sigmoid of the model's logit).
    public var score: Double

    public init(box: BoundingBox, keypoints: [SIMD2<Double>], score: Double) {
        self.box = box
        self.keypoints = keypoints
        self.score = score
    }

    /// Removes the letterbox (MODELS.md §6): `x' = (x − l)/(1 − l − r)`, `y' = (y − t)/(1 − t − b)` for the
    /// box corners and every keypoint, turning tensor-normalized values into image-normalized ones.
    public func removingLetterbox(_ padding: LetterboxPadding) -> Detection {
        let sx = 1 - padding.left - padding.right, sy = 1 - padding.top - padding.bottom
        func map(_ p: SIMD2<Double>) -> SIMD2<Double> { SIMD2((p.x - padding.left) / sx, (p.y - padding.top) / sy) }
        let lo = map(SIMD2(box.xMin, box.yMin)), hi = map(SIMD2(box.xMax, box.yMax))
        return Detection(
            box: BoundingBox(xMin: lo.x, yMin: lo.y, xMax: hi.x, yMax: hi.y), keypoints: keypoints.map(map), score: score)
    }

    /// The detection with x multiplied by `sx` and y by `sy` (image-normalized → pixels with `sx = W`, `sy = H`).
    public func scaled(x sx: Double, y sy: Double) -> Detection {
        Detection(box: box.scaled(x: sx, y: sy), keypoints: keypoints.map { $0 * SIMD2(sx, sy) }, score: score)
    }

    /// Maps a detection normalized to a tensor that sampled `rect` (θ = 0 or not, letterbox already
    /// included in `rect`) into the source image's pixels. For a whole-image crop this equals
    /// ``removingLetterbox(_:)`` followed by ``scaled(x:y:)``; for a tile it places the tile's detections in the image.
    ///
    /// The box is mapped through its corners; under rotation the result is the axis-aligned box of the
    /// mapped corners.
    public func mapped(fromTensorOf rect: RotatedRect) -> Detection {
        let corners = [
            SIMD2(box.xMin, box.yMin), SIMD2(box.xMax, box.yMin), SIMD2(box.xMin, box.yMax), SIMD2(box.xMax, box.yMax),
        ].map(rect.imagePoint(fromNormalized:))
        let b = BoundingBox(enclosing: corners)!
        return Detection(box: b, keypoints: keypoints.map(rect.imagePoint(fromNormalized:)), score: score)
    }
}

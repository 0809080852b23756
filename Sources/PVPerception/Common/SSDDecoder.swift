#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns an SSD detector's raw outputs into scored detections (MODELS.md §4).
///
/// Each anchor has `valuesPerAnchor` regressor values `[dx, dy, w, h, kx0, ky0, kx1, ky1, …]` (x before y,
/// linear sizes) and one score logit. With `S` the tensor side and the anchor `(ax, ay, aw, ah)`:
///
/// ```
/// cx = ax + dx/S·aw    cy = ay + dy/S·ah    bw = w/S·aw    bh = h/S·ah
/// kpt_k = (ax + kx_k/S·aw, ay + ky_k/S·ah)
/// score = sigmoid(clamp(logit, −100, 100))
/// ```
///
/// (All four detectors use fixed anchors, `aw = ah = 1`.) Detections come out normalized to the tensor,
/// in anchor order, unsorted; run ``NonMaxSuppression`` next.
///
/// ```swift
/// let decoder = SSDDecoder.pose
/// let detections = decoder.decode(regressors: out0, scores: out1)
/// ```
public struct SSDDecoder: Sendable {
    /// The anchors, from ``SSDAnchorOptions/anchors()``.
    public let anchors: [Anchor]
    /// Values per anchor in the regressor output.
    public var valuesPerAnchor: Int
    /// Keypoints per detection (stored from value 4 on, two values each).
    public var keypointCount: Int
    /// Divisors of the raw x/y/w/h values (the tensor's width and height).
    public var xScale: Double
    public var yScale: Double
    public var wScale: Double
    public var hScale: Double
    /// Keep anchors whose score is at least this.
    public var minScore: Double
    /// Logits are clamped to ±this before the sigmoid.
    public var scoreClippingThreshold: Double = 100

    public init(
        anchors: [Anchor], valuesPerAnchor: Int, keypointCount: Int, inputWidth: Int, inputHeight: Int,
        minScore: Double
    ) {
        precondition(valuesPerAnchor >= 4 + 2 * keypointCount, "\(valuesPerAnchor) values cannot hold \(keypointCount) keypoints")
        self.anchors = anchors
        self.valuesPerAnchor = valuesPerAnchor
        self.keypointCount = keypointCount
        xScale = Double(inputWidth)
        yScale = Double(inputHeight)
        wScale = Double(inputWidth)
        hScale = Double(inputHeight)
        self.minScore = minScore
    }

    /// Face detector, short range: 896 anchors, 16 values, 6 keypoints, threshold 0.5.
    public static var faceShortRange: SSDDecoder {
        preset(.faceShortRange, valuesPerAnchor: 16, keypointCount: 6)
    }
    /// Face detector, full range: 2304 anchors, 16 values, 6 keypoints, threshold 0.5 (the Python API's value;
    /// the graph says 0.6).
    public static var faceFullRange: SSDDecoder {
        preset(.faceFullRange, valuesPerAnchor: 16, keypointCount: 6)
    }
    /// Pose detector: 2254 anchors, 12 values, 4 keypoints, threshold 0.5.
    public static var pose: SSDDecoder {
        preset(.pose, valuesPerAnchor: 12, keypointCount: 4)
    }
    /// Palm detector: 2016 anchors, 18 values, 7 keypoints, threshold 0.5.
    public static var palm: SSDDecoder {
        preset(.palm, valuesPerAnchor: 18, keypointCount: 7)
    }

    /// A detector's decoder: the anchors and tensor size of `options`, threshold 0.5.
    private static func preset(_ options: SSDAnchorOptions, valuesPerAnchor: Int, keypointCount: Int) -> SSDDecoder {
        SSDDecoder(
            anchors: options.anchors(), valuesPerAnchor: valuesPerAnchor, keypointCount: keypointCount,
            inputWidth: options.inputWidth, inputHeight: options.inputHeight, minScore: 0.5)
    }

    /// Decodes every anchor scoring at least ``minScore``, dropping boxes with a negative or NaN size.
    ///
    /// - Parameters:
    ///   - regressors: `anchors.count × valuesPerAnchor` floats.
    ///   - scores: `anchors.count` logits.
    /// - Returns: detections normalized to the tensor, in anchor order.
    /// - Complexity: O(anchors); only kept anchors allocate.
    public func decode(regressors: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>) -> [Detection] {
        precondition(regressors.count >= anchors.count * valuesPerAnchor, "regressor output is too small")
        precondition(scores.count >= anchors.count, "score output is too small")
        var result: [Detection] = []
        let clip = Float(scoreClippingThreshold)
        for i in 0..<anchors.count {
            let logit = min(max(scores[i], -clip), clip)
            let score = 1 / (1 + exp(-Double(logit)))
            guard score >= minScore else { continue }
            let a = anchors[i]
            let r = regressors.baseAddress! + i * valuesPerAnchor
            let cx = Double(r[0]) / xScale * a.width + a.centerX
            let cy = Double(r[1]) / yScale * a.height + a.centerY
            let w = Double(r[2]) / wScale * a.width
            let h = Double(r[3]) / hScale * a.height
            guard w >= 0, h >= 0 else { continue }  // also drops NaN
            var keypoints: [SIMD2<Double>] = []
            keypoints.reserveCapacity(keypointCount)
            for k in 0..<keypointCount {
                keypoints.append(
                    SIMD2(
                        Double(r[4 + 2 * k]) / xScale * a.width + a.centerX,
                        Double(r[5 + 2 * k]) / yScale * a.height + a.centerY))
            }
            result.append(
                Detection(
                    box: BoundingBox(xMin: cx - w / 2, yMin: cy - h / 2, xMax: cx + w / 2, yMax: cy + h / 2),
                    keypoints: keypoints, score: score))
        }
        return result
    }
}

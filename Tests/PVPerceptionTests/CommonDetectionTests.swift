import Foundation
import PVImaging
import Testing

@testable import PVPerception

@Suite("Detection decoding, NMS and letterbox removal (MODELS.md §4–6)")
struct CommonDetectionTests {
    func box(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, score: Double, kp: [SIMD2<Double>] = []) -> Detection {
        Detection(box: BoundingBox(xMin: x0, yMin: y0, xMax: x1, yMax: y1), keypoints: kp, score: score)
    }

    @Test func decodesPoseRegressors() {
        let decoder = SSDDecoder.pose
        let n = decoder.anchors.count
        var regressors = [Float](repeating: 0, count: n * 12)
        var logits = [Float](repeating: -10, count: n)
        // Anchor 2 sits at (1.5/28, 0.5/28).
        let i = 2
        let values: [Float] = [22.4, -11.2, 44.8, 22.4, 0, 0, 2.24, 4.48, 0, 0, 0, 0]
        for k in 0..<12 { regressors[i * 12 + k] = values[k] }
        logits[i] = 2
        logits[7] = 1000  // clamped to 100: score ≈ 1; its box has zero size (kept: w, h ≥ 0)
        regressors[9 * 12 + 2] = -1  // negative width: dropped even with a high score
        logits[9] = 5
        let out = regressors.withUnsafeBufferPointer { r in
            logits.withUnsafeBufferPointer { s in decoder.decode(regressors: r, scores: s) }
        }
        #expect(out.count == 2)
        let d = out[0]
        let ax = 1.5 / 28, ay = 0.5 / 28
        let cx = ax + 0.1, cy = ay - 0.05
        #expect(abs(d.box.xMin - (cx - 0.1)) < 1e-6 && abs(d.box.xMax - (cx + 0.1)) < 1e-6)
        #expect(abs(d.box.yMin - (cy - 0.05)) < 1e-6 && abs(d.box.yMax - (cy + 0.05)) < 1e-6)
        #expect(abs(d.keypoints[0].x - ax) < 1e-9 && abs(d.keypoints[1].x - (ax + 0.01)) < 1e-6)
        #expect(abs(d.keypoints[1].y - (ay + 0.02)) < 1e-6)
        #expect(d.keypoints.count == 4)
        #expect(abs(d.score - 1 / (1 + exp(-2.0))) < 1e-9)
        #expect(abs(out[1].score - 1) < 1e-12)
    }

    @Test func weightedNMSAveragesClusters() {
        let a = box(0, 0, 10, 10, score: 0.9, kp: [SIMD2(1, 1)])
        let b = box(1, 1, 11, 11, score: 0.6, kp: [SIMD2(3, 3)])  // IoU with a = 81/119 ≈ 0.68
        let c = box(50, 50, 60, 60, score: 0.8, kp: [SIMD2(55, 55)])
        let d = box(7, 7, 17, 17, score: 0.7, kp: [SIMD2(9, 9)])  // IoU with a = 9/191: its own cluster
        let out = NonMaxSuppression.weighted([b, c, d, a], iouThreshold: 0.3)
        #expect(out.count == 3)
        #expect(out.map(\.score) == [0.9, 0.8, 0.7], "descending, each with its top's score")
        let m = out[0]
        #expect(abs(m.box.xMin - 0.6 / 1.5) < 1e-12 && abs(m.box.xMax - (9 + 6.6) / 1.5) < 1e-12)
        #expect(abs(m.keypoints[0].x - (0.9 + 1.8) / 1.5) < 1e-12)
        #expect(out[1] == c && out[2] == d)
    }

    @Test func nmsThresholdIsStrict() {
        // IoU exactly 1/3 (intersection 5×10 over union 150): not merged at 1/3, merged below.
        let a = box(0, 0, 10, 10, score: 0.9), b = box(5, 0, 15, 10, score: 0.8)
        #expect(abs(a.box.intersectionOverUnion(with: b.box) - 1.0 / 3) < 1e-12)
        #expect(NonMaxSuppression.weighted([a, b], iouThreshold: 1.0 / 3).count == 2)
        #expect(NonMaxSuppression.weighted([a, b], iouThreshold: 0.3).count == 1)
        #expect(NonMaxSuppression.standard([a, b], iouThreshold: 0.3) == [a])
        #expect(NonMaxSuppression.weighted([], iouThreshold: 0.3).isEmpty)
    }

    @Test func iouIsZeroForDisjointOrEmptyBoxes() {
        let a = BoundingBox(xMin: 0, yMin: 0, xMax: 1, yMax: 1)
        #expect(a.intersectionOverUnion(with: BoundingBox(xMin: 1, yMin: 0, xMax: 2, yMax: 1)) == 0)
        #expect(a.intersectionOverUnion(with: BoundingBox(xMin: 0.5, yMin: 0.5, xMax: 0.5, yMax: 0.5)) == 0)
        #expect(a.intersectionOverUnion(with: a) == 1)
    }

    @Test func letterboxRemovalMatchesCropMapping() {
        // A 640×480 image letterboxed into a square tensor: vertical padding (1 − 0.75)/2 = 0.125.
        let rect = RotatedRect(centerX: 320, centerY: 240, width: 640, height: 480)
        let (sampled, padding) = rect.letterboxed(toAspectOf: 224, 224)
        #expect(abs(padding.top - 0.125) < 1e-12 && padding.left == 0)
        let d = box(0.25, 0.125, 0.75, 0.5, score: 0.7, kp: [SIMD2(0.5, 0.875), SIMD2(0, 0.3)])
        let unboxed = d.removingLetterbox(padding)
        #expect(abs(unboxed.box.yMin) < 1e-12 && abs(unboxed.box.yMax - 0.5) < 1e-12)
        #expect(abs(unboxed.keypoints[0].y - 1) < 1e-12 && unboxed.box.xMin == 0.25)
        let px = unboxed.scaled(x: 640, y: 480)
        let mapped = d.mapped(fromTensorOf: sampled)
        #expect(abs(px.box.xMin - mapped.box.xMin) < 1e-9 && abs(px.box.yMax - mapped.box.yMax) < 1e-9)
        for (p, q) in zip(px.keypoints, mapped.keypoints) { #expect(abs(p.x - q.x) < 1e-9 && abs(p.y - q.y) < 1e-9) }
    }
}

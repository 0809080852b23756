import Foundation
import PVImaging
import PVTestSupport
import Testing

@testable import PVPerception

@Suite("Landmark decoding, projection and heatmap refinement (MODELS.md §8)")
struct CommonLandmarkTests {
    @Test func decodesFlatOutput() {
        let values: [Float] = [128, 64, 25.6, 0, 2, 256, 0, -51.2, -3, 100]
        let decoder = LandmarkDecoder(count: 2, valuesPerLandmark: 5, tensorWidth: 256, tensorHeight: 128, activation: .sigmoid)
        let l = values.withUnsafeBufferPointer { decoder.decode($0) }
        #expect(l[0].x == 0.5 && l[0].y == 0.5 && abs(l[0].z - 0.1) < 1e-7)
        #expect(l[0].visibility == 0.5 && abs(l[0].presence! - 1 / (1 + exp(-2))) < 1e-12)
        #expect(l[1].x == 1 && abs(l[1].z + 0.2) < 1e-7 && abs(l[1].visibility! - 1 / (1 + exp(3))) < 1e-12)
        // Hands: z/tw/0.4; iris' flipped eye: tw − x.
        let hand = LandmarkDecoder(count: 1, valuesPerLandmark: 3, tensorWidth: 224, tensorHeight: 224, zNormalizer: 0.4)
        let h = [Float(56), 0, 22.4].withUnsafeBufferPointer { hand.decode($0) }
        #expect(abs(h[0].z - 0.25) < 1e-7 && h[0].visibility == nil && h[0].presence == nil)
        let iris = LandmarkDecoder(count: 1, valuesPerLandmark: 3, tensorWidth: 64, tensorHeight: 64, flipHorizontally: true)
        #expect([Float(16), 8, 0].withUnsafeBufferPointer { iris.decode($0) }[0].x == 0.75)
    }

    @Test func letterboxRemoval() {
        let p = LetterboxPadding(left: 0.1, top: 0.25, right: 0.1, bottom: 0.25)
        let l = Landmark(x: 0.1, y: 0.75, z: 0.4).removingLetterbox(p)
        #expect(abs(l.x) < 1e-12 && abs(l.y - 1) < 1e-12 && abs(l.z - 0.5) < 1e-12)
    }

    /// §8.3 for a square ROI (rotation in normalized ROI space, as the spec states it) equals our pixel-space
    /// projection, on a non-square image; and ``RotatedRect/normalizedPoint(fromImage:)`` inverts it.
    @Test func projectionMatchesSpecAndRoundTrips() {
        let W = 640.0, H = 480.0
        let roi = RotatedRect(centerX: 300, centerY: 200, width: 150, height: 150, angle: 0.7)
        let n = NormalizedRect(roi, imageWidth: Int(W), imageHeight: Int(H))
        var rng = SplitMix64(seed: 7)
        for _ in 0..<100 {
            let x = Double(rng.nextFloat(min: -0.2, max: 1.2)), y = Double(rng.nextFloat(min: -0.2, max: 1.2))
            let z = Double(rng.nextFloat(min: -1, max: 1))
            let p = Landmark(x: x, y: y, z: z).projected(onto: roi)
            let dx = x - 0.5, dy = y - 0.5
            let X = n.xCenter + (cos(n.rotation) * dx - sin(n.rotation) * dy) * n.width
            let Y = n.yCenter + (sin(n.rotation) * dx + cos(n.rotation) * dy) * n.height
            #expect(abs(p.x - X * W) < 1e-9 && abs(p.y - Y * H) < 1e-9)
            #expect(abs(p.z - z * n.width * W) < 1e-9, "z scaled like x, in pixels")
            let back = roi.normalizedPoint(fromImage: p.position)
            #expect(abs(back.x - x) < 1e-12 && abs(back.y - y) < 1e-12)
        }
        // Non-square ROI: still an exact round trip (rotation in pixel space).
        let wide = RotatedRect(centerX: 10, centerY: 20, width: 300, height: 100, angle: -2)
        let q = wide.imagePoint(fromNormalized: SIMD2(0.9, 0.1))
        let r = wide.normalizedPoint(fromImage: q)
        #expect(abs(r.x - 0.9) < 1e-12 && abs(r.y - 0.1) < 1e-12)
        // The rect's top-left corner is normalized (0, 0).
        #expect(abs(wide.corners[0].x - q.x) > 1 && wide.boundingBox.width > 0)
    }

    @Test func worldRotation() {
        let w = Landmark(x: 1, y: 0, z: 0.3, visibility: 0.9).rotated(by: .pi / 2)
        #expect(abs(w.x) < 1e-12 && abs(w.y - 1) < 1e-12 && w.z == 0.3 && w.visibility == 0.9)
    }

    /// A heatmap whose channel 0 has logit +4 at two cells and −20 elsewhere; channel 1 is unconfident.
    func heatmap(width: Int = 64, channels: Int = 2, hot: [(row: Int, col: Int)]) -> [Float] {
        var h = [Float](repeating: -20, count: width * width * channels)
        for c in hot { h[(c.row * width + c.col) * channels] = 4 }
        return h
    }

    @Test func refinementMovesToConfidenceCentroid() {
        let hm = heatmap(hot: [(20, 10), (22, 12)])
        var lms = [Landmark(x: 11.5 / 64, y: 21.2 / 64), Landmark(x: 0.5, y: 0.5)]
        let before = lms[1]
        hm.withUnsafeBufferPointer { HeatmapRefinement(kernelSize: 7).refine(&lms, heatmap: $0, width: 64, height: 64, channels: 2) }
        // Both hot cells are inside the 7×7 window around (row 21, col 11): centroid (11, 21) up to the
        // tiny weight of the cold cells.
        #expect(abs(lms[0].x * 64 - 11) < 1e-3 && abs(lms[0].y * 64 - 21) < 1e-3)
        #expect(lms[1] == before, "max confidence < 0.5: unchanged")
    }

    @Test func kernelSizeDecidesTheWindow() {
        // Hot cells at col 10 and col 15, landmark at col 11: a 7-window (8…14) sees one, a 9-window (7…15) both.
        let hm = heatmap(hot: [(30, 10), (30, 15)])
        func refined(_ kernel: Int) -> Double {
            var lms = [Landmark(x: 11.2 / 64, y: 30.5 / 64), Landmark(x: 0, y: 0)]
            hm.withUnsafeBufferPointer { HeatmapRefinement(kernelSize: kernel).refine(&lms, heatmap: $0, width: 64, height: 64, channels: 2) }
            return lms[0].x * 64
        }
        #expect(abs(refined(7) - 10) < 1e-2)
        #expect(abs(refined(9) - 12.5) < 1e-2)
    }

    @Test func refinementSkipsOutsideButFollowsMediaPipeAtTheBottomEdge() {
        let hm = heatmap(hot: [(63, 40), (0, 0)])
        var lms = [Landmark(x: 40.5 / 64, y: 65.5 / 64), Landmark(x: -0.1, y: 0.01)]
        hm.withUnsafeBufferPointer { HeatmapRefinement().refine(&lms, heatmap: $0, width: 64, height: 64, channels: 2) }
        // Row 65 is past the map, but MediaPipe never checks the row's upper bound: rows 62…63 are used.
        #expect(abs(lms[0].y * 64 - 63) < 1e-3 && abs(lms[0].x * 64 - 40) < 1e-3)
        #expect(lms[1].x == -0.1, "col < 0: skipped")
        // Far below, the clipped window is empty: unchanged.
        var far = [Landmark(x: 0.5, y: 2)]
        hm.withUnsafeBufferPointer { HeatmapRefinement().refine(&far, heatmap: $0, width: 64, height: 64, channels: 2) }
        #expect(far[0].y == 2)
    }
}

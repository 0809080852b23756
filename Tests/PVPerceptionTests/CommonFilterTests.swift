import Foundation
import PVImaging
import Testing

@testable import PVPerception

@Suite("One-euro filter, mask smoothing and mask warp (MODELS.md §10, §11.7)")
struct CommonFilterTests {
    static let frame: Int64 = 33_333_333

    @Test func oneEuroFirstSamplePassesAndStillSignalStays() {
        var f = OneEuroFilter.poseLandmarks
        #expect(f.filter(100, timestamp: Self.frame, valueScale: 0.01) == 100)
        for k in 2...10 { #expect(abs(f.filter(100, timestamp: Int64(k) * Self.frame, valueScale: 0.01) - 100) < 1e-9) }
        #expect(abs(f.frequency - 30) < 1e-6)
    }

    /// Hand-computed second step at 30 Hz: d = (110 − 100)·1·30 = 300; α(dcut 1) = 1/(1 + 30/2π) = 0.173209;
    /// ed = 51.963; cutoff = 0.01 + 10·51.963 = 519.64; α = 1/(1 + 30/(2π·519.64)) = 0.990894; out = 109.909.
    @Test func oneEuroStepResponse() {
        var f = OneEuroFilter(minCutoff: 0.01, beta: 10, derivativeCutoff: 1)
        _ = f.filter(100, timestamp: Self.frame)
        let out = f.filter(110, timestamp: 2 * Self.frame)
        let a1 = 1 / (1 + 30 / (2 * Double.pi))
        let ed = a1 * 300
        let a = 1 / (1 + 30 / (2 * Double.pi * (0.01 + 10 * ed)))
        #expect(abs(out - (a * 110 + (1 - a) * 100)) < 1e-6)
        #expect(abs(out - 109.909) < 1e-3)
    }

    @Test func oneEuroIgnoresOldTimestampsAndResets() {
        var f = OneEuroFilter.poseWorldLandmarks
        _ = f.filter(1, timestamp: 2 * Self.frame)
        #expect(f.filter(5, timestamp: 2 * Self.frame) == 5, "same timestamp: raw value back")
        #expect(f.filter(7, timestamp: Self.frame) == 7, "older timestamp: raw value back")
        // A slow timestamp step changes the frequency estimate.
        _ = f.filter(1, timestamp: 2 * Self.frame + 100_000_000)
        #expect(abs(f.frequency - 10) < 1e-6)
        f.reset()
        #expect(f.filter(42, timestamp: 1) == 42 && f.frequency == 30)
    }

    @Test func visibilitySmoothing() {
        var v = VisibilitySmoothing()
        #expect(v.filter(1) == 1)
        #expect(abs(v.filter(0) - 0.9) < 1e-12)
    }

    @Test func objectScale() {
        #expect(OneEuroFilter.objectScale(of: [SIMD2(0, 0), SIMD2(10, 30)]) == 20)
        #expect(OneEuroFilter.objectScale(of: []) == 0)
    }

    @Test func segmentationSmoothing() {
        #expect(abs(SegmentationSmoothing.uncertainty(0.5) - 1) < 1e-6)
        #expect(SegmentationSmoothing.uncertainty(0) < 1e-3 && SegmentationSmoothing.uncertainty(1) < 1e-3)
        var mask: [Float] = [0.5, 0.0, 1.0, 0.6]
        let previous: [Float] = [1.0, 1.0, 0.0, 0.0]
        let original = mask
        mask.withUnsafeMutableBufferPointer { m in
            previous.withUnsafeBufferPointer { SegmentationSmoothing.smooth(m, previous: $0, ratio: 0) }
        }
        #expect(mask == original, "ratio 0: no smoothing (MediaPipe's Python pose)")
        mask.withUnsafeMutableBufferPointer { m in
            previous.withUnsafeBufferPointer { SegmentationSmoothing.smooth(m, previous: $0, ratio: 0.7) }
        }
        #expect(abs(mask[0] - 0.85) < 1e-6, "uncertain pixel: 0.5 + 0.5·1·0.7")
        #expect(abs(mask[1]) < 1e-3 && abs(mask[2] - 1) < 1e-3, "confident pixels keep their value")
        let u = SegmentationSmoothing.uncertainty(0.6)
        #expect(abs(mask[3] - (0.6 - 0.6 * u * 0.7)) < 1e-6)
    }

    /// A crop equal to the whole (square) image maps mask cells one to one; a half-turn flips it; outside is 0.
    @Test func maskWarp() throws {
        let n = 8
        let mask = (0..<(n * n)).map { Float($0) / Float(n * n) }
        func warp(_ crop: RotatedRect, size: Int) throws -> [Float] {
            var out = try PixelBuffer(width: size, height: size, format: .oneComponent32Float)
            mask.withUnsafeBufferPointer {
                ROIMaskWarp.warp(mask: $0, maskWidth: n, maskHeight: n, crop: crop, imageWidth: n, imageHeight: n, into: &out)
            }
            let stride = out.bytesPerRow() / 4
            return out.withUnsafeBytes { b in
                let f = b.bindMemory(to: Float.self)
                return (0..<(size * size)).map { f[($0 / size) * stride + $0 % size] }
            }
        }
        let identity = try warp(RotatedRect(centerX: 4, centerY: 4, width: 8, height: 8), size: n)
        #expect(zip(identity, mask).allSatisfy { abs($0 - $1) < 1e-6 })
        // Half turn about the centre: image pixel (x, y) reads mask cell (8 − x, 8 − y); cell 8 is outside (0),
        // so pixel (0, 0) interpolates nothing but zeros and pixel (1, 1) reads cell (7, 7).
        let turned = try warp(RotatedRect(centerX: 4, centerY: 4, width: 8, height: 8, angle: .pi), size: n)
        #expect(abs(turned[0]) < 1e-6)
        #expect(abs(turned[1 * n + 1] - mask[7 * n + 7]) < 1e-5)
        #expect(abs(turned[3 * n + 2] - mask[5 * n + 6]) < 1e-5)
        // A small crop in the middle: the image corners are outside it.
        let small = try warp(RotatedRect(centerX: 4, centerY: 4, width: 2, height: 2), size: n)
        #expect(small[0] == 0 && small[n * n - 1] == 0 && small[4 * n + 4] > 0)
        // A target of another size samples the same image positions: 16×16 pixel (2, 2) is image (1, 1).
        let big = try warp(RotatedRect(centerX: 4, centerY: 4, width: 8, height: 8), size: 16)
        #expect(abs(big[2 * 16 + 2] - mask[1 * n + 1]) < 1e-6)
    }
}

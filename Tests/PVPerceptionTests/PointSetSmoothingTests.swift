import Foundation
import Testing

@testable import PVPerception

/// Hand and face landmark sets over frames: jitter around a still position drops at least twice, a step is followed
/// within two frames, sets are followed by their boxes and kinds, and the first frame passes through.
@Suite struct PointSetSmoothingTests {
    /// A 21-point "hand" around (cx, cy), 100 px across, each point moved by up to ±`jitter` px by `seed`.
    static func hand(cx: Double, cy: Double, jitter: Double, seed: inout UInt64) -> [Landmark] {
        (0..<21).map { k in
            func noise() -> Double {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return (Double(seed >> 11) / Double(1 << 53) * 2 - 1) * jitter
            }
            let angle = Double(k) * 2 * .pi / 21
            return Landmark(x: cx + 50 * cos(angle) + noise(), y: cy + 50 * sin(angle) + noise(), z: noise())
        }
    }

    static func movement(_ a: [Landmark], _ b: [Landmark]) -> Double {
        zip(a, b).map { hypot($0.x - $1.x, $0.y - $1.y) }.reduce(0, +) / Double(a.count)
    }

    @Test func jitterDropsAndStepsAreFollowed() {
        var smoother = PointSetSmoothing()
        var seed: UInt64 = 7
        var raw: [[Landmark]] = [], smooth: [[Landmark]] = []
        for t in 0..<30 {
            // Still for 20 frames at 30 fps, then a 40-px step to the right.
            let frame = Self.hand(cx: t < 20 ? 200 : 240, cy: 150, jitter: 1.5, seed: &seed)
            raw.append(frame)
            smooth.append(smoother.smooth([frame], timestamp: Int64(t + 1) * 33_333_333)[0])
        }
        #expect(smooth[0] == raw[0])
        func jitter(_ sets: [[Landmark]]) -> Double { (5..<20).map { Self.movement(sets[$0], sets[$0 - 1]) }.reduce(0, +) / 15 }
        #expect(jitter(smooth) * 2 <= jitter(raw), "smoothed \(jitter(smooth)) px, raw \(jitter(raw)) px a frame")
        // Two frames after the step the smoothed centre is within 3 px of the new position.
        for t in 22..<30 {
            let cx = smooth[t].map(\.x).reduce(0, +) / 21
            #expect(abs(cx - 240) < 3, "frame \(t): centre at \(cx)")
        }
    }

    @Test func setsAreFollowedByBoxAndKind() {
        var smoother = PointSetSmoothing()
        var seed: UInt64 = 11
        let left = Self.hand(cx: 100, cy: 100, jitter: 0, seed: &seed), right = Self.hand(cx: 300, cy: 100, jitter: 0, seed: &seed)
        _ = smoother.smooth([left, right], kinds: [0, 1], timestamp: 33_333_333)
        // The same hands, listed the other way round and moved by 2 px: each follows its own track (a small move is
        // smoothed, so it lags), not the other hand's.
        let moved = { (h: [Landmark]) in h.map { Landmark(x: $0.x + 2, y: $0.y, z: $0.z) } }
        let out = smoother.smooth([moved(right), moved(left)], kinds: [1, 0], timestamp: 66_666_666)
        #expect(abs(out[0][0].x - right[0].x) < 2 && abs(out[1][0].x - left[0].x) < 2)
        // A hand of the other kind at the same place starts afresh: it passes through.
        let swapped = smoother.smooth([moved(moved(left))], kinds: [1], timestamp: 99_999_999)
        #expect(swapped[0] == moved(moved(left)))
    }
}

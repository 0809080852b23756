import Foundation
import PVImaging
import Testing

@testable import PVPerception

/// When a tracked sequence runs the detectors and when it follows the previous frame's people.
@Suite struct PoseTrackingTests {
    static func frame(grey: UInt8, width: Int = 320, height: Int = 180) throws -> PixelBuffer {
        var image = try PixelBuffer(width: width, height: height, format: .rgba32)
        image.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: grey) }
        return image
    }

    /// A standing person: hips at (160, 120), the full-body point 80 px above.
    static let person = PersonPose(
        landmarks: (0..<33).map { Landmark(x: 150 + Double($0 % 3) * 10, y: 40 + Double($0) * 4) }, worldLandmarks: [],
        auxiliaryLandmarks: [Landmark(x: 160, y: 120), Landmark(x: 160, y: 40)],
        roi: RotatedRect(centerX: 0, centerY: 0, width: 1, height: 1), detectionScore: 0.9, presence: 0.99, segmentation: nil)

    /// With ``PoseTracking/smoothsROIs``, a still person whose auxiliary landmarks jitter by ±4 px gets ROIs that
    /// move less than half as much from frame to frame as without (measured 2.8 px against 8); a person who moves is
    /// followed.
    @Test func smoothedAuxiliaryLandmarksSteadyTheROI() throws {
        let image = try Self.frame(grey: 100)
        func centres(smoothing: Bool, shift: (Int) -> Double) -> [SIMD2<Double>] {
            var tracking = PoseTracking()
            tracking.smoothsROIs = smoothing
            tracking.redetectionInterval = 1000
            var out: [SIMD2<Double>] = []
            for frame in 0..<31 {
                // The plan for this frame comes from the people recorded on the one before.
                let plan = tracking.plan(for: image)
                if frame > 0 {
                    guard case .track(let rois) = plan, let roi = rois.first else { return [] }
                    out.append(SIMD2(roi.centerX, roi.centerY))
                }
                var person = Self.person
                let jitter = frame % 2 == 0 ? 4.0 : -4.0, dx = shift(frame)
                person.auxiliaryLandmarks[0].x += jitter + dx
                person.auxiliaryLandmarks[1].x -= jitter - dx
                tracking.record([person], detected: plan == .detect, timestamp: Int64(frame + 1) * 33_333_333)
            }
            return out
        }
        func movement(_ c: [SIMD2<Double>]) -> Double {
            zip(c.dropFirst(11), c.dropFirst(10)).map { a, b in ((a - b) * (a - b)).sum().squareRoot() }.reduce(0, +) / Double(c.count - 11)
        }
        let raw = centres(smoothing: false) { _ in 0 }, smooth = centres(smoothing: true) { _ in 0 }
        try #require(raw.count == 30 && smooth.count == 30)
        #expect(movement(raw) > 3 && movement(smooth) < 0.5 * movement(raw), "\(movement(smooth)) px against \(movement(raw)) px")
        // Walking right at 3 px a frame: the smoothed ROI follows, lagging by a few pixels at most.
        let walked = centres(smoothing: true) { Double($0) * 3 }
        let truth = centres(smoothing: false) { Double($0) * 3 }
        #expect(abs(walked[29].x - truth[29].x) < 15, "\(walked[29]) against \(truth[29])")
    }

    @Test func detectsFirstThenFollowsThenDetectsOnCadence() throws {
        var tracking = PoseTracking()
        tracking.redetectionInterval = 5
        let image = try Self.frame(grey: 100)
        #expect(tracking.plan(for: image) == .detect)
        tracking.record([Self.person], detected: true)
        var plans: [PoseTracking.Plan] = []
        for _ in 0..<6 {
            let plan = tracking.plan(for: image)
            plans.append(plan)
            tracking.record([Self.person], detected: plan == .detect)
        }
        // Frames 2–5 follow (four frames after the detection), frame 6 detects again, frame 7 follows.
        #expect(plans.map { $0 == .detect } == [false, false, false, false, true, false])
        // The followed ROI is the detection's construction on the auxiliary points: centred on the hips, a square 1.25 ×
        // twice the hips-to-head distance.
        guard case .track(let rois) = plans[0], let roi = rois.first else {
            Issue.record("the second frame should follow the person")
            return
        }
        #expect(abs(roi.centerX - 160) < 1e-6 && abs(roi.centerY - 120) < 1e-6)
        #expect(abs(roi.width - 200) < 1e-6 && abs(roi.height - 200) < 1e-6)
    }

    @Test func detectsWhenNobodyIsFollowedOnSceneCutsAndSizeChanges() throws {
        var tracking = PoseTracking()
        let dark = try Self.frame(grey: 40), light = try Self.frame(grey: 200)
        _ = tracking.plan(for: dark)
        tracking.record([], detected: true)
        #expect(tracking.plan(for: dark) == .detect)  // nobody to follow
        tracking.record([Self.person], detected: true)
        #expect(tracking.plan(for: light) == .detect)  // a cut: the picture changed
        tracking.record([Self.person], detected: true)
        #expect(tracking.plan(for: try Self.frame(grey: 200, width: 640, height: 360)) == .detect)  // another size
        tracking.record([Self.person], detected: true)
        #expect(tracking.plan(for: try Self.frame(grey: 205, width: 640, height: 360)) != .detect)  // small change: follow
    }
}

import Foundation
import PVImaging
import Testing

@testable import PVPerception

@Suite("ROI construction (MODELS.md §7)")
struct CommonROITests {
    @Test func wrapAngle() {
        #expect(abs(ROI.wrapAngle(.pi) - -Double.pi) < 1e-12, "[−π, π)")
        #expect(abs(ROI.wrapAngle(3 * .pi / 2) - -Double.pi / 2) < 1e-12)
        #expect(abs(ROI.wrapAngle(-3 * .pi / 2) - Double.pi / 2) < 1e-12)
        #expect(ROI.wrapAngle(0.25) == 0.25)
    }

    @Test func rotationDirections() {
        let p0 = SIMD2(100.0, 100.0)
        // Pose/hand target 90°: p0 → p1 pointing up means no rotation.
        #expect(abs(ROI.rotation(from: p0, to: SIMD2(100, 50), targetAngle: .pi / 2)) < 1e-12)
        // Pointing right: the rect turns a quarter clockwise on screen (+π/2, y down).
        #expect(abs(ROI.rotation(from: p0, to: SIMD2(150, 100), targetAngle: .pi / 2) - .pi / 2) < 1e-12)
        // Face target 0°: eyes level, left to right.
        #expect(abs(ROI.rotation(from: p0, to: SIMD2(150, 100), targetAngle: 0)) < 1e-12)
        // Right eye lower than the left one on screen (head tilted): negative angle.
        #expect(ROI.rotation(from: p0, to: SIMD2(150, 90), targetAngle: 0) < 0)
    }

    /// Pose ROI on a 640×480 image from a detection with kp0 = (0.5, 0.5) and kp1 = (0.6, 0.3) normalized.
    /// Hand-computed in pixels: d = (64, −96), θ = π/2 − atan2(96, 64) = 0.588003 rad,
    /// side = 2·|d|·1.25 = 288.4441 px → normalized 0.450694 × 0.600925.
    /// (Taking the angle in normalized units would give π/2 − atan2(0.2, 0.1) = 0.4636: wrong.)
    @Test func poseROIOnNonSquareImage() {
        let W = 640, H = 480
        let detection = Detection(
            box: BoundingBox(xMin: 0, yMin: 0, xMax: 1, yMax: 1),
            keypoints: [SIMD2(0.5, 0.5), SIMD2(0.6, 0.3), .zero, .zero], score: 1
        ).scaled(x: Double(W), y: Double(H))
        let roi = PoseLandmarker.roi(for: detection)
        #expect(abs(roi.angle - 0.5880026035475675) < 1e-12)
        #expect(abs(roi.width - 288.44410203711914) < 1e-9 && roi.width == roi.height, "square in pixels")
        #expect(roi.centerX == 320 && roi.centerY == 240)
        let n = NormalizedRect(roi, imageWidth: W, imageHeight: H)
        #expect(abs(n.width - 0.45069390943299864) < 1e-12 && abs(n.height - 0.6009252125773316) < 1e-12)
        #expect(n.pixelRect(imageWidth: W, imageHeight: H) == roi)
    }

    /// §7.3 with rotation on a non-square image, against the spec's normalized formulas:
    /// rect at (320, 240) px, 100×200 px, θ = π/6, shift_y = −0.5, square_long, ×2.
    /// Shift in pixels: (−200·(−0.5)·sin θ, 200·(−0.5)·cos θ) = (50, −86.6025).
    @Test func transformShiftsAlongRectAxesThenSquaresThenScales() {
        let W = 640.0, H = 480.0, theta = Double.pi / 6
        let rect = RotatedRect(centerX: 320, centerY: 240, width: 100, height: 200, angle: theta)
        let t = RectTransform(scaleX: 2, scaleY: 2, shiftY: -0.5, squareLong: true)
        let r = rect.transformed(by: t)
        #expect(abs(r.centerX - 370) < 1e-9 && abs(r.centerY - (240 - 100 * cos(theta))) < 1e-9)
        #expect(r.width == 400 && r.height == 400 && r.angle == theta)

        // The spec's normalized statement of the same steps.
        var xc = 0.5, yc = 0.5
        let w = 100 / W, h = 200 / H, sx = 0.0, sy = -0.5
        xc += (W * w * sx * cos(theta) - H * h * sy * sin(theta)) / W
        yc += (W * w * sx * sin(theta) + H * h * sy * cos(theta)) / H
        let L = max(w * W, h * H)
        let n = NormalizedRect(r, imageWidth: Int(W), imageHeight: Int(H))
        #expect(abs(n.xCenter - xc) < 1e-12 && abs(n.yCenter - yc) < 1e-12)
        #expect(abs(n.width - 2 * L / W) < 1e-12 && abs(n.height - 2 * L / H) < 1e-12)
    }

    @Test func shiftWithoutRotationAndSquareLongInPixels() {
        // Normalized 0.5 × 0.5 of a 640×480 image is 320×240 px: square_long gives 320 px, i.e. 0.5 × 0.667.
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5).pixelRect(imageWidth: 640, imageHeight: 480)
        let r = rect.transformed(by: RectTransform(shiftX: 0.25, shiftY: -0.5, squareLong: true))
        let n = NormalizedRect(r, imageWidth: 640, imageHeight: 480)
        #expect(abs(n.xCenter - (0.5 + 0.5 * 0.25)) < 1e-12 && abs(n.yCenter - (0.5 - 0.5 * 0.5)) < 1e-12, "xc += w·sx, yc += h·sy")
        #expect(abs(n.width - 0.5) < 1e-12 && abs(n.height - 320.0 / 480) < 1e-12)
    }

    @Test func alignmentPointsRect() {
        let r = ROI.alignmentPointsRect(center: SIMD2(10, 20), scalePoint: SIMD2(13, 24), targetAngle: .pi / 2)
        #expect(r.centerX == 10 && r.centerY == 20 && r.width == 10 && r.height == 10)
    }

    /// A synthetic hand laid out upright (wrist at the bottom, fingers up) and turned by α about a point:
    /// the hand rect's angle is α and its size is the upright bounding box of the 12 points used.
    @Test(arguments: [0.0, 0.4, -1.2, 2.5])
    func handRectFollowsRotation(alpha: Double) {
        var upright = [SIMD2<Double>](repeating: .zero, count: 21)
        upright[0] = SIMD2(0, 0)
        for (k, base) in [1, 5, 9, 13, 17].enumerated() {
            let x = -30 + 15 * Double(k)
            for j in 0..<4 { upright[base + j] = SIMD2(x + (k == 0 ? -10 : 0), -40 - 18 * Double(j) + (k == 0 ? 25 : 0)) }
        }
        let pivot = SIMD2(300.0, 200.0)
        let c = cos(alpha), s = sin(alpha)
        let turned = upright.map { p in pivot + SIMD2(c * p.x - s * p.y, s * p.x + c * p.y) }
        // Palm point ((lm5 + lm13)/2 + lm9)/2 is straight above the wrist in the upright layout.
        let rect = ROI.handRect(landmarks: turned)
        #expect(abs(ROI.wrapAngle(rect.angle - alpha)) < 1e-9)
        let used = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18].map { upright[$0] }
        let box = BoundingBox(enclosing: used)!
        #expect(abs(rect.width - box.width) < 1e-9 && abs(rect.height - box.height) < 1e-9)
        let centre = pivot + SIMD2(c * box.center.x - s * box.center.y, s * box.center.x + c * box.center.y)
        #expect(abs(rect.centerX - centre.x) < 1e-9 && abs(rect.centerY - centre.y) < 1e-9)
    }
}

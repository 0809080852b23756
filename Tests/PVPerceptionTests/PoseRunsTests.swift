import PVImaging
import Testing

@testable import PVPerception

/// The pose runs kept per image give what running the models again would give.
@Suite("Pose runs shared per image")
struct PoseRunsTests {
    @Test("Kept detector candidates give every threshold's detections, as passes of their own do")
    func keptCandidatesServeEveryThreshold() throws {
        let landmarker = try PoseTestImages.landmarker()
        let image = try PoseTestImages.twoAstronauts()
        let runs = PoseRuns(clusterScore: 0.3)
        let tiling = PoseDetector.Tiling.grid2x2
        for minScore in [0.3, 0.5, 0.7, 0.3] {
            let kept = try landmarker.detector.detect(in: image, minScore: minScore, tiling: tiling, runs: runs)
            let own = try landmarker.detector.detect(in: image, minScore: minScore, tiling: tiling)
            #expect(kept == own, "minScore \(minScore)")
            let region = RotatedRect(centerX: 200, centerY: 150, width: 300, height: 260)
            #expect(
                try landmarker.detector.detect(in: image, region: region, minScore: minScore, runs: runs)
                    == landmarker.detector.detect(in: image, region: region, minScore: minScore))
        }
        // Below the floor, the pass is made anew and still gives its own result.
        #expect(
            try landmarker.detector.detect(in: image, minScore: 0.1, runs: runs)
                == landmarker.detector.detect(in: image, minScore: 0.1))
    }

    @Test("A kept landmark run serves landmarkers with and without masks")
    func keptLandmarkRunServesEveryMaskOption() throws {
        let image = try PoseTestImages.astronaut()
        let plain = try PoseTestImages.landmarker { $0.segmentation = .none }
        let masked = try PoseTestImages.landmarker { $0.segmentation = .roi }
        let detection = try #require(try plain.detector.detect(in: image).first)
        let roi = PoseLandmarker.roi(for: detection)
        let runs = PoseRuns(clusterScore: 0.3)
        let first = try #require(try plain.landmarks(in: image, roi: roi, runs: runs))
        let second = try #require(try masked.landmarks(in: image, roi: roi, runs: runs))
        let ownPlain = try #require(try plain.landmarks(in: image, roi: roi))
        let ownMasked = try #require(try masked.landmarks(in: image, roi: roi))
        #expect(first.segmentation == nil && second.segmentation != nil)
        #expect(first.landmarks.map(\.position) == ownPlain.landmarks.map(\.position))
        #expect(second.landmarks.map(\.position) == ownMasked.landmarks.map(\.position))
        #expect(second.segmentation?.roiMask == ownMasked.segmentation?.roiMask)
    }

    @Test("A ROI close to a steady ROI runs on it; one further off, turned or resized runs as it is")
    func steadyROIsTakeOnlyCloseRuns() {
        let runs = PoseRuns(clusterScore: 0.3)
        let steady = RotatedRect(centerX: 200, centerY: 150, width: 240, height: 240, angle: 0.05)
        let other = RotatedRect(centerX: 520, centerY: 150, width: 120, height: 120)
        let close = RotatedRect(centerX: 212, centerY: 141, width: 250, height: 250, angle: 0.1)
        #expect(runs.steadied(close) == close, "nothing is steadied before steady(toward:)")
        runs.steady(toward: [other, steady])
        #expect(runs.steadied(close) == steady)
        #expect(runs.steadied(RotatedRect(centerX: 516, centerY: 158, width: 112, height: 112)) == other)
        let moved = RotatedRect(centerX: 230, centerY: 150, width: 240, height: 240, angle: 0.05)
        let grown = RotatedRect(centerX: 200, centerY: 150, width: 270, height: 270, angle: 0.05)
        let turned = RotatedRect(centerX: 200, centerY: 150, width: 240, height: 240, angle: 0.3)
        for roi in [moved, grown, turned] { #expect(runs.steadied(roi) == roi, "\(roi)") }
        // Angles are compared around the circle.
        let wrapped = RotatedRect(centerX: 200, centerY: 150, width: 240, height: 240, angle: 0.05 - 2 * .pi)
        #expect(runs.steadied(wrapped) == steady)
    }
}

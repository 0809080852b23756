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
}

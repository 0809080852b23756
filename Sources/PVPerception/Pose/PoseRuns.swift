import PVCore
import PVImaging

/// The pose models' runs on one image, kept so that every pipeline asking for a run already made gets its result:
/// the detector's candidates per region (the whole image, a tile) and the landmark model's result per ROI. The body
/// requests' search and the accurate person mask's pose pass ask for different people (detection thresholds 0.3
/// and 0.5, different budgets), but the same person seen through the same ROI is one landmark run, and one detector
/// pass over a region serves every threshold.
///
/// Owned by the image's analysis (``ImageAnalysis``); pipelines that run without one pass `nil` and run every model.
package final class PoseRuns: Sendable {
    /// Candidates are decoded and kept from this score up; a pass asking for less runs the model itself.
    static let scoreFloor = 0.2

    /// What a landmark run's result depends on besides the image.
    struct LandmarkKey: Hashable {
        var roi: RotatedRect
        var heatmapKernelSize: Int
        var minPresence: Double
    }

    private struct State {
        var candidates: [RotatedRect: (detections: [Detection], padding: LetterboxPadding)] = [:]
        /// `.some(nil)`: the run found no person there.
        var landmarks: [LandmarkKey: PersonPose?] = [:]
        /// ROIs a landmark run close to them takes instead of its own (``steady(toward:)``).
        var steadyROIs: [RotatedRect] = []
    }

    private let state = Locked(State())

    /// The lowest detection threshold of the pipelines sharing these runs. A pipeline asking for surer people clusters
    /// the detector's candidates from this score up and keeps the detections at its own threshold (the same people:
    /// the clusters' top candidates), so that its people have the same ROIs, hence the same landmark runs, as the
    /// other pipeline's.
    package let clusterScore: Double

    package init(clusterScore: Double) {
        self.clusterScore = clusterScore
    }

    /// The detector's candidates over `rect` (normalized to the tensor) scoring at least `minScore`, in the model's
    /// anchor order, as a pass decoding at `minScore` gives them. `pass(floor)` runs the model, decoding from `floor`.
    func candidates(
        over rect: RotatedRect, minScore: Double, pass: (Double) throws -> ([Detection], LetterboxPadding)
    ) rethrows -> ([Detection], LetterboxPadding) {
        guard minScore >= Self.scoreFloor else { return try pass(minScore) }
        let made: (detections: [Detection], padding: LetterboxPadding)
        if let known = state.withLock({ $0.candidates[rect] }) {
            made = known
        } else {
            made = try pass(Self.scoreFloor)
            state.withLock { $0.candidates[rect] = made }
        }
        return (made.detections.filter { $0.score >= minScore }, made.padding)
    }

    /// Makes every landmark run whose ROI is within a small margin of one of `rois` run on that ROI instead: a
    /// sequence's ROIs of the people it follows, made from their smoothed landmarks, so that the crop the landmark
    /// model sees holds still while the person does even on frames where the detector placed it. A ROI further off
    /// (the person moved, or someone else) runs as it is. Set before the image's first landmark run.
    package func steady(toward rois: [RotatedRect]) {
        state.withLock { $0.steadyROIs = rois }
    }

    /// The most a ROI's centre may be from a steady ROI's, as a share of that ROI's side, for it to take the steady
    /// one; its side and angle must be as close (a share of the side, radians).
    static let steadyMargin = 0.1

    /// `roi`, or the steady ROI (``steady(toward:)``) it is within the margin of (the nearest, when several).
    func steadied(_ roi: RotatedRect) -> RotatedRect {
        let steady = state.withLock { $0.steadyROIs }
        let m = Self.steadyMargin
        return steady.filter { s in
            let side = max(s.width, s.height)
            return side > 0 && (roi.centerX - s.centerX).magnitude <= m * side && (roi.centerY - s.centerY).magnitude <= m * side
                && (max(roi.width, roi.height) / side - 1).magnitude <= m
                && ROI.wrapAngle(roi.angle - s.angle).magnitude <= 2 * m
        }.min { a, b in
            func d(_ s: RotatedRect) -> Double { (roi.centerX - s.centerX) * (roi.centerX - s.centerX) + (roi.centerY - s.centerY) * (roi.centerY - s.centerY) }
            return d(a) < d(b)
        } ?? roi
    }

    /// The landmark run for `key`, made by `run` (with the ROI mask) unless already made.
    func landmarks(_ key: LandmarkKey, run: () throws -> PersonPose?) rethrows -> PersonPose? {
        if let known = state.withLock({ $0.landmarks[key] }) { return known }
        let person = try run()
        state.withLock { $0.landmarks[key] = .some(person) }
        return person
    }
}

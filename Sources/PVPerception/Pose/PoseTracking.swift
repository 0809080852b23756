import PVImaging

/// Body-pose tracking over the frames of a sequence, as MediaPipe's pose graph tracks in video mode (MODELS.md §9):
/// while the previous frame's people are known, each person's landmark ROI comes from their auxiliary landmarks
/// (33 → 34, as a detection's keypoints give it) and the detectors do not run. The people are detected again:
/// - when a person is lost (the landmark model no longer sees someone in their ROI),
/// - every ``redetectionInterval`` frames, so that someone who walked in is found,
/// - on a scene cut (the frame's small grey thumbnail differs from the previous one by more than ``sceneCut``),
/// - on the first frame.
///
/// With ``smoothsROIs`` (MediaPipe's `smooth_landmarks`), each followed person's auxiliary landmarks are smoothed
/// over the frames with MediaPipe's auxiliary-landmark filter before they make the next ROI, so the crop the landmark
/// model sees holds still while the person does.
///
/// MediaPipe follows one person; every person found is followed here.
package struct PoseTracking: Sendable {
    /// Frames between detections while everyone is followed.
    package var redetectionInterval = 15
    /// The mean absolute difference (0…1) of two frames' thumbnails above which they are taken for different scenes.
    package static let sceneCut = 0.12

    /// What to do on a frame.
    package enum Plan: Sendable, Equatable {
        /// Run the detectors.
        case detect
        /// Run the landmark model on these ROIs (pixels), one per person followed.
        case track([RotatedRect])
    }

    /// Whether the auxiliary landmarks are smoothed before they make the next frame's ROIs.
    package var smoothsROIs = false

    /// Whether the people are followed (``Plan/track(_:)`` between detections); when not, every frame is detected.
    package var follows = true

    /// The ROIs of the people of the previous frame, from their smoothed auxiliary landmarks, when ``smoothsROIs`` and
    /// the frame ``plan(for:)`` was last asked about continues the previous one (same size, no scene cut); else none.
    /// A detected frame's landmark runs take them where the detector's ROIs fall close (``PoseRuns/steady(toward:)``).
    package private(set) var steadyROIs: [RotatedRect] = []

    /// A followed person's auxiliary-landmark filters (x and y of points 33 and 34), by landmark box.
    private struct ROITrack: Sendable {
        var box: BoundingBox
        var filters = [OneEuroFilter](repeating: .poseAuxiliaryLandmarks, count: 4)
    }

    private var people: [PersonPose] = []
    private var roiTracks: [ROITrack] = []
    private var framesSinceDetection = 0
    private var thumbnail: [Double]?
    private var size: (width: Int, height: Int)?

    package init() {}

    /// The plan for the next frame, `image`.
    package mutating func plan(for image: PixelBuffer) -> Plan {
        let small = Self.thumbnail(of: image)
        defer { thumbnail = small }
        let sameSize = size.map { $0 == (image.width, image.height) } ?? false
        size = (image.width, image.height)
        let continues = sameSize && !people.isEmpty && {
            guard let previous = thumbnail, let small else { return false }
            return zip(previous, small).map({ abs($0 - $1) }).reduce(0, +) / Double(small.count) <= Self.sceneCut
        }()
        let rois = continues ? people.map(Self.roi).filter(\.hasSampleableCentreAndSide) : []
        steadyROIs = smoothsROIs ? rois : []
        guard follows, continues, framesSinceDetection < redetectionInterval, rois.count == people.count else { return .detect }
        return .track(rois)
    }

    /// Records the people of a frame at `timestamp` (nanoseconds, increasing): `detected` when the detectors ran.
    package mutating func record(_ found: [PersonPose], detected: Bool, timestamp: Int64 = 0) {
        people = smoothsROIs ? smoothingAuxiliaryLandmarks(found, timestamp: timestamp) : found
        if !smoothsROIs { roiTracks = [] }
        framesSinceDetection = detected ? 1 : framesSinceDetection + 1
    }

    /// `found` with their auxiliary landmarks smoothed, each person continuing the track whose landmark box they
    /// overlap most (as ``PoseSmoothing`` matches people); the derivative is scaled by the two points' own extent,
    /// as MediaPipe's filter does without a scale ROI.
    private mutating func smoothingAuxiliaryLandmarks(_ found: [PersonPose], timestamp: Int64) -> [PersonPose] {
        var free = Array(roiTracks.indices), next: [ROITrack] = [], out: [PersonPose] = []
        for person in found {
            let box = person.landmarkBoundingBox
            var track = TrackMatching.claim(box, from: &free, minimumOverlap: PoseSmoothing.minimumOverlap, boxOf: { roiTracks[$0].box })
                .map { roiTracks[$0] } ?? ROITrack(box: box)
            track.box = box
            var smoothed = person
            if person.auxiliaryLandmarks.count >= 2 {
                let points = person.auxiliaryLandmarks.prefix(2).map(\.position)
                let scale = OneEuroFilter.objectScale(of: points)
                if scale > 0 {
                    for (i, p) in points.enumerated() {
                        smoothed.auxiliaryLandmarks[i].x = track.filters[2 * i].filter(p.x, timestamp: timestamp, valueScale: 1 / scale)
                        smoothed.auxiliaryLandmarks[i].y = track.filters[2 * i + 1].filter(p.y, timestamp: timestamp, valueScale: 1 / scale)
                    }
                }
            }
            next.append(track)
            out.append(smoothed)
        }
        roiTracks = next
        return out
    }

    /// A person's landmark ROI from their auxiliary landmarks (hip centre → full-body point, 90°, ×1.25, square).
    package static func roi(of person: PersonPose) -> RotatedRect {
        guard person.auxiliaryLandmarks.count >= 2 else { return person.roi }
        return ROI.alignmentPointsRect(
            center: person.auxiliaryLandmarks[0].position, scalePoint: person.auxiliaryLandmarks[1].position,
            targetAngle: .pi / 2
        ).transformed(by: .poseFromDetection)
    }

    /// A 32 × 18 grey thumbnail (0…1) by point sampling, nil for formats without 8-bit colour.
    static func thumbnail(of image: PixelBuffer) -> [Double]? {
        let bpp: Int
        switch image.format {
        case .rgba32, .bgra32, .argb32: bpp = 4
        case .rgb24: bpp = 3
        case .oneComponent8: bpp = 1
        default: return nil
        }
        let w = 32, h = 18, stride = image.bytesPerRow()
        return image.withUnsafeBytes { raw in
            (0..<(w * h)).map { k in
                let x = (k % w * 2 + 1) * image.width / (2 * w), y = (k / w * 2 + 1) * image.height / (2 * h)
                let p = y * stride + x * bpp
                if bpp == 1 { return Double(raw[p]) / 255 }
                return (Double(raw[p]) + Double(raw[p + 1]) + Double(raw[p + 2])) / 765
            }
        }
    }
}

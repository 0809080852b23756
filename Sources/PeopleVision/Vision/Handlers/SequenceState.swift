import Foundation
import PVCore
import PVPerception

/// What a sequence of frames keeps from one frame to the next for the requests performed on it: the landmark
/// smoothing of each body-pose, hand-pose and face-landmarks request (MediaPipe's video-mode filters). Owned by a ``VNSequenceRequestHandler`` or a
/// ``VNVideoProcessor``; a ``VNImageRequestHandler`` on its own has none, so a request reused on unrelated photos is
/// never smoothed across them.
final class SequenceState: @unchecked Sendable {  // mutable state guarded by `state`
    private struct Entry {
        weak var request: VNRequest?
        var smoothing = PoseSmoothing()
        var points = PointSetSmoothing()
        /// The 3-D request's skeleton height (the model's), with the time of its last frame.
        var skeletonHeight = OneEuroFilter.poseWorldLandmarks
    }

    /// The people of the previous frame (followed into the next when the sequence tracks; their smoothed ROIs steady
    /// the next frame's landmark runs when it smooths), and the frame the plan was made for.
    private struct Tracker {
        var tracking = PoseTracking()
        /// The whole-image analysis of the frame ``plan`` is for (one plan per frame, however many requests ask).
        weak var frame: ImageAnalysis?
        var plan = PoseTracking.Plan.detect
        /// Whether this frame's people were recorded.
        var recorded = false
    }

    private let state = Locked<(frames: Int64, entries: [ObjectIdentifier: Entry])>((0, [:]))
    private let tracker: Locked<Tracker> = {
        var t = Tracker()
        t.tracking.follows = false
        t.tracking.smoothsROIs = true
        return Locked(t)
    }()

    /// Whether landmarks are smoothed over the frames (when not, the `smoothed` functions return what they are given).
    var smoothsLandmarks: Bool {
        get { tracker.withLock { $0.tracking.smoothsROIs } }
        set { tracker.withLock { $0.tracking.smoothsROIs = newValue } }
    }

    /// Whether the body pipeline and the accurate person mask follow the previous frame's people instead of running
    /// the pose detector on every frame.
    var tracksPeople: Bool {
        get { tracker.withLock { $0.tracking.follows } }
        set { tracker.withLock { $0.tracking.follows = newValue } }
    }

    /// Starts the frame `analysis` is the whole-image analysis of: makes its plan, once, and gives its pose runs the
    /// previous frame's smoothed ROIs (``PoseRuns/steady(toward:)``). Called when the analysis is made, before any
    /// model runs on it. Nil when the sequence neither tracks nor smooths.
    @discardableResult
    func begin(_ analysis: ImageAnalysis) -> PoseTracking.Plan? {
        tracker.withLock { t in
            guard t.tracking.follows || t.tracking.smoothsROIs else { return nil }
            if t.frame !== analysis {
                t.frame = analysis
                t.plan = t.tracking.plan(for: analysis.image)
                t.recorded = false
                analysis.poseRuns.steady(toward: t.tracking.steadyROIs)
            }
            return t.plan
        }
    }

    /// Records the people of the frame `analysis` analyses, once per frame (the first request to find them decides).
    private func record(_ people: [PersonPose], detected: Bool, for analysis: ImageAnalysis, timestamp: Int64) {
        tracker.withLock { t in
            guard t.frame === analysis, !t.recorded else { return }
            t.recorded = true
            t.tracking.record(people, detected: detected, timestamp: timestamp)
        }
    }

    /// The body pipeline's people of a frame's whole-image analysis: followed from the previous frame when tracking
    /// (``PoseTracking``), else detected (`multiScale`: ``ImageAnalysis/people(multiScale:)``).
    func people(of analysis: ImageAnalysis, timestamp: Int64, multiScale: Bool = true) throws -> [PersonPose] {
        guard let plan = begin(analysis) else { return try analysis.people(multiScale: multiScale) }
        if case .track(let rois) = plan, let followed = try analysis.trackedPeople(rois: rois) {
            record(followed, detected: false, for: analysis, timestamp: timestamp)
            return followed
        }
        let detected = try analysis.people(multiScale: multiScale)
        record(detected, detected: true, for: analysis, timestamp: timestamp)
        return detected
    }

    /// The accurate person mask's fusion of a frame's whole-image analysis: its pose pass follows the previous frame's
    /// people when tracking (``PersonSegmenter/fuse(_:runs:following:)``), else detects them.
    func accurateFusion(of analysis: ImageAnalysis, timestamp: Int64) throws -> PersonSegmenter.Fusion {
        guard let plan = begin(analysis) else { return try analysis.accurateFusion() }
        guard case .track(let rois) = plan else {
            let fusion = try analysis.accurateFusion()
            record(fusion.people, detected: true, for: analysis, timestamp: timestamp)
            return fusion
        }
        let fusion = try analysis.accurateFusion(following: rois)
        record(fusion.people, detected: !fusion.followed, for: analysis, timestamp: timestamp)
        return fusion
    }

    /// Frames are 1/30 s apart when they carry no time (as MediaPipe's Python API stamps them).
    static let frameInterval: Int64 = 33_333_333

    /// The next frame's number (0, 1, 2…).
    func nextFrame() -> Int64 {
        state.withLock { s in
            defer { s.frames += 1 }
            return s.frames
        }
    }

    /// `people` of the frame at `timestamp` (nanoseconds), smoothed with what `request` saw on earlier frames.
    func smoothed(_ people: [PersonPose], for request: VNRequest, timestamp: Int64) -> [PersonPose] {
        guard smoothsLandmarks else { return people }
        return withEntry(of: request) { $0.smoothing.smooth(people, timestamp: timestamp) }
    }

    /// `hands` of the frame at `timestamp`, smoothed with what `request` saw on earlier frames (a hand follows a hand
    /// of the same side).
    func smoothed(_ hands: [HandPose], for request: VNRequest, timestamp: Int64) -> [HandPose] {
        guard smoothsLandmarks else { return hands }
        let sets = withEntry(of: request) {
            $0.points.smooth(hands.map(\.landmarks), kinds: hands.map { $0.side == .left ? 0 : 1 }, timestamp: timestamp)
        }
        return zip(hands, sets).map { hand, points in
            var smoothed = hand
            smoothed.landmarks = points
            return smoothed
        }
    }

    /// The model's skeleton height of the person `request` places at `timestamp`, smoothed over the frames with the
    /// world landmarks' filter: a person's proportions do not change, so the height each frame's landmarks give is a
    /// noisy reading of one value, and its noise would scale every joint.
    func smoothedSkeletonHeight(_ height: Double, for request: VNRequest, timestamp: Int64) -> Double {
        guard smoothsLandmarks else { return height }
        return withEntry(of: request) { $0.skeletonHeight.filter(height, timestamp: timestamp) }
    }

    /// Face meshes of the frame at `timestamp`, smoothed with what `request` saw on earlier frames.
    func smoothed(_ meshes: [FaceMesh], for request: VNRequest, timestamp: Int64) -> [FaceMesh] {
        guard smoothsLandmarks else { return meshes }
        let sets = withEntry(of: request) { $0.points.smooth(meshes.map(\.landmarks), timestamp: timestamp) }
        return zip(meshes, sets).map { mesh, points in
            var smoothed = mesh
            smoothed.landmarks = points
            return smoothed
        }
    }

    private func withEntry<T>(of request: VNRequest, _ body: (inout Entry) -> T) -> T {
        state.withLock { s in
            let key = ObjectIdentifier(request)
            // An entry whose request is gone belongs to an earlier object at the same address.
            var entry = s.entries[key].flatMap { $0.request === request ? $0 : nil } ?? Entry(request: request)
            let out = body(&entry)
            s.entries[key] = entry
            s.entries = s.entries.filter { $0.value.request != nil }
            return out
        }
    }
}

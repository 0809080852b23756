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
    }

    private let state = Locked<(frames: Int64, entries: [ObjectIdentifier: Entry])>((0, [:]))
    /// The people followed from frame to frame, when the sequence tracks (nil: every frame is detected).
    private let tracking = Locked<PoseTracking?>(nil)
    private let smoothing = Locked(true)

    /// Whether landmarks are smoothed over the frames (when not, the `smoothed` functions return what they are given).
    var smoothsLandmarks: Bool {
        get { smoothing.withLock { $0 } }
        set { smoothing.withLock { $0 = newValue } }
    }

    /// Whether the body pipeline follows the previous frame's people instead of running its detectors on every frame.
    var tracksPeople: Bool {
        get { tracking.withLock { $0 != nil } }
        set { tracking.withLock { $0 = newValue ? ($0 ?? PoseTracking()) : nil } }
    }

    /// The body pipeline's people of a frame's whole-image analysis: followed from the previous frame when tracking
    /// (``PoseTracking``), else detected.
    func people(of analysis: ImageAnalysis) throws -> [PersonPose] {
        guard let plan = tracking.withLock({ $0?.plan(for: analysis.image) }) else { return try analysis.people() }
        if case .track(let rois) = plan, let followed = try analysis.trackedPeople(rois: rois) {
            tracking.withLock { $0?.record(followed, detected: false) }
            return followed
        }
        let detected = try analysis.people()
        tracking.withLock { $0?.record(detected, detected: true) }
        return detected
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

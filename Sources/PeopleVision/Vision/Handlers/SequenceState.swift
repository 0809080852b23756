import Foundation
import PVPerception
import Synchronization

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

    private let state = Mutex<(frames: Int64, entries: [ObjectIdentifier: Entry])>((0, [:]))

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
        withEntry(of: request) { $0.smoothing.smooth(people, timestamp: timestamp) }
    }

    /// `hands` of the frame at `timestamp`, smoothed with what `request` saw on earlier frames (a hand follows a hand
    /// of the same side).
    func smoothed(_ hands: [HandPose], for request: VNRequest, timestamp: Int64) -> [HandPose] {
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

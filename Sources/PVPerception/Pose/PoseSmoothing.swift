import PVImaging

/// Body landmarks smoothed over the frames of a sequence, as MediaPipe's pose graph smooths them in video mode
/// (MODELS.md §10): a one-euro filter per landmark and axis, in pixels, its derivative scaled by the person's size
/// (twice the distance between the unsmoothed auxiliary landmarks 33 → 34), world landmarks with their own filter
/// in metres, visibility through a low-pass.
///
/// MediaPipe follows one person; several people are followed here, each frame's people matched to the previous
/// frame's by the overlap of their landmark boxes (IoU above ``minimumOverlap``, best first). A person with no match
/// starts afresh; a person not seen again is forgotten (MediaPipe resets its filters when a frame has no landmarks).
package struct PoseSmoothing: Sendable {
    /// The least landmark-box IoU with which a person is taken for the previous frame's.
    package static let minimumOverlap = 0.3

    private struct Track: Sendable {
        var box: BoundingBox
        var image: [OneEuroFilter]
        var world: [OneEuroFilter]
        var visibility: [VisibilitySmoothing]
    }

    private var tracks: [Track] = []

    package init() {}

    /// `people` of a frame at `timestamp` (nanoseconds, increasing), smoothed with what came before.
    package mutating func smooth(_ people: [PersonPose], timestamp: Int64) -> [PersonPose] {
        var free = Array(tracks.indices)
        var next: [Track] = []
        var out: [PersonPose] = []
        for person in people {
            let box = person.landmarkBoundingBox
            var track: Track
            if let best = TrackMatching.claim(box, from: &free, minimumOverlap: Self.minimumOverlap, boxOf: { tracks[$0].box }) {
                track = tracks[best]
            } else {
                let n = person.landmarks.count
                track = Track(
                    box: box, image: Array(repeating: .poseLandmarks, count: 3 * n),
                    world: Array(repeating: .poseWorldLandmarks, count: 3 * person.worldLandmarks.count),
                    visibility: Array(repeating: VisibilitySmoothing(), count: n))
            }
            var smoothed = person
            Self.apply(&track, to: &smoothed, timestamp: timestamp)
            track.box = smoothed.landmarkBoundingBox
            next.append(track)
            out.append(smoothed)
        }
        tracks = next
        return out
    }

    /// Forgets every person (a scene cut, a seek).
    package mutating func reset() { tracks = [] }

    private static func apply(_ track: inout Track, to person: inout PersonPose, timestamp: Int64) {
        // The scale the derivatives are divided by: the alignment rect of the unsmoothed hips → head-top points.
        var scale = 0.0
        if person.auxiliaryLandmarks.count >= 2 {
            let d = person.auxiliaryLandmarks[1].position - person.auxiliaryLandmarks[0].position
            scale = 2 * (d * d).sum().squareRoot()
        }
        if scale < 1e-6 { scale = OneEuroFilter.objectScale(of: person.landmarks.map(\.position)) }
        let valueScale = scale < 1e-6 ? 0 : 1 / scale
        for k in person.landmarks.indices where 3 * k + 2 < track.image.count {
            var l = person.landmarks[k]
            if valueScale > 0 {
                l.x = track.image[3 * k].filter(l.x, timestamp: timestamp, valueScale: valueScale)
                l.y = track.image[3 * k + 1].filter(l.y, timestamp: timestamp, valueScale: valueScale)
                l.z = track.image[3 * k + 2].filter(l.z, timestamp: timestamp, valueScale: valueScale)
            }
            if let v = l.visibility { l.visibility = track.visibility[k].filter(v) }
            person.landmarks[k] = l
        }
        for k in person.worldLandmarks.indices where 3 * k + 2 < track.world.count {
            var w = person.worldLandmarks[k]
            w.x = track.world[3 * k].filter(w.x, timestamp: timestamp)
            w.y = track.world[3 * k + 1].filter(w.y, timestamp: timestamp)
            w.z = track.world[3 * k + 2].filter(w.z, timestamp: timestamp)
            if k < person.landmarks.count { w.visibility = person.landmarks[k].visibility }
            person.worldLandmarks[k] = w
        }
    }
}

/// Landmark sets other than the body (hands, face meshes) smoothed over the frames of a sequence: a one-euro filter
/// per point and axis, in pixels, its derivative scaled by the set's size (the mean side of its landmark box), with
/// the parameters of MediaPipe's face landmarker in stream mode (MODELS.md §10.4: min cutoff 0.05, beta 80,
/// derivative cutoff 1). MediaPipe's hand graphs do not smooth; hands take the face's filter here, a choice: both are
/// rigid point sets of similar size moving at similar speeds.
///
/// Each frame's sets are matched to the previous frame's by the overlap of their landmark boxes (IoU above
/// ``minimumOverlap``, best first) and, where a set has a kind (a hand's side), only to a set of the same kind. A set
/// with no match starts afresh; one not seen again is forgotten.
package struct PointSetSmoothing: Sendable {
    /// The least landmark-box IoU with which a set is taken for the previous frame's.
    package static let minimumOverlap = 0.3
    /// The filter each point's axes start from.
    package static let filter = OneEuroFilter(minCutoff: 0.05, beta: 80, derivativeCutoff: 1)

    private struct Track: Sendable {
        var box: BoundingBox
        var kind: Int
        var filters: [OneEuroFilter]
    }

    private var tracks: [Track] = []

    package init() {}

    /// `sets` of a frame at `timestamp` (nanoseconds, increasing), each with its `kinds` entry (0 when sets have no
    /// kind), smoothed with what came before. Points are `Landmark`s in pixels; only x, y and z change.
    package mutating func smooth(_ sets: [[Landmark]], kinds: [Int]? = nil, timestamp: Int64) -> [[Landmark]] {
        var free = Array(tracks.indices)
        var next: [Track] = []
        var out: [[Landmark]] = []
        for (index, points) in sets.enumerated() {
            let kind = kinds?[index] ?? 0
            let box = Self.box(points)
            var track: Track
            if let best = TrackMatching.claim(
                box, from: &free, minimumOverlap: Self.minimumOverlap, boxOf: { tracks[$0].box },
                eligible: { tracks[$0].kind == kind && tracks[$0].filters.count == 3 * points.count })
            {
                track = tracks[best]
            } else {
                track = Track(box: box, kind: kind, filters: Array(repeating: Self.filter, count: 3 * points.count))
            }
            let size = ((box.xMax - box.xMin) + (box.yMax - box.yMin)) / 2
            var smoothed = points
            if size > 1e-6 {
                for k in smoothed.indices {
                    smoothed[k].x = track.filters[3 * k].filter(points[k].x, timestamp: timestamp, valueScale: 1 / size)
                    smoothed[k].y = track.filters[3 * k + 1].filter(points[k].y, timestamp: timestamp, valueScale: 1 / size)
                    smoothed[k].z = track.filters[3 * k + 2].filter(points[k].z, timestamp: timestamp, valueScale: 1 / size)
                }
            }
            track.box = Self.box(smoothed)
            next.append(track)
            out.append(smoothed)
        }
        tracks = next
        return out
    }

    /// Forgets every set (a scene cut, a seek).
    package mutating func reset() { tracks = [] }

    private static func box(_ points: [Landmark]) -> BoundingBox {
        guard let first = points.first else { return BoundingBox(xMin: 0, yMin: 0, xMax: 0, yMax: 0) }
        var b = BoundingBox(xMin: first.x, yMin: first.y, xMax: first.x, yMax: first.y)
        for p in points.dropFirst() {
            (b.xMin, b.yMin, b.xMax, b.yMax) = (min(b.xMin, p.x), min(b.yMin, p.y), max(b.xMax, p.x), max(b.yMax, p.y))
        }
        return b
    }
}

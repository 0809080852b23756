/// Non-max suppression of detections (MODELS.md §5).
public enum NonMaxSuppression {
    /// MediaPipe's "WEIGHTED" suppression with IoU overlap, the one all four detectors use.
    ///
    /// Candidates are sorted by score, descending. The top one, T, gathers every remaining candidate
    /// (itself included) whose IoU with T is **greater than** `iouThreshold`; the output has T's score
    /// and the score-weighted mean of the cluster's box corners and keypoints. The others go to the next
    /// round. There is no cap on the count; callers clip.
    ///
    /// Works in any unit (IoU and weighted means do not depend on the axes' scale), but all detections
    /// must share one unit and one keypoint count.
    ///
    /// - Complexity: O(n²) in the worst case, n = number of candidates.
    public static func weighted(_ detections: [Detection], iouThreshold: Double) -> [Detection] {
        var remaining = sortedByScore(detections)
        var output: [Detection] = []
        while let top = remaining.first {
            var cluster: [Detection] = [top]
            var rest: [Detection] = []
            rest.reserveCapacity(remaining.count)
            for candidate in remaining.dropFirst() {
                if candidate.box.intersectionOverUnion(with: top.box) > iouThreshold {
                    cluster.append(candidate)
                } else {
                    rest.append(candidate)
                }
            }
            output.append(weightedMean(cluster, score: top.score))
            remaining = rest
        }
        return output
    }

    /// Plain ("DEFAULT") suppression: walk the sorted list and drop a detection whose IoU with any kept
    /// one exceeds `iouThreshold`. Not used by the MediaPipe models; kept for callers merging results of
    /// different origins.
    public static func standard(_ detections: [Detection], iouThreshold: Double) -> [Detection] {
        var kept: [Detection] = []
        for d in sortedByScore(detections)
        where !kept.contains(where: { $0.box.intersectionOverUnion(with: d.box) > iouThreshold }) {
            kept.append(d)
        }
        return kept
    }

    /// Stable sort by descending score.
    private static func sortedByScore(_ detections: [Detection]) -> [Detection] {
        detections.enumerated().sorted { a, b in
            a.element.score != b.element.score ? a.element.score > b.element.score : a.offset < b.offset
        }.map(\.element)
    }

    private static func weightedMean(_ cluster: [Detection], score: Double) -> Detection {
        if cluster.count == 1 { return cluster[0] }
        let total = cluster.reduce(0) { $0 + $1.score }
        guard total > 0 else { return cluster[0] }
        var lo = SIMD2<Double>.zero, hi = SIMD2<Double>.zero
        let keypointCount = cluster[0].keypoints.count
        var keypoints = [SIMD2<Double>](repeating: .zero, count: keypointCount)
        for d in cluster {
            lo += SIMD2(d.box.xMin, d.box.yMin) * d.score
            hi += SIMD2(d.box.xMax, d.box.yMax) * d.score
            precondition(d.keypoints.count == keypointCount, "detections with different keypoint counts")
            for k in 0..<keypointCount { keypoints[k] += d.keypoints[k] * d.score }
        }
        lo /= total
        hi /= total
        return Detection(
            box: BoundingBox(xMin: lo.x, yMin: lo.y, xMax: hi.x, yMax: hi.y), keypoints: keypoints.map { $0 / total },
            score: score)
    }
}

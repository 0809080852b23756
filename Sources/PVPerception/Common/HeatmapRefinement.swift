#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Refines landmarks with a heatmap (MODELS.md §8.5): each landmark moves to the confidence-weighted
/// centroid of a `kernelSize × kernelSize` window of its heatmap channel around it.
///
/// The heatmap is H×W×C logits (HWC, C = number of landmarks); the confidence of a cell is its sigmoid.
/// Landmarks are ROI-normalized, **before** letterbox removal. For each landmark:
///
/// ```
/// col = Int(x·W), row = Int(y·H)                (truncation toward zero)
/// window = [row − half, row + half] × [col − half, col + half] clipped to the map, half = (kernel − 1)/2
/// if max(c) ≥ minConfidence and Σc > 0:  x = Σ(col·c)/Σc/W,  y = Σ(row·c)/Σc/H
/// ```
///
/// One detail follows MediaPipe's source rather than the letter of the spec: MediaPipe checks
/// `col < W` twice and never `row < H`, so a landmark whose row is just past the bottom edge (up to
/// `half` rows) is refined with the part of its window that is on the map. We do the same, so results
/// match MediaPipe's.
///
/// The pose graph files use kernel 7; MediaPipe's Python package loses that option and runs with the
/// default 9 (MODELS.md §14).
public struct HeatmapRefinement: Sendable, Hashable {
    /// Window side in cells (odd; 7 in the graphs, 9 in MediaPipe's Python package).
    public var kernelSize: Int
    /// A landmark moves only when the largest confidence in its window is at least this.
    public var minConfidence: Float

    public init(kernelSize: Int = 7, minConfidence: Float = 0.5) {
        self.kernelSize = kernelSize
        self.minConfidence = minConfidence
    }

    /// Refines `landmarks[i]` with channel `i` of `heatmap` (`height × width × channels` floats, HWC).
    ///
    /// - Complexity: O(landmarks · kernelSize²).
    public func refine(
        _ landmarks: inout [Landmark], heatmap: UnsafeBufferPointer<Float>, width: Int, height: Int, channels: Int
    ) {
        precondition(heatmap.count >= width * height * channels, "heatmap is smaller than \(height)×\(width)×\(channels)")
        precondition(landmarks.count <= channels, "more landmarks than heatmap channels")
        let half = (kernelSize - 1) / 2
        for i in landmarks.indices {
            // Float products and truncation toward zero, as MediaPipe's `int col = x * width`.
            let fx = Float(landmarks[i].x) * Float(width), fy = Float(landmarks[i].y) * Float(height)
            guard fx.isFinite, fy.isFinite, abs(fx) < 1e9, abs(fy) < 1e9 else { continue }
            let col = Int(fx), row = Int(fy)
            guard col >= 0, col < width, row >= 0 else { continue }  // no `row < height` check: see above
            let c0 = max(0, col - half), c1 = min(width, col + half + 1)
            let r0 = max(0, row - half), r1 = min(height, row + half + 1)
            guard r0 < r1, c0 < c1 else { continue }
            var sum: Float = 0, wx: Float = 0, wy: Float = 0, peak: Float = 0
            for r in r0..<r1 {
                for q in c0..<c1 {
                    let c = 1 / (1 + expf(-heatmap[(r * width + q) * channels + i]))
                    sum += c
                    peak = max(peak, c)
                    wx += Float(q) * c
                    wy += Float(r) * c
                }
            }
            if peak >= minConfidence, sum > 0 {
                landmarks[i].x = Double(wx / Float(width) / sum)
                landmarks[i].y = Double(wy / Float(height) / sum)
            }
        }
    }
}

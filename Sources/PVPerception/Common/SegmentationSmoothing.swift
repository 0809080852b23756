/// Per-pixel temporal smoothing of a soft mask (MODELS.md §10.5), on raw float buffers.
///
/// With `p` the new value and `q` the previous **smoothed** value:
///
/// ```
/// s = (p − 0.5)²
/// u = 1 − min(1, s·(5.68842 + s·(−0.748699 + s·(−57.8051 + s·(291.309 + s·(−624.717))))))
/// out = p + (q − p)·u·ratio
/// ```
///
/// `u` is about 1 near p = 0.5 and 0 for confident pixels, so only uncertain pixels lean on the past.
/// The pose and holistic graphs use ratio 0.7; MediaPipe's Python pose solution runs with 0 (MODELS.md §14).
public enum SegmentationSmoothing {
    /// The graphs' ratio.
    public static let defaultRatio: Float = 0.7

    /// The uncertainty weight `u(p)`.
    @inline(__always)
    public static func uncertainty(_ p: Float) -> Float {
        let s = (p - 0.5) * (p - 0.5)
        return 1 - min(1, s * (5.68842 + s * (-0.748699 + s * (-57.8051 + s * (291.309 + s * -624.717)))))
    }

    /// Smooths `mask` in place against `previous` (same count). Ratio 0 leaves `mask` unchanged.
    ///
    /// - Complexity: O(n).
    public static func smooth(_ mask: UnsafeMutableBufferPointer<Float>, previous: UnsafeBufferPointer<Float>, ratio: Float) {
        precondition(mask.count == previous.count, "mask and previous mask differ in size")
        guard ratio != 0 else { return }
        for i in 0..<mask.count {
            let p = mask[i]
            mask[i] = p + (previous[i] - p) * (uncertainty(p) * ratio)
        }
    }
}

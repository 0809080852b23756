/// Rounds a model input tensor to the 256 grey levels MediaPipe's inputs have (MODELS.md §2.3).
///
/// MediaPipe samples the **uint8** image, so every tensor value is `p·(max − min)/255 + min` for an
/// integer `p`; `TensorSampler` interpolates in float and keeps the fraction. MODELS.md calls the
/// difference harmless, and for faces and hands it is, but the pose landmark model is not: its heatmaps
/// for half-visible limbs are multi-modal, and the fraction alone moved the astronaut's right elbow by
/// 11 px (2 % of the image) from MediaPipe's result. Rounding the tensor the way MediaPipe's input is
/// rounded brings every visible landmark back within about 1 px.
///
/// This post-pass costs about 0.1 ms per tensor; it belongs in the sampler (an option to round
/// samples to bytes) and moves there when the sampler offers it.
enum InputQuantization {
    /// Replaces each value `t` of a tensor in `range` by the nearest `p·(max − min)/255 + min`, `p` an integer
    /// 0…255 (ties to even, as OpenCV's `saturate_cast`).
    ///
    /// - Complexity: O(n).
    static func roundToByteLevels(_ tensor: UnsafeMutableBufferPointer<Float>, range: ClosedRange<Float>) {
        let lo = range.lowerBound
        let scale = (range.upperBound - lo) / 255
        let inverse = 255 / (range.upperBound - lo)
        for i in tensor.indices {
            let p = min(max(((tensor[i] - lo) * inverse).rounded(.toNearestOrEven), 0), 255)
            tensor[i] = p * scale + lo
        }
    }
}

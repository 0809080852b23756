import PVImaging
import PVCore

/// Temporal smoothing of a person mask against the previous frame's, on pixel buffers
/// (the per-pixel rule is ``SegmentationSmoothing``, MODELS.md §10.5).
public enum TemporalMaskSmoothing {
    /// Smooths `mask` in place against `previous` (both `.oneComponent32Float`, same size).
    /// - Throws: `ImagingError.invalidArgument` for mismatched sizes or formats, or a ratio outside 0…1.
    public static func apply(to mask: inout PixelBuffer, previous: PixelBuffer, ratio: Float) throws {
        guard mask.format == .oneComponent32Float, previous.format == .oneComponent32Float,
            mask.width == previous.width, mask.height == previous.height, (0...1).contains(ratio)
        else {
            throw ImagingError(.invalidArgument, "temporal smoothing needs two float masks of one size and a ratio in 0…1")
        }
        let width = mask.width, height = mask.height
        let prevStride = previous.bytesPerRow() / 4, stride = mask.bytesPerRow() / 4
        previous.withUnsafeBytes { q in
            let q = q.bindMemory(to: Float.self)
            mask.withUnsafeMutableBytes { p in
                let p = p.bindMemory(to: Float.self)
                for y in 0..<height {
                    SegmentationSmoothing.smooth(
                        UnsafeMutableBufferPointer(rebasing: p[(y * stride)..<(y * stride + width)]),
                        previous: UnsafeBufferPointer(rebasing: q[(y * prevStride)..<(y * prevStride + width)]), ratio: ratio)
                }
            }
        }
    }
}

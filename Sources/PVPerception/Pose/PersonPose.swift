import PVImaging

/// One person found by ``PoseLandmarker``.
public struct PersonPose: Sendable {
    /// Number of body landmarks (MODELS.md §12.5: 0 nose … 32 right foot index; left/right are the subject's).
    public static let landmarkCount = 33

    /// The 33 body landmarks in **image pixels** (top-left origin, pixel-centre convention). `z` is in
    /// pixels too (same scale as x; smaller is closer, origin about the hip midpoint). Visibility and
    /// presence are probabilities 0…1.
    public var landmarks: [Landmark]
    /// The 33 landmarks in **metres**, origin at the hip midpoint, rotated to the image's axes
    /// (x right, y down). Visibility and presence are copied from ``landmarks``.
    public var worldLandmarks: [Landmark]
    /// The two auxiliary landmarks in image pixels: [0] the hip midpoint (model point 33), [1] the
    /// scale/rotation point above the head (34). A video tracker builds the next frame's ROI from them.
    public var auxiliaryLandmarks: [Landmark]
    /// The square ROI the landmark model ran on, in image pixels.
    public var roi: RotatedRect
    /// The detector's score of the detection behind ``roi``; `nil` when the ROI came from elsewhere
    /// (``PoseLandmarker/landmarks(in:roi:)``).
    public var detectionScore: Double?
    /// The landmark model's pose-presence probability.
    public var presence: Double
    /// The person's segmentation, when ``PoseLandmarker/Options/segmentation`` asks for it.
    public var segmentation: PoseSegmentationMask?

    /// Axis-aligned box of the 33 landmarks, in pixels (it may extend past the image for cut-off people).
    public var landmarkBoundingBox: BoundingBox {
        BoundingBox(enclosing: landmarks.map(\.position))!
    }
}

/// One person's soft segmentation mask (1 = this person), as the landmark model produced it for its ROI,
/// plus what it takes to place it in the image.
///
/// The model's 256×256 mask covers ``cropRect`` (rotated like the ROI); ``warped(width:height:)`` resamples it
/// onto any target covering the whole image, so a caller pays the full-size warp only for the size it needs.
public struct PoseSegmentationMask: Sendable {
    /// Probabilities 0…1 (sigmoid of the model's logits), `maskWidth × maskHeight`, row-major, in the crop's frame.
    public let roiMask: [Float]
    public let maskWidth: Int
    public let maskHeight: Int
    /// The rect the model's input was sampled from (the ROI with its letterbox expansion), in image pixels.
    public let cropRect: RotatedRect
    /// Size of the image the crop was taken from.
    public let imageWidth: Int
    public let imageHeight: Int
    /// The mask warped to the image's size (`.oneComponent32Float`), present when
    /// ``PoseLandmarker/SegmentationOutput/fullImage`` was asked for.
    public var fullImage: PixelBuffer?

    /// The mask resampled onto a `width × height` grid covering the whole image (MODELS.md §11.7): each
    /// target pixel maps through the inverse crop transform and reads the ROI mask bilinearly; 0 outside it.
    ///
    /// - Returns: a `.oneComponent32Float` buffer with values 0…1.
    /// - Throws: `ImagingError` for a size `PixelBuffer` refuses.
    /// - Complexity: O(width · height).
    public func warped(width: Int, height: Int) throws -> PixelBuffer {
        var out = try PixelBuffer(width: width, height: height, format: .oneComponent32Float)
        roiMask.withUnsafeBufferPointer { mask in
            ROIMaskWarp.warp(
                mask: mask, maskWidth: maskWidth, maskHeight: maskHeight, crop: cropRect, imageWidth: imageWidth,
                imageHeight: imageHeight, into: &out)
        }
        return out
    }
}

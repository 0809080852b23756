import PVImaging

/// One hand found by ``HandLandmarker``.
public struct HandPose: Sendable {
    /// Number of hand landmarks (MODELS.md §12.6: 0 wrist, 1–4 thumb CMC/MCP/IP/tip, 5–8 index, 9–12 middle,
    /// 13–16 ring, 17–20 little finger, each MCP/PIP/DIP/tip).
    public static let landmarkCount = 21

    /// Which hand it is, from the subject's point of view.
    public enum Side: Sendable, Hashable {
        case left
        case right
    }

    /// Where the ROI the landmarks came from was found.
    public enum Source: Sendable, Hashable {
        /// A palm detection (MODELS.md §7.4, "hand landmarks ← palm").
        case palm
        /// A body pose's wrist, index and pinky landmarks (MODELS.md §11.10, holistic's hand ROI from pose).
        case bodyWrist(Side)
    }

    /// The 21 landmarks in **image pixels** (top-left origin, pixel centres). `z` in pixels too (same scale as x,
    /// origin about the wrist, smaller is closer).
    public var landmarks: [Landmark]
    /// The 21 landmarks in **metres** about the hand's centre, rotated to the image's axes.
    public var worldLandmarks: [Landmark]
    /// The square ROI the landmark model last ran on, in pixels.
    public var roi: RotatedRect
    /// The landmark model's hand-presence probability.
    public var presence: Double
    /// The model's raw handedness output: the probability of the label MediaPipe calls "Left", which assumes a
    /// **mirrored** (selfie) image (MODELS.md §11.9). Use ``side`` for an ordinary photo.
    public var handednessScore: Double
    /// The anatomical hand on an **unmirrored** image: a score above 0.5 ("Left" for a mirrored image) is the
    /// subject's right hand here, because mirroring swaps the two.
    public var side: Side { handednessScore > 0.5 ? .right : .left }
    /// How sure the model is of ``side``: `max(p, 1 − p)`.
    public var sideConfidence: Double { max(handednessScore, 1 - handednessScore) }
    /// The palm detector's score, when the ROI came from a palm detection.
    public var detectionScore: Double?
    /// Where the ROI came from.
    public var source: Source

    /// Axis-aligned box of the 21 landmarks, in pixels.
    public var landmarkBoundingBox: BoundingBox {
        BoundingBox(enclosing: landmarks.map(\.position))!
    }

    /// The hand's size in pixels: the longer side of ``landmarkBoundingBox``.
    public var size: Double {
        let b = landmarkBoundingBox
        return max(b.width, b.height)
    }
}

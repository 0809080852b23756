/// A rectangle in source pixels, rotated about its centre.
///
/// Coordinates follow MODELS.md §0: origin top-left, y down, integer coordinates are pixel
/// centres. The rect's local x axis is `(cos θ, sin θ)` and its local y axis `(−sin θ, cos θ)`,
/// so a positive ``angle`` turns it clockwise on screen.
///
/// ```swift
/// let whole = RotatedRect(covering: image)              // detector input: the whole image
/// let face = RotatedRect(centerX: 640, centerY: 360, width: 200, height: 200, angle: 0.3)
/// ```
import PVCore
public struct RotatedRect: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Centre x in pixels.
    public var centerX: Double
    /// Centre y in pixels.
    public var centerY: Double
    /// Width in pixels, along the rect's own x axis.
    public var width: Double
    /// Height in pixels, along the rect's own y axis.
    public var height: Double
    /// Rotation in radians; positive turns clockwise on screen (y down).
    public var angle: Double

    public init(centerX: Double, centerY: Double, width: Double, height: Double, angle: Double = 0) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
        self.angle = angle
    }

    /// The whole image: centre `(W/2, H/2)`, size `W×H`, no rotation (MODELS.md §2.1).
    public init(covering image: PixelBuffer) {
        self.init(
            centerX: Double(image.width) / 2, centerY: Double(image.height) / 2,
            width: Double(image.width), height: Double(image.height))
    }

    public var description: String {
        "RotatedRect(center: (\(centerX), \(centerY)), size: \(width)×\(height), angle: \(angle))"
    }

    /// Whether a square ROI derived from model outputs can be sampled: a finite centre and a finite, positive side.
    /// (The angle is not checked; the samplers reject a non-finite one with an error.) The pipelines skip an ROI
    /// failing this instead of letting the sampler throw.
    public var hasSampleableCentreAndSide: Bool { width > 0 && width.isFinite && centerX.isFinite && centerY.isFinite }

    /// Throws unless every field is finite and both sides are positive.
    func validate(_ what: String) throws {
        guard centerX.isFinite, centerY.isFinite, angle.isFinite, width.isFinite, height.isFinite,
            width > 0, height > 0
        else {
            throw ImagingError(.invalidArgument, "\(what): rect \(self) must be finite with positive sides")
        }
    }

    /// The rect grown about its centre to the tensor's aspect ratio (MODELS.md §2.2), and the padding
    /// that growth adds, as fractions of the tensor size.
    public func letterboxed(toAspectOf tensorWidth: Int, _ tensorHeight: Int) -> (rect: RotatedRect, padding: LetterboxPadding) {
        let ta = Double(tensorHeight) / Double(tensorWidth)
        let ra = height / width
        var r = self
        if ta > ra {
            r.height = width * ta
            let pv = (1 - ra / ta) / 2
            return (r, LetterboxPadding(left: 0, top: pv, right: 0, bottom: pv))
        } else {
            r.width = height / ta
            let ph = (1 - ta / ra) / 2
            return (r, LetterboxPadding(left: ph, top: 0, right: ph, bottom: 0))
        }
    }
}

/// How a rect is fitted onto a tensor of a different aspect ratio.
public enum FitMode: Sendable, Hashable {
    /// Scale each axis independently: the rect fills the tensor, its aspect ratio is not kept.
    case stretch
    /// Keep the aspect ratio: grow the rect symmetrically to the tensor's aspect ratio and report the
    /// padding (MODELS.md §2.2).
    case letterbox
}

/// What sampling outside the image reads.
public enum BorderMode: Sendable, Hashable {
    /// RGB (0, 0, 0) before the range map, so [−1, 1] models see −1 and [0, 1] models see 0.
    case zero
    /// The nearest edge pixel.
    case replicate
}

/// Letterbox padding as fractions of the tensor's width (left, right) and height (top, bottom).
///
/// This is MediaPipe's `[left, top, right, bottom]` vector, used to remove the letterbox from
/// detections and landmarks (MODELS.md §6, §8.2). All zero for ``FitMode/stretch``.
public struct LetterboxPadding: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var left: Double
    public var top: Double
    public var right: Double
    public var bottom: Double

    public init(left: Double = 0, top: Double = 0, right: Double = 0, bottom: Double = 0) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    /// No padding.
    public static let zero = LetterboxPadding()

    /// `[left, top, right, bottom]`.
    public var array: [Double] { [left, top, right, bottom] }

    public var description: String { "LetterboxPadding(l: \(left), t: \(top), r: \(right), b: \(bottom))" }
}

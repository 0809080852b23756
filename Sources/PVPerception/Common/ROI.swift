#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PVImaging

/// Region-of-interest construction for landmark models (MODELS.md §7), in **pixels**.
///
/// Every ROI is a ``RotatedRect`` in source pixels. Rotations and `square_long` are computed in pixels,
/// which is what keeps ROIs right on non-square images (MODELS.md §14); ``NormalizedRect`` converts to
/// MediaPipe's normalized form where a comparison needs it.
///
/// ```swift
/// // Pose landmarks from a pose detection (kp0 hip centre, kp1 full-body point), MODELS.md §7.4:
/// let roi = ROI.alignmentPointsRect(center: kp0, scalePoint: kp1, targetAngle: .pi / 2)
///     .transformed(by: .poseFromDetection)
/// ```
public enum ROI {
    /// Wraps an angle into [−π, π): `a − 2π·floor((a + π)/2π)`.
    public static func wrapAngle(_ a: Double) -> Double {
        a - 2 * .pi * floor((a + .pi) / (2 * .pi))
    }

    /// The rotation that turns the `p0 → p1` vector (pixels) to `targetAngle` (MODELS.md §7.1):
    /// `wrap(target − atan2(−(y1 − y0), x1 − x0))`. Target 0 means "p0 → p1 points right", π/2 "points up".
    public static func rotation(from p0: SIMD2<Double>, to p1: SIMD2<Double>, targetAngle: Double) -> Double {
        wrapAngle(targetAngle - atan2(-(p1.y - p0.y), p1.x - p0.x))
    }

    /// Alignment-points mode (MODELS.md §7.2): centre `center`, square side `2·|scalePoint − center|`,
    /// rotated so that `center → scalePoint` points to `targetAngle`. Points in pixels.
    public static func alignmentPointsRect(
        center: SIMD2<Double>, scalePoint: SIMD2<Double>, targetAngle: Double
    ) -> RotatedRect {
        let d = scalePoint - center
        let side = 2 * (d * d).sum().squareRoot()
        return RotatedRect(
            centerX: center.x, centerY: center.y, width: side, height: side,
            angle: rotation(from: center, to: scalePoint, targetAngle: targetAngle))
    }

    /// Box mode / landmark-bbox mode (MODELS.md §7.2): the centre and size of an axis-aligned box in pixels,
    /// with the given rotation (the box itself is not rotated).
    public static func rect(box: BoundingBox, angle: Double) -> RotatedRect {
        RotatedRect(centerX: box.center.x, centerY: box.center.y, width: box.width, height: box.height, angle: angle)
    }

    /// Hand-landmarks rect (MODELS.md §7.5, before the §7.3 transform): rotation from the wrist to the palm
    /// point, size from the bounding box of 12 palm and finger points taken **in the rotated frame**.
    ///
    /// - Parameter landmarks: the 21 hand landmarks in pixels.
    /// - Returns: the rect; apply ``RectTransform/handFromLandmarks`` next.
    public static func handRect(landmarks: [SIMD2<Double>]) -> RotatedRect {
        precondition(landmarks.count >= 21, "hand rect needs the 21 hand landmarks")
        let p0 = landmarks[0]
        let p1 = ((landmarks[5] + landmarks[13]) / 2 + landmarks[9]) / 2
        let angle = rotation(from: p0, to: p1, targetAngle: .pi / 2)
        let subset = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18].map { landmarks[$0] }
        let c0 = BoundingBox(enclosing: subset)!.center
        let c = cos(angle), s = sin(angle)
        // Offsets from c0 rotated by −θ: the points in the rect's own frame.
        let local = subset.map { p -> SIMD2<Double> in
            let d = p - c0
            return SIMD2(c * d.x + s * d.y, -s * d.x + c * d.y)
        }
        let box = BoundingBox(enclosing: local)!
        let lc = box.center
        return RotatedRect(
            centerX: c0.x + c * lc.x - s * lc.y, centerY: c0.y + s * lc.x + c * lc.y, width: box.width,
            height: box.height, angle: angle)
    }
}

/// The shift, square and scale steps MediaPipe applies to a ROI (MODELS.md §7.3), in this order.
public struct RectTransform: Sendable, Hashable {
    /// Multiplies the width after squaring.
    public var scaleX: Double
    /// Multiplies the height after squaring.
    public var scaleY: Double
    /// Shift along the rect's own x axis, in units of its (original) width.
    public var shiftX: Double
    /// Shift along the rect's own y axis, in units of its (original) height; negative moves towards its "up".
    public var shiftY: Double
    /// Make the rect square with side `max(width, height)` in pixels.
    public var squareLong: Bool

    public init(scaleX: Double = 1, scaleY: Double = 1, shiftX: Double = 0, shiftY: Double = 0, squareLong: Bool = false) {
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.shiftX = shiftX
        self.shiftY = shiftY
        self.squareLong = squareLong
    }

    /// Face mesh from a face detection or from the previous mesh: ×1.5, square.
    public static let faceMesh = RectTransform(scaleX: 1.5, scaleY: 1.5, squareLong: true)
    /// Iris from the eye corners: ×2.3, square.
    public static let iris = RectTransform(scaleX: 2.3, scaleY: 2.3, squareLong: true)
    /// Pose landmarks from a detection or from the previous frame's aux landmarks: ×1.25, square.
    public static let poseFromDetection = RectTransform(scaleX: 1.25, scaleY: 1.25, squareLong: true)
    /// Hand landmarks from a palm detection: shift −0.5, ×2.6, square.
    public static let handFromPalm = RectTransform(scaleX: 2.6, scaleY: 2.6, shiftY: -0.5, squareLong: true)
    /// Hand landmarks from the previous hand: shift −0.1, ×2.0, square.
    public static let handFromLandmarks = RectTransform(scaleX: 2, scaleY: 2, shiftY: -0.1, squareLong: true)
}

extension RotatedRect {
    /// The rect after MediaPipe's ROI transformation (MODELS.md §7.3), computed in pixels: shift along
    /// the rect's own axes by the original size, then `square_long`, then scale. The angle is unchanged.
    public func transformed(by t: RectTransform) -> RotatedRect {
        var r = self
        if t.shiftX != 0 || t.shiftY != 0 {
            let c = cos(angle), s = sin(angle)
            let dx = width * t.shiftX, dy = height * t.shiftY
            r.centerX += c * dx - s * dy
            r.centerY += s * dx + c * dy
        }
        if t.squareLong {
            let side = max(r.width, r.height)
            r.width = side
            r.height = side
        }
        r.width *= t.scaleX
        r.height *= t.scaleY
        return r
    }

    /// Maps a point normalized to the rect (0…1 along its own axes, as a landmark model outputs it) into
    /// source pixels (MODELS.md §8.3, rotated in pixel space so non-square rects work too).
    public func imagePoint(fromNormalized p: SIMD2<Double>) -> SIMD2<Double> {
        let c = cos(angle), s = sin(angle)
        let dx = (p.x - 0.5) * width, dy = (p.y - 0.5) * height
        return SIMD2(centerX + c * dx - s * dy, centerY + s * dx + c * dy)
    }

    /// The inverse of ``imagePoint(fromNormalized:)``: a source pixel position in the rect's normalized frame.
    public func normalizedPoint(fromImage p: SIMD2<Double>) -> SIMD2<Double> {
        let c = cos(angle), s = sin(angle)
        let dx = p.x - centerX, dy = p.y - centerY
        return SIMD2(0.5 + (c * dx + s * dy) / width, 0.5 + (-s * dx + c * dy) / height)
    }

    /// The four corners in pixels: top-left, top-right, bottom-right, bottom-left of the rect's own frame.
    public var corners: [SIMD2<Double>] {
        [SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)].map(imagePoint(fromNormalized:))
    }

    /// The axis-aligned bounding box of the rect, in pixels.
    public var boundingBox: BoundingBox { BoundingBox(enclosing: corners)! }
}

/// A ROI in MediaPipe's normalized form (MODELS.md §0): centre and size divided by the image's width and
/// height, rotation in radians. For comparisons with MediaPipe; the pipelines use ``RotatedRect`` in pixels.
public struct NormalizedRect: Sendable, Hashable {
    public var xCenter: Double
    public var yCenter: Double
    public var width: Double
    public var height: Double
    public var rotation: Double

    public init(xCenter: Double, yCenter: Double, width: Double, height: Double, rotation: Double = 0) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// `rect` (pixels) normalized by an image of `imageWidth × imageHeight`.
    public init(_ rect: RotatedRect, imageWidth: Int, imageHeight: Int) {
        let w = Double(imageWidth), h = Double(imageHeight)
        self.init(
            xCenter: rect.centerX / w, yCenter: rect.centerY / h, width: rect.width / w, height: rect.height / h,
            rotation: rect.angle)
    }

    /// The rect in pixels of an image of `imageWidth × imageHeight`.
    public func pixelRect(imageWidth: Int, imageHeight: Int) -> RotatedRect {
        let w = Double(imageWidth), h = Double(imageHeight)
        return RotatedRect(
            centerX: xCenter * w, centerY: yCenter * h, width: width * w, height: height * h, angle: rotation)
    }
}

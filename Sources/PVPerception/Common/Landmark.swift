#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PVImaging

/// One landmark. The unit depends on the stage, which each API states: normalized to a tensor or ROI
/// (model output), pixels of the source image (after projection; `z` in pixels too, the same scale as x),
/// or metres (world landmarks).
public struct Landmark: Sendable, Hashable {
    public var x: Double
    public var y: Double
    /// Depth; smaller is closer to the camera. Same unit as `x`.
    public var z: Double
    /// Probability that the point is visible (not occluded), when the model reports it.
    public var visibility: Double?
    /// Probability that the point is inside the image, when the model reports it.
    public var presence: Double?

    public init(x: Double, y: Double, z: Double = 0, visibility: Double? = nil, presence: Double? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }

    /// `(x, y)`.
    public var position: SIMD2<Double> {
        get { SIMD2(x, y) }
        set {
            x = newValue.x
            y = newValue.y
        }
    }

    /// Removes the letterbox (MODELS.md §8.2): `x = (x − l)/(1 − l − r)`, `y = (y − t)/(1 − t − b)`,
    /// `z = z/(1 − l − r)`. Tensor-normalized in, ROI-normalized out.
    public func removingLetterbox(_ padding: LetterboxPadding) -> Landmark {
        let sx = 1 - padding.left - padding.right, sy = 1 - padding.top - padding.bottom
        var l = self
        l.x = (x - padding.left) / sx
        l.y = (y - padding.top) / sy
        l.z = z / sx
        return l
    }

    /// Projects a ROI-normalized landmark into source pixels (MODELS.md §8.3): rotate the offset from the
    /// ROI centre by the ROI's angle in pixel space, and scale z by the ROI width in pixels
    /// (so `z` comes out in pixels, the same scale as `x`).
    public func projected(onto roi: RotatedRect) -> Landmark {
        var l = self
        l.position = roi.imagePoint(fromNormalized: position)
        l.z = z * roi.width
        return l
    }

    /// A world landmark rotated about the z axis by `angle` (MODELS.md §8.4): `x' = cos·x − sin·y`,
    /// `y' = sin·x + cos·y`; z unchanged, no translation or scaling.
    public func rotated(by angle: Double) -> Landmark {
        let c = cos(angle), s = sin(angle)
        var l = self
        l.x = c * x - s * y
        l.y = s * x + c * y
        return l
    }
}

/// Decodes a landmark model's flat output (MODELS.md §8.1) into landmarks normalized to the tensor.
///
/// For `D` values per landmark: `x = v[0]/tw`, `y = v[1]/th`, `z = v[2]/tw/nz`, `visibility = v[3]`
/// and `presence = v[4]` when present, each through ``activation``.
///
/// ```swift
/// let decoder = LandmarkDecoder(count: 39, valuesPerLandmark: 5, tensorWidth: 256, tensorHeight: 256,
///                               activation: .sigmoid)
/// let landmarks = interpreter.withOutput(0) { decoder.decode($0) }
/// ```
public struct LandmarkDecoder: Sendable, Hashable {
    /// What is applied to the raw visibility and presence values.
    public enum Activation: Sendable, Hashable {
        case none
        case sigmoid
    }

    public var count: Int
    public var valuesPerLandmark: Int
    public var tensorWidth: Int
    public var tensorHeight: Int
    /// z divisor after `/tw` (hands 0.4, everything else 1).
    public var zNormalizer: Double
    public var activation: Activation
    /// Replace `v[0]` with `tw − v[0]` (the iris model's flipped eye).
    public var flipHorizontally: Bool

    public init(
        count: Int, valuesPerLandmark: Int, tensorWidth: Int, tensorHeight: Int, zNormalizer: Double = 1,
        activation: Activation = .none, flipHorizontally: Bool = false
    ) {
        precondition(valuesPerLandmark >= 2, "a landmark needs at least x and y")
        self.count = count
        self.valuesPerLandmark = valuesPerLandmark
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        self.zNormalizer = zNormalizer
        self.activation = activation
        self.flipHorizontally = flipHorizontally
    }

    /// Decodes `count × valuesPerLandmark` floats.
    public func decode(_ values: UnsafeBufferPointer<Float>) -> [Landmark] {
        precondition(values.count >= count * valuesPerLandmark, "landmark output is too small")
        let tw = Double(tensorWidth), th = Double(tensorHeight)
        func act(_ v: Float) -> Double {
            switch activation {
            case .none: return Double(v)
            case .sigmoid: return 1 / (1 + exp(-Double(v)))
            }
        }
        return (0..<count).map { i in
            let v = values.baseAddress! + i * valuesPerLandmark
            let rawX = Double(v[0])
            return Landmark(
                x: (flipHorizontally ? tw - rawX : rawX) / tw,
                y: Double(v[1]) / th,
                z: valuesPerLandmark >= 3 ? Double(v[2]) / tw / zNormalizer : 0,
                visibility: valuesPerLandmark >= 4 ? act(v[3]) : nil,
                presence: valuesPerLandmark >= 5 ? act(v[4]) : nil)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One SSD anchor: a centre and a size, normalized to the detector's input tensor.
public struct Anchor: Sendable, Hashable {
    /// Centre x, 0…1 across the tensor.
    public var centerX: Double
    /// Centre y, 0…1 down the tensor.
    public var centerY: Double
    /// Width (1 for every detector here: they use fixed anchor sizes).
    public var width: Double
    /// Height (1 for every detector here).
    public var height: Double

    public init(centerX: Double, centerY: Double, width: Double, height: Double) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
    }
}

/// The parameters of MediaPipe's SSD anchor generator (MODELS.md §3), with the four detectors' presets.
///
/// ```swift
/// let anchors = SSDAnchorOptions.pose.anchors()   // 2254 anchors
/// ```
public struct SSDAnchorOptions: Sendable, Hashable {
    /// Tensor width in pixels.
    public var inputWidth: Int
    /// Tensor height in pixels.
    public var inputHeight: Int
    /// Scale of the first layer.
    public var minScale: Double
    /// Scale of the last layer.
    public var maxScale: Double
    /// One stride per layer; consecutive equal strides share one feature map.
    public var strides: [Int]
    /// Aspect ratios of each layer's anchors.
    public var aspectRatios: [Double]
    /// The aspect ratio of one extra anchor per layer at the geometric mean of this and the next scale;
    /// 0 or less adds none.
    public var interpolatedScaleAspectRatio: Double
    /// Anchor centre offset within a cell, x.
    public var offsetX: Double
    /// Anchor centre offset within a cell, y.
    public var offsetY: Double
    /// Every anchor gets width = height = 1; scales and aspect ratios only decide the count per cell.
    public var fixedAnchorSize: Bool

    public init(
        inputWidth: Int, inputHeight: Int, minScale: Double, maxScale: Double, strides: [Int],
        aspectRatios: [Double] = [1], interpolatedScaleAspectRatio: Double = 1, offsetX: Double = 0.5,
        offsetY: Double = 0.5, fixedAnchorSize: Bool = true
    ) {
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.minScale = minScale
        self.maxScale = maxScale
        self.strides = strides
        self.aspectRatios = aspectRatios
        self.interpolatedScaleAspectRatio = interpolatedScaleAspectRatio
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.fixedAnchorSize = fixedAnchorSize
    }

    /// BlazeFace short range: 128², strides 8,16,16,16 → 896 anchors.
    public static let faceShortRange = SSDAnchorOptions(
        inputWidth: 128, inputHeight: 128, minScale: 0.1484375, maxScale: 0.75, strides: [8, 16, 16, 16])
    /// Face full range (sparse): 192², stride 4, no interpolated anchor → 2304 anchors.
    public static let faceFullRange = SSDAnchorOptions(
        inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75, strides: [4],
        interpolatedScaleAspectRatio: 0)
    /// Pose detector: 224², strides 8,16,32,32,32 → 2254 anchors.
    public static let pose = SSDAnchorOptions(
        inputWidth: 224, inputHeight: 224, minScale: 0.1484375, maxScale: 0.75, strides: [8, 16, 32, 32, 32])
    /// Palm detector (full and lite): 192², strides 8,16,16,16 → 2016 anchors.
    public static let palm = SSDAnchorOptions(
        inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75, strides: [8, 16, 16, 16])

    /// The anchors, ordered by stride group, then row, then column, then anchor within the cell.
    ///
    /// - Complexity: O(number of anchors).
    public func anchors() -> [Anchor] {
        let n = strides.count
        func scale(_ k: Int) -> Double {
            n == 1 ? (minScale + maxScale) / 2 : minScale + (maxScale - minScale) * Double(k) / Double(n - 1)
        }
        var result: [Anchor] = []
        var layer = 0
        while layer < n {
            // Collect the anchor shapes of every layer sharing this stride.
            var shapes: [(w: Double, h: Double)] = []
            var last = layer
            while last < n, strides[last] == strides[layer] {
                let s = scale(last)
                for a in aspectRatios { shapes.append((s * a.squareRoot(), s / a.squareRoot())) }
                if interpolatedScaleAspectRatio > 0 {
                    let next = last == n - 1 ? 1.0 : scale(last + 1)
                    let si = (s * next).squareRoot()
                    let a = interpolatedScaleAspectRatio
                    shapes.append((si * a.squareRoot(), si / a.squareRoot()))
                }
                last += 1
            }
            let stride = strides[layer]
            let fw = (inputWidth + stride - 1) / stride
            let fh = (inputHeight + stride - 1) / stride
            result.reserveCapacity(result.count + fw * fh * shapes.count)
            for y in 0..<fh {
                for x in 0..<fw {
                    let cx = (Double(x) + offsetX) / Double(fw)
                    let cy = (Double(y) + offsetY) / Double(fh)
                    for shape in shapes {
                        result.append(
                            fixedAnchorSize
                                ? Anchor(centerX: cx, centerY: cy, width: 1, height: 1)
                                : Anchor(centerX: cx, centerY: cy, width: shape.w, height: shape.h))
                    }
                }
            }
            layer = last
        }
        return result
    }
}

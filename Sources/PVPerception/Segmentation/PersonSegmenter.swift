import Foundation
import PVImaging
import PVInference

/// The three person-segmentation levels, as Vision's `QualityLevel` (raw values: accurate 0, balanced 1, fast 2).
public enum SegmentationQuality: Int, Sendable, CaseIterable {
    /// Full-resolution mask, edges refined against the image.
    case accurate = 0
    /// The general selfie model's 256×256 mask.
    case balanced = 1
    /// The landscape selfie model's 256×144 mask (144×256 for portrait images).
    case fast = 2
}

/// Person segmentation: a soft mask (1 = person, 0 = background) of an upright image.
///
/// | level | model | mask size |
/// |---|---|---|
/// | fast | `selfie_segmentation_landscape` (the image is turned a quarter turn for portrait frames) | 256×144 or 144×256 |
/// | balanced | `selfie_segmentation` | 256×256 |
/// | accurate | the fast level's model, upsampled to the image by a colour guided filter | the image's size |
///
/// Safe to share between threads: each call borrows an interpreter from a pool.
public final class PersonSegmenter: Sendable {
    /// The level this segmenter runs.
    public let quality: SegmentationQuality
    private let landscape: InterpreterPool
    private let general: InterpreterPool?
    private let detector: PoseDetector

    /// Creates a segmenter; models are loaded once per process and shared.
    /// - Throws: `InferenceError` `.modelNotFound` when the models are not installed.
    public init(quality: SegmentationQuality, threads: Int? = nil) throws {
        self.quality = quality
        landscape = try InterpreterPool(modelNamed: "selfie_segmentation_landscape.tflite", threads: threads)
        general = quality == .balanced ? try InterpreterPool(modelNamed: "selfie_segmentation.tflite", threads: threads) : nil
        detector = try PoseDetector(threads: threads)
    }

    /// Segments the people in `image` (any pixel format, upright).
    /// - Returns: a `.oneComponent32Float` mask with values in 0…1, of the size the level documents.
    ///
    /// The selfie models mark any salient foreground (a cat, a chair) as "person", so every level keeps the
    /// mask only inside the body regions the pose detector finds: no person found gives an empty mask.
    public func segment(_ image: PixelBuffer) throws -> PixelBuffer {
        let people = try detector.detect(in: image).map { PersonRegion(detection: $0) }
        var mask: PixelBuffer
        switch quality {
        case .fast:
            mask = try landscapeMask(image)
        case .balanced:
            mask = try selfieMask(image, pool: general!, width: 256, height: 256, rotated: false)
        case .accurate:
            mask = try Self.refine(try landscapeMask(image), guide: image)
        }
        Self.gate(&mask, imageWidth: image.width, imageHeight: image.height, regions: people)
        return mask
    }

    /// The area a detected person may occupy: the landmark model's square ROI (centre at the hip, side twice
    /// the hip-to-head-top distance, turned along the body), enlarged a little.
    struct PersonRegion {
        var center: SIMD2<Double>
        var axisX: SIMD2<Double>
        var axisY: SIMD2<Double>
        var half: Double

        init(detection: Detection) {
            let hip = detection.keypoints[0], top = detection.keypoints[1]
            let d = top - hip
            let length = max(1, (d * d).sum().squareRoot())
            center = hip
            axisY = d / length
            axisX = SIMD2(-axisY.y, axisY.x)
            half = length * 1.25 * 1.15  // the pose ROI's ×1.25, plus 15 % for hair, hands and loose clothes
        }

        /// 1 well inside, 0 outside, linear over the outer `feather` fraction.
        func weight(_ p: SIMD2<Double>, feather: Double = 0.15) -> Float {
            let q = p - center
            let m = max(abs((q * axisX).sum()), abs((q * axisY).sum())) / half
            return Float(min(1, max(0, (1 - m) / feather)))
        }
    }

    /// Multiplies the mask by the union of the person regions (mapped from image pixels to mask pixels).
    static func gate(_ mask: inout PixelBuffer, imageWidth: Int, imageHeight: Int, regions: [PersonRegion]) {
        let w = mask.width, h = mask.height, stride = mask.bytesPerRow() / 4
        let sx = Double(imageWidth) / Double(w), sy = Double(imageHeight) / Double(h)
        mask.withUnsafeMutableBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            for y in 0..<h {
                let py = (Double(y) + 0.5) * sy - 0.5
                for x in 0..<w {
                    let i = y * stride + x
                    guard m[i] > 0 else { continue }
                    let p = SIMD2((Double(x) + 0.5) * sx - 0.5, py)
                    var g: Float = 0
                    for r in regions where g < 1 { g = max(g, r.weight(p)) }
                    m[i] *= g
                }
            }
        }
    }

    /// The landscape model's mask, with portrait images turned a quarter turn so the person stays upright
    /// relative to the model's wide input.
    private func landscapeMask(_ image: PixelBuffer) throws -> PixelBuffer {
        try selfieMask(image, pool: landscape, width: 256, height: 144, rotated: image.height > image.width)
    }

    /// Runs a selfie model on the whole image (stretched) and returns its probability mask.
    /// With `rotated`, the tensor's x axis runs down the image, and the mask is turned back to the image's frame.
    private func selfieMask(_ image: PixelBuffer, pool: InterpreterPool, width: Int, height: Int, rotated: Bool) throws -> PixelBuffer {
        let W = Double(image.width), H = Double(image.height)
        let rect = rotated
            ? RotatedRect(centerX: W / 2, centerY: H / 2, width: H, height: W, angle: .pi / 2)
            : RotatedRect(centerX: W / 2, centerY: H / 2, width: W, height: H)
        let sampler = TensorSampler(width: width, height: height, range: 0...1, fit: .stretch, border: .zero)
        return try pool.withInterpreter { interpreter in
            _ = try interpreter.withInput(0) { try sampler.sample(image, rect: rect, into: $0) }
            try interpreter.invoke()
            return try interpreter.withOutput(0) { out in
                if !rotated {
                    var mask = try PixelBuffer(width: width, height: height, format: .oneComponent32Float)
                    let stride = mask.bytesPerRow() / 4
                    mask.withUnsafeMutableBytes { dst in
                        let d = dst.bindMemory(to: Float.self)
                        for y in 0..<height { for x in 0..<width { d[y * stride + x] = out[y * width + x] } }
                    }
                    return mask
                }
                // Tensor (i, j) sits at image x = cx − v·W, y = cy + u·H: mask column = height−1−j, row = i.
                var mask = try PixelBuffer(width: height, height: width, format: .oneComponent32Float)
                let stride = mask.bytesPerRow() / 4
                mask.withUnsafeMutableBytes { dst in
                    let d = dst.bindMemory(to: Float.self)
                    for j in 0..<height { for i in 0..<width { d[i * stride + (height - 1 - j)] = out[j * width + i] } }
                }
                return mask
            }
        }
    }

    /// Upsamples a low-resolution mask to the image's size along the image's edges (colour guided filter).
    static func refine(_ mask: PixelBuffer, guide image: PixelBuffer) throws -> PixelBuffer {
        let side = min(image.width, image.height)
        let radius = max(2, side / 80)
        let filter = GuidedFilter(radius: radius, epsilon: 2e-3, guide: .color, subsampling: max(1, min(4, radius / 2)))
        return try filter.filter(mask, guide: image)
    }
}

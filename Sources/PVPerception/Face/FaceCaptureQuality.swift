#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PVImaging

/// A face capture-quality score in [0, 1], built from five measured factors of one face. Like Apple's, it
/// is a **comparative** measure: higher means a better capture of the same person; it is not calibrated
/// across people or scenes.
///
/// Each factor is in [0, 1]; the score is the product of their powers
/// `sharpness^0.30 · exposure^0.20 · pose^1.0 · eyes^0.10 · visibility^0.15`, so any one poor factor pulls
/// the score down and improving one factor, the others fixed, never lowers it. Pose weighs most: a turned
/// head changes the crop's sharpness and exposure measures by a few percent, which must not outweigh it.
///
/// | factor | measured on | formula |
/// |---|---|---|
/// | sharpness | the face crop (the mesh box, levelled by roll, sampled to 128×128, inner 80 %, luma 0…1) | `E / (E + 0.002)`, `E` = mean squared 4-neighbour Laplacian |
/// | exposure | the same crop | `exp(−((μ − clamp(μ, 0.4, 0.7))/0.2)²)·min(1, σ/0.12)`, μ and σ the mean and standard deviation of luma: 1 for a mean in 0.4…0.7 |
/// | pose | ``HeadPose`` from the mesh | `max(0, cos yaw · cos pitch)²` |
/// | eyes | lid gap over eye width (159–145 / 33–133 and 386–374 / 362–263), mean of both eyes | `clamp((r − 0.05)/0.2, 0, 1)` |
/// | visibility | the mesh model's face presence and the share of mesh points inside the image | `presence · inside` |
public struct FaceCaptureQuality: Sendable, Hashable {
    public var sharpness: Double
    public var exposure: Double
    public var pose: Double
    public var eyes: Double
    public var visibility: Double

    /// The combined score in [0, 1].
    public var score: Double {
        func f(_ v: Double, _ w: Double) -> Double { pow(max(v, 0), w) }
        return f(sharpness, 0.30) * f(exposure, 0.20) * f(pose, 1.0) * f(eyes, 0.10) * f(visibility, 0.15)
    }

    static let cropSize = 128

    /// Measures one face.
    /// - Parameters:
    ///   - face: a face from ``FaceLandmarker`` (pixels of `image`).
    ///   - image: the upright image the face was found in.
    /// - Throws: `ImagingError` when the face crop cannot be sampled (a degenerate mesh).
    public init(face: FaceMesh, in image: PixelBuffer) throws {
        let lm = face.landmarks
        let box = face.meshBoundingBox
        let angle = ROI.rotation(from: lm[33].position, to: lm[263].position, targetAngle: 0)
        let side = max(box.width, box.height)
        let rect = RotatedRect(centerX: box.center.x, centerY: box.center.y, width: side, height: side, angle: angle)
        let n = Self.cropSize
        let sampler = TensorSampler(width: n, height: n, range: 0...1, fit: .stretch, border: .replicate)
        var rgb = [Float](repeating: 0, count: n * n * 3)
        try rgb.withUnsafeMutableBufferPointer { _ = try sampler.sample(image, rect: rect, into: $0) }
        var luma = [Double](repeating: 0, count: n * n)
        for i in 0..<(n * n) {
            luma[i] = 0.299 * Double(rgb[3 * i]) + 0.587 * Double(rgb[3 * i + 1]) + 0.114 * Double(rgb[3 * i + 2])
        }
        let lo = n / 10, hi = n - n / 10
        var sum = 0.0, sum2 = 0.0, energy = 0.0, count = 0.0
        for y in lo..<hi {
            for x in lo..<hi {
                let v = luma[y * n + x]
                let lap = luma[(y - 1) * n + x] + luma[(y + 1) * n + x] + luma[y * n + x - 1] + luma[y * n + x + 1] - 4 * v
                sum += v
                sum2 += v * v
                energy += lap * lap
                count += 1
            }
        }
        let mean = sum / count
        let sd = max(0, sum2 / count - mean * mean).squareRoot()
        let e = energy / count
        sharpness = e / (e + 0.002)
        exposure = exp(-pow((mean - min(max(mean, 0.4), 0.7)) / 0.2, 2)) * min(1, sd / 0.12)

        let pose = face.headPose
        self.pose = pow(max(0, cos(pose.yaw) * cos(pose.pitch)), 2)

        func ratio(_ top: Int, _ bottom: Int, _ c0: Int, _ c1: Int) -> Double {
            let gap = lm[top].position - lm[bottom].position, width = lm[c0].position - lm[c1].position
            let w = (width * width).sum().squareRoot()
            return w > 0 ? (gap * gap).sum().squareRoot() / w : 0
        }
        let r = (ratio(159, 145, 33, 133) + ratio(386, 374, 362, 263)) / 2
        eyes = min(1, max(0, (r - 0.05) / 0.2))

        let mesh = lm.prefix(FaceMeshTopology.meshCount)
        let W = Double(image.width), H = Double(image.height)
        let inside = Double(mesh.filter { $0.x >= 0 && $0.y >= 0 && $0.x <= W && $0.y <= H }.count) / Double(mesh.count)
        visibility = face.presence * inside
    }

    public init(sharpness: Double, exposure: Double, pose: Double, eyes: Double, visibility: Double) {
        self.sharpness = sharpness
        self.exposure = exposure
        self.pose = pose
        self.eyes = eyes
        self.visibility = visibility
    }
}

#if canImport(Glibc)
import Glibc
import PVCore
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The iris model's own crop path (MODELS.md §11.4): a nearest-neighbour rotated crop at native
/// resolution, an aspect-keeping resize, centred black padding, an optional horizontal flip and the
/// range map, written into a float32 NHWC RGB tensor.
///
/// 1. Crop size `cw = round(w)`, `ch = round(h)` (rect size in pixels). Crop pixel `(i, j)` reads the
///    source pixel nearest to `(cx, cy) + R(θ)·(i + 0.5 − cw/2, j + 0.5 − ch/2) − (0.5, 0.5)`, with a
///    replicate border. When θ = 0 exactly, the centre is first snapped: `cx = round(cx)` for even
///    `cw`, else `round(cx + 0.5) − 0.5` (likewise `cy` with `ch`).
/// 2. `s = min(tw/cw, th/ch)`; resize to `round(cw·s) × round(ch·s)` with area averaging when
///    `s < 1`, bilinear (half-pixel centres) otherwise.
/// 3. Pad with black to `tw × th`, centred (`top = (th − rh) div 2`, remainder at the bottom; same
///    for left/right).
/// 4. Optionally flip horizontally (the eye 362/263), then map 0–255 to ``range``.
///
/// ```swift
/// let iris = IrisCropSampler()                    // 64×64, [0, 1]
/// let padding = try iris.sample(image, rect: eyeRect, flipHorizontally: true, into: input)
/// ```
///
/// - Complexity: O(cw·ch + tw·th); allocates one small scratch crop (on the stack when small).
public struct IrisCropSampler: Sendable, Hashable {
    /// Tensor width.
    public var width: Int
    /// Tensor height.
    public var height: Int
    /// The model's value range: 0 maps to `lowerBound`, 255 to `upperBound`.
    public var range: ClosedRange<Float>

    public init(width: Int = 64, height: Int = 64, range: ClosedRange<Float> = 0...1) {
        self.width = width
        self.height = height
        self.range = range
    }

    /// Number of floats one sample writes: `height × width × 3`.
    public var elementCount: Int { width * height * 3 }

    /// Largest crop side accepted, in pixels.
    public static let maximumCropSide = 4096

    /// Crops `rect` of `image` and writes the tensor.
    /// - Returns: the letterbox padding of the crop's aspect ratio (MODELS.md §2.2 with `cw/ch`).
    /// - Throws: ``ImagingError`` `.invalidArgument` when the rect is not finite, rounds to an empty
    ///   crop, or exceeds ``maximumCropSide``, or the tensor size or range is invalid.
    @discardableResult
    public func sample(
        _ image: PixelBuffer, rect: RotatedRect, flipHorizontally: Bool = false, into tensor: UnsafeMutablePointer<Float>
    ) throws -> LetterboxPadding {
        guard width > 0, height > 0, width <= 4096, height <= 4096 else {
            throw ImagingError(.invalidArgument, "iris tensor size \(width)×\(height) must be in 1…4096")
        }
        guard range.lowerBound.isFinite, range.upperBound.isFinite else {
            throw ImagingError(.invalidArgument, "tensor range \(range) must be finite")
        }
        guard rect.centerX.isFinite, rect.centerY.isFinite, rect.width.isFinite, rect.height.isFinite,
            rect.angle.isFinite
        else { throw ImagingError(.invalidArgument, "iris crop rect \(rect) must be finite") }
        let cwd = rect.width.rounded(), chd = rect.height.rounded()
        guard cwd >= 1, chd >= 1, cwd <= Double(Self.maximumCropSide), chd <= Double(Self.maximumCropSide) else {
            throw ImagingError(
                .invalidArgument, "iris crop \(rect.width)×\(rect.height) px rounds outside 1…\(Self.maximumCropSide)")
        }
        let cw = Int(cwd), ch = Int(chd)
        let plan = IrisFitPlan(cropWidth: cw, cropHeight: ch, tensorWidth: width, tensorHeight: height)
        let scale = (range.upperBound - range.lowerBound) / 255
        let offset = range.lowerBound
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: cw * ch * 3) { crop in
            image.withRGBSource(NearestCropJob(rect: rect, cropWidth: cw, cropHeight: ch, output: crop.baseAddress!))
            plan.resize(
                crop: UnsafePointer(crop.baseAddress!), into: tensor, flip: flipHorizontally, scale: scale, offset: offset)
        }
        return RotatedRect(centerX: 0, centerY: 0, width: cwd, height: chd)
            .letterboxed(toAspectOf: width, height).padding
    }

    /// As ``sample(_:rect:flipHorizontally:into:)-(_,_,_,UnsafeMutablePointer<Float>)``, checking the
    /// buffer's size (a short buffer is a programmer error and traps).
    @discardableResult
    public func sample(
        _ image: PixelBuffer, rect: RotatedRect, flipHorizontally: Bool = false,
        into tensor: UnsafeMutableBufferPointer<Float>
    ) throws -> LetterboxPadding {
        precondition(tensor.count >= elementCount, "tensor holds \(tensor.count) floats, \(elementCount) needed")
        return try sample(image, rect: rect, flipHorizontally: flipHorizontally, into: tensor.baseAddress!)
    }
}

/// Step 1: nearest-neighbour rotated crop into packed RGB8.
private struct NearestCropJob: RGBPixelSourceVisitor {
    let rect: RotatedRect
    let cropWidth: Int
    let cropHeight: Int
    let output: UnsafeMutablePointer<UInt8>

    func visit<S: RGBPixelSource>(_ src: S) {
        var cx = rect.centerX, cy = rect.centerY
        let c: Double, s: Double
        if rect.angle == 0 {
            cx = cropWidth % 2 == 0 ? cx.rounded() : (cx + 0.5).rounded() - 0.5
            cy = cropHeight % 2 == 0 ? cy.rounded() : (cy + 0.5).rounded() - 0.5
            c = 1
            s = 0
        } else {
            c = cos(rect.angle)
            s = sin(rect.angle)
        }
        let w = src.width, h = src.height
        let hw = Double(cropWidth) / 2, hh = Double(cropHeight) / 2
        var out = output
        for j in 0..<cropHeight {
            let dy = Double(j) + 0.5 - hh
            for i in 0..<cropWidth {
                let dx = Double(i) + 0.5 - hw
                let sx = cx + c * dx - s * dy - 0.5
                let sy = cy + s * dx + c * dy - 0.5
                // Nearest = floor(s + 0.5) (OpenCV's INTER_NEAREST rounding), then replicate border.
                let nx = Int(min(max(sx + 0.5, -1), Double(w))), ny = Int(min(max(sy + 0.5, -1), Double(h)))
                let fx = Double(nx) > sx + 0.5 ? nx - 1 : nx  // truncation → floor for negatives
                let fy = Double(ny) > sy + 0.5 ? ny - 1 : ny
                let p = src.rgb(min(max(fx, 0), w - 1), min(max(fy, 0), h - 1))
                out[0] = UInt8(p[0])
                out[1] = UInt8(p[1])
                out[2] = UInt8(p[2])
                out += 3
            }
        }
    }
}

/// Steps 2–4: aspect-keeping resize of the RGB8 crop into the padded float tensor.
struct IrisFitPlan {
    let cropWidth: Int
    let cropHeight: Int
    let tensorWidth: Int
    let tensorHeight: Int
    /// Resized content size and its top-left corner inside the tensor.
    let contentWidth: Int
    let contentHeight: Int
    let left: Int
    let top: Int
    let useArea: Bool

    init(cropWidth: Int, cropHeight: Int, tensorWidth: Int, tensorHeight: Int) {
        self.cropWidth = cropWidth
        self.cropHeight = cropHeight
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        let s = min(Double(tensorWidth) / Double(cropWidth), Double(tensorHeight) / Double(cropHeight))
        contentWidth = min(tensorWidth, max(1, Int((Double(cropWidth) * s).rounded())))
        contentHeight = min(tensorHeight, max(1, Int((Double(cropHeight) * s).rounded())))
        left = (tensorWidth - contentWidth) / 2
        top = (tensorHeight - contentHeight) / 2
        useArea = s < 1
    }

    func resize(
        crop: UnsafePointer<UInt8>, into tensor: UnsafeMutablePointer<Float>, flip: Bool, scale: Float, offset: Float
    ) {
        let method: ResamplingMethod = useArea ? .area : .bilinear
        let xs = ResampleTaps(method: method, source: cropWidth, destination: contentWidth)
        let ys = ResampleTaps(method: method, source: cropHeight, destination: contentHeight)
        let tw = tensorWidth
        // Black (0) padding everywhere first, range-mapped.
        let pad = offset
        tensor.update(repeating: pad, count: tensorWidth * tensorHeight * 3)
        let rowStride = cropWidth * 3
        for oy in 0..<contentHeight {
            let ty = oy + top
            let yStart = ys.starts[oy], yCount = ys.counts[oy]
            for ox in 0..<contentWidth {
                let xStart = xs.starts[ox], xCount = xs.counts[ox]
                var acc = SIMD4<Float>(repeating: 0)
                for ky in 0..<yCount {
                    let wy = ys.weights[oy * ys.maxTaps + ky]
                    let row = crop + (yStart + ky) * rowStride
                    var racc = SIMD4<Float>(repeating: 0)
                    for kx in 0..<xCount {
                        let wx = xs.weights[ox * xs.maxTaps + kx]
                        let p = row + (xStart + kx) * 3
                        racc += SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 0) * wx
                    }
                    acc += racc * wy
                }
                let tx = flip ? tw - 1 - (ox + left) : ox + left
                let t = acc * scale + offset
                let o = tensor + (ty * tw + tx) * 3
                o[0] = t[0]
                o[1] = t[1]
                o[2] = t[2]
            }
        }
    }
}

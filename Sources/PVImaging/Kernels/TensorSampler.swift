#if canImport(Glibc)
import Glibc
import PVCore
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CImageKernels

/// Warps a rotated rectangle of an image into a float32 NHWC RGB tensor in one pass.
///
/// This is MODELS.md §2: crop, rotate, resize, convert to RGB and range-map, fused. Output pixel
/// `(i, j)` reads the source bilinearly at
///
/// ```
/// u = i/tw − 0.5,  v = j/th − 0.5
/// sx = cx + u·rw·cosθ − v·rh·sinθ,  sy = cy + u·rw·sinθ + v·rh·cosθ
/// ```
///
/// in pixel-centre coordinates, and stores `t = p·(max − min)/255 + min` for each of R, G, B.
/// Any ``PixelFormat`` is accepted: alpha is dropped, grey is replicated into R, G and B
/// (one-component float and half values 0–1 count as 0–255), and 4:2:0 YUV is converted with
/// BT.601 per source pixel before interpolation. Interpolation is in float; MediaPipe rounds
/// samples to 8 bits first, which differs by at most one grey level.
///
/// ```swift
/// let sampler = TensorSampler(width: 128, height: 128, range: -1...1, fit: .letterbox, border: .zero)
/// var input = [Float](repeating: 0, count: 128 * 128 * 3)
/// let padding = try input.withUnsafeMutableBufferPointer {
///     try sampler.sample(image, rect: RotatedRect(covering: image), into: $0)
/// }
/// ```
///
/// - Complexity: O(tw·th); no allocations.
public struct TensorSampler: Sendable, Hashable {
    /// Tensor width (W of NHWC).
    public var width: Int
    /// Tensor height (H of NHWC).
    public var height: Int
    /// The model's value range: 0 maps to `lowerBound`, 255 to `upperBound`.
    public var range: ClosedRange<Float>
    /// Stretch or keep aspect (letterbox).
    public var fit: FitMode
    /// What samples outside the image read.
    public var border: BorderMode

    public init(
        width: Int, height: Int, range: ClosedRange<Float> = 0...1, fit: FitMode = .stretch, border: BorderMode = .zero
    ) {
        self.width = width
        self.height = height
        self.range = range
        self.fit = fit
        self.border = border
    }

    /// Number of floats one sample writes: `height × width × 3`.
    public var elementCount: Int { width * height * 3 }

    /// Samples `rect` of `image` into `tensor`, which must hold ``elementCount`` floats.
    /// - Returns: the letterbox padding (all zero for ``FitMode/stretch``).
    /// - Throws: ``ImagingError`` `.invalidArgument` for a non-positive tensor size, a non-finite
    ///   range, or a rect that is not finite or has a non-positive side.
    @discardableResult
    public func sample(_ image: PixelBuffer, rect: RotatedRect, into tensor: UnsafeMutablePointer<Float>) throws
        -> LetterboxPadding
    {
        try validate(rect)
        var roi = rect
        var padding = LetterboxPadding.zero
        if fit == .letterbox { (roi, padding) = rect.letterboxed(toAspectOf: width, height) }
        let geometry = SamplingGeometry(rect: roi, tensorWidth: width, tensorHeight: height)
        let scale = (range.upperBound - range.lowerBound) / 255
        let job = TensorSamplingJob(
            geometry: geometry, output: tensor, scale: scale, offset: range.lowerBound, zeroBorder: border == .zero)
        image.withRGBSource(job)
        return padding
    }

    /// As ``sample(_:rect:into:)-(_,_,UnsafeMutablePointer<Float>)``, checking the buffer's size
    /// (a short buffer is a programmer error and traps).
    @discardableResult
    public func sample(_ image: PixelBuffer, rect: RotatedRect, into tensor: UnsafeMutableBufferPointer<Float>) throws
        -> LetterboxPadding
    {
        precondition(tensor.count >= elementCount, "tensor holds \(tensor.count) floats, \(elementCount) needed")
        return try sample(image, rect: rect, into: tensor.baseAddress!)
    }

    private func validate(_ rect: RotatedRect) throws {
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else {
            throw ImagingError(.invalidArgument, "tensor size \(width)×\(height) must be positive and at most 32768")
        }
        guard range.lowerBound.isFinite, range.upperBound.isFinite else {
            throw ImagingError(.invalidArgument, "tensor range \(range) must be finite")
        }
        try rect.validate("TensorSampler")
    }
}

/// Affine map from tensor indices to source pixel-centre coordinates (MODELS.md §2.3).
struct SamplingGeometry {
    let tensorWidth: Int
    let tensorHeight: Int
    /// Source position of tensor pixel (0, 0).
    let originX: Double
    let originY: Double
    /// Source step per tensor column.
    let columnStepX: Double
    let columnStepY: Double
    /// Source step per tensor row.
    let rowStepX: Double
    let rowStepY: Double

    init(rect: RotatedRect, tensorWidth: Int, tensorHeight: Int) {
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        let c = cos(rect.angle), s = sin(rect.angle)
        columnStepX = rect.width * c / Double(tensorWidth)
        columnStepY = rect.width * s / Double(tensorWidth)
        rowStepX = -rect.height * s / Double(tensorHeight)
        rowStepY = rect.height * c / Double(tensorHeight)
        // u = v = −0.5 at index 0.
        originX = rect.centerX - 0.5 * rect.width * c + 0.5 * rect.height * s
        originY = rect.centerY - 0.5 * rect.width * s - 0.5 * rect.height * c
    }
}

/// Bilinear read of an RGB source at a pixel-centre position, with zero or replicate border.
@inline(__always)
func bilinearRGB<S: RGBPixelSource>(_ src: S, _ sx: Double, _ sy: Double, zeroBorder: Bool) -> SIMD4<Float> {
    let w = src.width, h = src.height
    // Clamp far-away positions so the integer conversion is safe; the result is unchanged because
    // every neighbour is already outside (zero) or clamped to the edge (replicate).
    let cxd = min(max(sx, -2), Double(w) + 1)
    let cyd = min(max(sy, -2), Double(h) + 1)
    // floor via truncation of a non-negative value: baseline x86-64 has no rounding instruction.
    let x0 = Int(cxd + 2) &- 2, y0 = Int(cyd + 2) &- 2
    let ax = Float(cxd - Double(x0)), ay = Float(cyd - Double(y0))
    if x0 >= 0 && y0 >= 0 && x0 < w &- 1 && y0 < h &- 1 {
        return src.bilinear(x0, y0, ax, ay)
    }
    @inline(__always) func read(_ x: Int, _ y: Int) -> SIMD4<Float> {
        if x >= 0 && y >= 0 && x < w && y < h { return src.rgb(x, y) }
        if zeroBorder { return SIMD4(repeating: 0) }
        return src.rgb(min(max(x, 0), w &- 1), min(max(y, 0), h &- 1))
    }
    let p00 = read(x0, y0), p01 = read(x0 &+ 1, y0), p10 = read(x0, y0 &+ 1), p11 = read(x0 &+ 1, y0 &+ 1)
    let top = p00 + (p01 - p00) * ax
    let bottom = p10 + (p11 - p10) * ax
    return top + (bottom - top) * ay
}

private struct TensorSamplingJob: RGBPixelSourceVisitor {
    let geometry: SamplingGeometry
    let output: UnsafeMutablePointer<Float>
    let scale: Float
    let offset: Float
    let zeroBorder: Bool

    func visit<S: RGBPixelSource>(_ source: S) {
        if geometry.columnStepY == 0 && geometry.rowStepX == 0 {
            visitAxisAligned(source)
            return
        }
        let g = geometry
        let tw = g.tensorWidth
        if let p = source.packed4Layout {
            ImagingThreads.forEachBand(rows: g.tensorHeight, workPerRow: tw &* 16) { rows in
                for j in rows {
                    cik_sample_rgb4_row(
                        p.plane.base.assumingMemoryBound(to: UInt8.self), p.plane.bytesPerRow, Int32(p.plane.width),
                        Int32(p.plane.height), p.r, p.g, p.b, g.originX + Double(j) * g.rowStepX,
                        g.originY + Double(j) * g.rowStepY, g.columnStepX, g.columnStepY, Int32(tw), scale, offset,
                        zeroBorder ? 1 : 0, output + j &* tw &* 3)
                }
            }
            return
        }
        ImagingThreads.forEachBand(rows: g.tensorHeight, workPerRow: tw &* 16) { rows in
            for j in rows {
                let rowX = g.originX + Double(j) * g.rowStepX
                let rowY = g.originY + Double(j) * g.rowStepY
                let out = output + j &* tw &* 3
                // Positions from the row's start (not accumulated), as the C row kernel computes them.
                @inline(__always) func at(_ i: Int) -> SIMD4<Float> {
                    let d = Double(i)
                    return bilinearRGB(source, rowX + d * g.columnStepX, rowY + d * g.columnStepY, zeroBorder: zeroBorder) * scale
                        + offset
                }
                // Four-float stores overlap the next pixel; the row's last pixel stores three.
                for i in 0..<(tw &- 1) {
                    UnsafeMutableRawPointer(out + i &* 3).storeBytes(of: at(i), as: SIMD4<Float>.self)
                }
                let t = at(tw &- 1)
                let last = out + (tw &- 1) &* 3
                last[0] = t[0]
                last[1] = t[1]
                last[2] = t[2]
            }
        }
    }

    /// θ = 0: source x depends only on the column and y only on the row, so the integer positions
    /// and weights are tabulated once per column and once per row.
    private func visitAxisAligned<S: RGBPixelSource>(_ source: S) {
        let g = geometry
        let tw = g.tensorWidth, w = source.width, h = source.height
        let packed4 = source.packed4Layout
        withUnsafeTemporaryAllocation(of: Int.self, capacity: tw) { xTable in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: tw) { aTable in
                // Columns whose 2×2 block lies inside the image form one run (x grows with i).
                var lo = tw, hi = 0
                for i in 0..<tw {
                    let sx = min(max(g.originX + Double(i) * g.columnStepX, -2), Double(w) + 1)
                    let x0 = Int(sx + 2) &- 2
                    xTable[i] = x0
                    aTable[i] = Float(sx - Double(x0))
                    if x0 >= 0 && x0 < w &- 1 {
                        lo = min(lo, i)
                        hi = max(hi, i &+ 1)
                    }
                }
                if lo >= hi { lo = 0; hi = 0 }
                let xs = UnsafePointer(xTable.baseAddress!), ax = UnsafePointer(aTable.baseAddress!)
                let outsideValue = Float(0) * scale + offset
                ImagingThreads.forEachBand(rows: g.tensorHeight, workPerRow: tw &* 12) { rows in
                    for j in rows {
                        let sy = g.originY + Double(j) * g.rowStepY
                        let out = output + j &* tw &* 3
                        let cy = min(max(sy, -2), Double(h) + 1)
                        let y0 = Int(cy + 2) &- 2
                        // With a zero border, a block wholly outside the image (a letterbox's padding) reads four
                        // zeros: its value is that of zero, written without the bilinear read.
                        let rowOutside = zeroBorder && (y0 < -1 || y0 > h &- 1)
                        @inline(__always) func slow(_ i: Int) {
                            let o = out + i &* 3
                            let x0 = xs[i]
                            if zeroBorder && (rowOutside || x0 < -1 || x0 > w &- 1) {
                                o[0] = outsideValue
                                o[1] = outsideValue
                                o[2] = outsideValue
                                return
                            }
                            let sx = g.originX + Double(i) * g.columnStepX
                            let t = bilinearRGB(source, sx, sy, zeroBorder: zeroBorder) * scale + offset
                            o[0] = t[0]
                            o[1] = t[1]
                            o[2] = t[2]
                        }
                        guard y0 >= 0 && y0 < h &- 1 && lo < hi else {
                            for i in 0..<tw { slow(i) }
                            continue
                        }
                        let ay = Float(cy - Double(y0))
                        for i in 0..<lo { slow(i) }
                        if let p = packed4 {
                            cik_sample_rgb4_row_table(
                                p.plane.base.assumingMemoryBound(to: UInt8.self), p.plane.bytesPerRow, p.r, p.g, p.b,
                                xs, ax, y0, ay, Int32(lo), Int32(hi), scale, offset, out)
                            for i in hi..<tw { slow(i) }
                            continue
                        }
                        // Interior: four-float stores overlap the next pixel, so the last one stores three.
                        let last = hi &- 1
                        for i in lo..<last {
                            let t = source.bilinear(xs[i], y0, ax[i], ay) * scale + offset
                            UnsafeMutableRawPointer(out + i &* 3).storeBytes(of: t, as: SIMD4<Float>.self)
                        }
                        let t = source.bilinear(xs[last], y0, ax[last], ay) * scale + offset
                        let o = out + last &* 3
                        o[0] = t[0]
                        o[1] = t[1]
                        o[2] = t[2]
                        for i in hi..<tw { slow(i) }
                    }
                }
            }
        }
    }
}

import PVImaging

/// Warps a mask that a model produced for a crop back onto the image (MODELS.md §11.7, segmentation).
///
/// Output pixel `(px, py)` of a `width × height` target covering the whole source image maps to the
/// image-normalized point `(px/width, py/height)`, through the **inverse** of the crop transform to
/// the crop-normalized `(u, v)`, and reads the mask bilinearly at `(u·maskWidth, v·maskHeight)`
/// (no half-pixel terms, as MediaPipe's OpenCV runner); mask cells outside the mask read 0.
struct ROIMaskWarp {
    let maskWidth: Int, maskHeight: Int, width: Int
    // Target pixel → image pixel → crop-normalized → mask cell, all affine: origin and steps.
    private let origin: SIMD2<Double>, colStep: SIMD2<Double>, rowStep: SIMD2<Double>

    /// - Parameters:
    ///   - crop: the rect the model's input was sampled from, letterbox expansion included, in source pixels.
    ///   - imageWidth, imageHeight: the source image's size.
    ///   - width, height: the target's size.
    init(maskWidth: Int, maskHeight: Int, crop: RotatedRect, imageWidth: Int, imageHeight: Int, width: Int, height: Int) {
        self.maskWidth = maskWidth
        self.maskHeight = maskHeight
        self.width = width
        let sx = Double(imageWidth) / Double(width), sy = Double(imageHeight) / Double(height)
        let o = crop.normalizedPoint(fromImage: .zero)
        let ex = crop.normalizedPoint(fromImage: SIMD2(sx, 0)) - o
        let ey = crop.normalizedPoint(fromImage: SIMD2(0, sy)) - o
        let scale = SIMD2(Double(maskWidth), Double(maskHeight))
        origin = o * scale
        colStep = ex * scale
        rowStep = ey * scale
    }

    /// Target row `py` of the warp of `mask` (`maskWidth × maskHeight` floats, row-major) into `row` (`width` floats).
    func row(_ py: Int, of mask: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>) {
        let maskWidth = maskWidth, maskHeight = maskHeight
        let mw = Double(maskWidth), mh = Double(maskHeight)
        let m = mask
        @inline(__always) func read(_ x: Int, _ y: Int) -> Float {
            x >= 0 && y >= 0 && x < maskWidth && y < maskHeight ? m[y * maskWidth + x] : 0
        }
        var p = origin + rowStep * Double(py)
        for px in 0..<width {
            defer { p += colStep }
            // Fully outside (including the one-cell bilinear fringe): 0.
            guard p.x > -1, p.y > -1, p.x < mw, p.y < mh else {
                row[px] = 0
                continue
            }
            // floor() by truncation, corrected below zero: baseline x86-64 has no rounding instruction, and the
            // library call cost more than the rest of the pixel.
            var x0 = Int(p.x), y0 = Int(p.y)
            if Double(x0) > p.x { x0 -= 1 }
            if Double(y0) > p.y { y0 -= 1 }
            let ax = Float(p.x - Double(x0)), ay = Float(p.y - Double(y0))
            let v00: Float, v01: Float, v10: Float, v11: Float
            if x0 >= 0 && y0 >= 0 && x0 < maskWidth - 1 && y0 < maskHeight - 1 {
                let q = m + y0 * maskWidth + x0
                (v00, v01, v10, v11) = (q[0], q[1], q[maskWidth], q[maskWidth + 1])
            } else {
                (v00, v01, v10, v11) = (read(x0, y0), read(x0 + 1, y0), read(x0, y0 + 1), read(x0 + 1, y0 + 1))
            }
            let top = v00 + (v01 - v00) * ax
            let bottom = v10 + (v11 - v10) * ax
            row[px] = top + (bottom - top) * ay
        }
    }

    /// The whole warp.
    /// - Parameters:
    ///   - mask: `maskWidth × maskHeight` floats, row-major.
    ///   - crop: the rect the model's input was sampled from, letterbox expansion included, in source pixels.
    ///   - imageWidth, imageHeight: the source image's size.
    ///   - output: a `.oneComponent32Float` buffer of the target size.
    /// - Complexity: O(target pixels).
    static func warp(
        mask: UnsafeBufferPointer<Float>, maskWidth: Int, maskHeight: Int, crop: RotatedRect, imageWidth: Int,
        imageHeight: Int, into output: inout PixelBuffer
    ) {
        precondition(output.format == .oneComponent32Float, "mask output must be .oneComponent32Float")
        precondition(mask.count >= maskWidth * maskHeight, "mask is too small")
        let warp = ROIMaskWarp(
            maskWidth: maskWidth, maskHeight: maskHeight, crop: crop, imageWidth: imageWidth, imageHeight: imageHeight,
            width: output.width, height: output.height)
        let stride = output.bytesPerRow() / MemoryLayout<Float>.stride, th = output.height
        output.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress!.assumingMemoryBound(to: Float.self)
            for py in 0..<th { warp.row(py, of: mask.baseAddress!, into: out + py * stride) }
        }
    }
}

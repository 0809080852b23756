import PVImaging

/// Warps a mask that a model produced for a crop back onto the image (MODELS.md §11.7, segmentation).
///
/// Output pixel `(px, py)` of a `width × height` target covering the whole source image maps to the
/// image-normalized point `(px/width, py/height)`, through the **inverse** of the crop transform to
/// the crop-normalized `(u, v)`, and reads the mask bilinearly at `(u·maskWidth, v·maskHeight)`
/// (no half-pixel terms, as MediaPipe's OpenCV runner); mask cells outside the mask read 0.
enum ROIMaskWarp {
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
        let tw = output.width, th = output.height
        // Target pixel → image pixel → crop-normalized → mask cell, all affine: origin and steps.
        let sx = Double(imageWidth) / Double(tw), sy = Double(imageHeight) / Double(th)
        let o = crop.normalizedPoint(fromImage: .zero)
        let ex = crop.normalizedPoint(fromImage: SIMD2(sx, 0)) - o
        let ey = crop.normalizedPoint(fromImage: SIMD2(0, sy)) - o
        let mw = Double(maskWidth), mh = Double(maskHeight)
        let scale = SIMD2(mw, mh)
        let origin = o * scale, colStep = ex * scale, rowStep = ey * scale
        let stride = output.bytesPerRow() / MemoryLayout<Float>.stride
        let m = mask.baseAddress!
        @inline(__always) func read(_ x: Int, _ y: Int) -> Float {
            x >= 0 && y >= 0 && x < maskWidth && y < maskHeight ? m[y * maskWidth + x] : 0
        }
        output.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress!.assumingMemoryBound(to: Float.self)
            for py in 0..<th {
                var p = origin + rowStep * Double(py)
                let row = out + py * stride
                for px in 0..<tw {
                    defer { p += colStep }
                    // Fully outside (including the one-cell bilinear fringe): 0.
                    guard p.x > -1, p.y > -1, p.x < mw, p.y < mh else {
                        row[px] = 0
                        continue
                    }
                    let fx = p.x.rounded(.down), fy = p.y.rounded(.down)
                    let x0 = Int(fx), y0 = Int(fy)
                    let ax = Float(p.x - fx), ay = Float(p.y - fy)
                    let v00 = read(x0, y0), v01 = read(x0 + 1, y0), v10 = read(x0, y0 + 1), v11 = read(x0 + 1, y0 + 1)
                    let top = v00 + (v01 - v00) * ax
                    let bottom = v10 + (v11 - v10) * ax
                    row[px] = top + (bottom - top) * ay
                }
            }
        }
    }
}

import CImageKernels

extension PixelBuffer {
    /// Whether ``bilinear8(into:)`` handles this buffer: one plane of 8-bit samples, 1, 3 or 4 per pixel,
    /// at least two pixels wide (the kernel reads both horizontal taps as neighbours).
    var supportsBilinear8: Bool {
        switch format {
        case .oneComponent8, .rgb24, .rgba32, .bgra32, .argb32: return width >= 2
        default: return false
        }
    }

    /// Bilinear resampling of an 8-bit buffer into `destination` (same format) at half-pixel centres, in
    /// fixed point (`cik_resize_bilinear_u8`: 11-bit weights, within 1 LSB of the exact formula). Only the
    /// two source rows each output row needs are read, so shrinking a frame to a model or preview size
    /// touches a fraction of it. Large outputs are split into row bands across the imaging threads.
    func bilinear8(into destination: inout PixelBuffer) {
        let sw = width, sh = height, dw = destination.width, dh = destination.height
        let channels = format.bytesPerPixel
        let one = Double(1 << CIK_RESIZE_BITS)
        var xofs = [Int32](repeating: 0, count: dw), xw = [Int16](repeating: 0, count: 8 * dw)
        let sx = Double(sw) / Double(dw)
        for d in 0..<dw {
            let s = min(max((Double(d) + 0.5) * sx - 0.5, 0), Double(sw - 1))
            // The kernel reads the pixel right of x0, so the last column is its left neighbour at weight 1.
            let x0 = min(Int(s), sw - 2)
            let w1 = Int16((s - Double(x0)) * one + 0.5)
            xofs[d] = Int32(x0 * channels)
            for k in 0..<4 {
                xw[8 * d + 2 * k] = Int16(one) - w1
                xw[8 * d + 2 * k + 1] = w1
            }
        }
        var yofs = [Int32](repeating: 0, count: dh), yw = [Int16](repeating: 0, count: dh)
        let sy = Double(sh) / Double(dh)
        for d in 0..<dh {
            let s = min(max((Double(d) + 0.5) * sy - 0.5, 0), Double(sh - 1))
            let y0 = Int(s)
            yofs[d] = Int32(y0)
            yw[d] = Int16((s - Double(y0)) * one + 0.5)
        }
        let srcStride = bytesPerRow(), dstStride = destination.bytesPerRow()
        let scratchCount = 2 * (dw * channels + 4)
        withUnsafeBytes { src in
            destination.withUnsafeMutableBytes { dst in
                let s = src.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let d = dst.baseAddress!.assumingMemoryBound(to: UInt8.self)
                // Bands write disjoint output rows; the tables are only read.
                ImagingThreads.forEachBand(rows: dh, workPerRow: dw * channels * 2) { rows in
                    withUnsafeTemporaryAllocation(of: Int32.self, capacity: scratchCount) { scratch in
                        cik_resize_bilinear_u8(
                            s, srcStride, Int32(sw), Int32(sh), Int32(channels), d + rows.lowerBound * dstStride,
                            dstStride, Int32(dw), Int32(rows.lowerBound), Int32(rows.count), xofs, xw, yofs, yw,
                            scratch.baseAddress!)
                    }
                }
            }
        }
    }
}

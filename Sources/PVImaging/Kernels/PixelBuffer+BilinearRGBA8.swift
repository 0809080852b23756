import CImageKernels

extension PixelBuffer {
    /// Bilinear resampling of a 4-channel 8-bit buffer into `destination` (same format), two taps per axis at
    /// half-pixel centres. Only the two source rows each output row needs are read, so shrinking a frame to a
    /// model or preview size touches a fraction of it; the inner loop is C (`cimg_bilinear_rgba8`).
    func bilinearRGBA8(into destination: inout PixelBuffer) {
        let sw = width, dw = destination.width
        let sx = Float(sw) / Float(dw)
        var x0 = [Int32](repeating: 0, count: dw), x1 = x0, ax = [Float](repeating: 0, count: dw)
        for d in 0..<dw {
            let s = min(max((Float(d) + 0.5) * sx - 0.5, 0), Float(sw - 1))
            let i = Int(s)
            x0[d] = Int32(4 * i)
            x1[d] = Int32(4 * min(i + 1, sw - 1))
            ax[d] = s - Float(i)
        }
        let srcStride = bytesPerRow(), dstStride = destination.bytesPerRow(), dh = destination.height
        let scaleY = Float(height) / Float(dh), sh = Int32(height)
        withUnsafeBytes { src in
            destination.withUnsafeMutableBytes { dst in
                cimg_bilinear_rgba8(
                    src.baseAddress!.assumingMemoryBound(to: UInt8.self), srcStride, sh,
                    dst.baseAddress!.assumingMemoryBound(to: UInt8.self), dstStride, Int32(dw), Int32(dh), x0, x1, ax,
                    scaleY)
            }
        }
    }
}

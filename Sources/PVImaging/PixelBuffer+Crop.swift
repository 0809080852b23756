import PVCore
extension PixelBuffer {
    /// A copy of the rectangle `x, y, width, height` (pixels, top-left origin).
    ///
    /// For 4:2:0 formats the origin is rounded down to even coordinates so chroma stays aligned.
    /// - Throws: ``ImagingError`` `.invalidArgument` when the rectangle is empty or not inside the buffer.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) throws -> PixelBuffer {
        guard w > 0, h > 0, x >= 0, y >= 0, x + w <= width, y + h <= height else {
            throw ImagingError(.invalidArgument, "crop \(x),\(y) \(w)×\(h) is not inside a \(width)×\(height) image")
        }
        let sub = format.planeCount == 2 ? 2 : 1
        let x0 = x / sub * sub, y0 = y / sub * sub
        var out = try PixelBuffer(width: w, height: h, format: format)
        for plane in 0..<planeCount {
            let bpp = plane == 0 ? format.bytesPerPixel : 2
            let px = plane == 0 ? x0 : x0 / 2, py = plane == 0 ? y0 : y0 / 2
            let rows = out.planeHeight(plane), rowBytes = out.planeWidth(plane) * bpp
            let srcStride = bytesPerRow(plane: plane), dstStride = out.bytesPerRow(plane: plane)
            withUnsafeBytes(plane: plane) { src in
                out.withUnsafeMutableBytes(plane: plane) { dst in
                    for r in 0..<rows {
                        let s = src.baseAddress! + (py + r) * srcStride + px * bpp
                        (dst.baseAddress! + r * dstStride).copyMemory(from: s, byteCount: rowBytes)
                    }
                }
            }
        }
        return out
    }
}

extension PixelBuffer {
    /// This image (as RGBA) pasted with its top-left corner at each of `positions` onto a new `width × height` RGBA
    /// canvas whose every byte is `fill` (for test and benchmark pictures built from the sample images).
    /// - Throws: ``ImagingError`` `.invalidArgument` when a copy would not lie inside the canvas.
    package func pasted(onto width: Int, _ height: Int, at positions: [(x: Int, y: Int)], fill: UInt8 = 128) throws
        -> PixelBuffer
    {
        let src = try converted(to: .rgba32)
        for (x, y) in positions where x < 0 || y < 0 || x + src.width > width || y + src.height > height {
            throw ImagingError(.invalidArgument, "a \(src.width)×\(src.height) image at (\(x), \(y)) leaves a \(width)×\(height) canvas")
        }
        var canvas = try PixelBuffer(width: width, height: height, format: .rgba32)
        canvas.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: fill) }
        let s = src.bytesPerRow(), d = canvas.bytesPerRow()
        src.withUnsafeBytes { sp in
            canvas.withUnsafeMutableBytes { dp in
                for (x, y) in positions {
                    for row in 0..<src.height {
                        (dp.baseAddress! + (y + row) * d + 4 * x).copyMemory(from: sp.baseAddress! + row * s, byteCount: 4 * src.width)
                    }
                }
            }
        }
        return canvas
    }
}

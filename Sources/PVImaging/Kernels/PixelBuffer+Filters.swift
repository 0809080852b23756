#if canImport(Glibc)
import Glibc
import PVCore
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PixelBuffer {
    /// The mean over a `(2·radius + 1)²` window, clipped to the image: near an edge the mean is over
    /// the pixels that exist (the normalisation of He et al.'s guided filter).
    ///
    /// One-component formats and 8-bit RGB-like formats (every channel, alpha included) are
    /// supported. Running sums make the cost independent of the radius.
    ///
    /// - Complexity: O(width·height) for any radius; one row of scratch per thread.
    /// - Throws: ``ImagingError`` `.invalidArgument` for a negative radius, `.unsupportedPixelFormat` for YUV.
    public func boxFiltered(radius: Int) throws -> PixelBuffer {
        guard radius >= 0 else { throw ImagingError(.invalidArgument, "box radius \(radius) must be ≥ 0") }
        guard !format.isYUV420 else { throw ImagingError.unsupported("box filter", format) }
        var out = try makeSibling(format: format)
        let kind = ResampleElementKind(format)
        withPlanes { s, _ in
            out.withMutablePlanes { d, _ in
                switch kind.element {
                case .uint8: boxFilter(UInt8Loader.self, s, d, channels: kind.channels, radius: radius)
                case .half: boxFilter(HalfLoader.self, s, d, channels: 1, radius: radius)
                case .float: boxFilter(FloatLoader.self, s, d, channels: 1, radius: radius)
                }
            }
        }
        return out
    }

    /// A Gaussian blur with standard deviation `sigma` pixels, separable, edges extended (replicate).
    ///
    /// The kernel spans `radius` pixels each side (default `ceil(3·sigma)`) and is normalised to sum 1.
    /// Every format is supported; 4:2:0 planes are blurred separately (chroma with `sigma/2`).
    ///
    /// - Complexity: O(width·height·radius).
    /// - Throws: ``ImagingError`` `.invalidArgument` for a negative or non-finite sigma or a negative radius.
    public func gaussianBlurred(sigma: Float, radius: Int? = nil) throws -> PixelBuffer {
        guard sigma.isFinite, sigma >= 0 else {
            throw ImagingError(.invalidArgument, "Gaussian sigma \(sigma) must be finite and ≥ 0")
        }
        let r = radius ?? Int((3 * sigma).rounded(.up))
        guard r >= 0, r <= 4096 else { throw ImagingError(.invalidArgument, "Gaussian radius \(r) must be in 0…4096") }
        if r == 0 || sigma == 0 { return self }
        var out = try makeSibling(format: format)
        let kind = ResampleElementKind(format)
        withPlanes { s0, s1 in
            out.withMutablePlanes { d0, d1 in
                convolvePlane(s0, d0, channels: kind.channels, kind: kind.element, kernel: gaussianKernel(sigma: sigma, radius: r))
                if let s1, let d1 {
                    let cr = max(1, r / 2)
                    convolvePlane(s1, d1, channels: 2, kind: .uint8, kernel: gaussianKernel(sigma: sigma / 2, radius: cr))
                }
            }
        }
        return out
    }
}

/// Normalised Gaussian weights for offsets `-radius…radius`.
func gaussianKernel(sigma: Float, radius: Int) -> [Float] {
    let s = Double(max(sigma, 1e-6))
    var k = (-radius...radius).map { exp(-Double($0 * $0) / (2 * s * s)) }
    let sum = k.reduce(0, +)
    k = k.map { $0 / sum }
    return k.map(Float.init)
}

extension ResampleTaps {
    /// Same-size convolution taps with replicate edges: weights that fall outside are folded onto the
    /// edge sample, so every output's taps stay contiguous.
    init(convolution kernel: [Float], size: Int) {
        let r = kernel.count / 2
        let maxTaps = min(kernel.count, size)
        var starts = [Int](repeating: 0, count: size)
        var counts = [Int](repeating: 0, count: size)
        var weights = [Float](repeating: 0, count: size * maxTaps)
        for d in 0..<size {
            let lo = max(0, d - r), hi = min(size - 1, d + r)
            starts[d] = lo
            counts[d] = hi - lo + 1
            for (i, w) in kernel.enumerated() {
                let k = min(max(d - r + i, 0), size - 1)
                weights[d * maxTaps + k - lo] += w
            }
        }
        self.init(starts: starts, counts: counts, weights: weights, maxTaps: maxTaps)
    }
}

/// Separable same-size convolution of one plane.
func convolvePlane(_ src: PlaneView, _ dst: MutablePlaneView, channels: Int, kind: ResampleScalar, kernel: [Float]) {
    let xs = ResampleTaps(convolution: kernel, size: src.width)
    let ys = ResampleTaps(convolution: kernel, size: src.height)
    let k = kernel
    switch (kind, channels) {
    case (.uint8, 4): SeparableResampler<UInt8Loader, Channels4>(src: src, dst: dst, xs: xs, ys: ys, horizontalKernel: k).run()
    case (.uint8, 1): SeparableResampler<UInt8Loader, Channels1>(src: src, dst: dst, xs: xs, ys: ys, horizontalKernel: k).run()
    case (.uint8, 2): SeparableResampler<UInt8Loader, Channels2>(src: src, dst: dst, xs: xs, ys: ys, horizontalKernel: k).run()
    case (.uint8, _): SeparableResampler<UInt8Loader, Channels3>(src: src, dst: dst, xs: xs, ys: ys, horizontalKernel: k).run()
    case (.half, _): SeparableResampler<HalfLoader, Channels1>(src: src, dst: dst, xs: xs, ys: ys, horizontalKernel: k).run()
    case (.float, _): SeparableResampler<FloatLoader, Channels1>(src: src, dst: dst, xs: xs, ys: ys, horizontalKernel: k).run()
    }
}

/// Clipped-window mean with running sums: a column-sum row updated per output row (vectorisable),
/// then a running sum along the row. `channels` samples per pixel are interleaved.
func boxFilter<L: SampleLoader>(
    _: L.Type, _ src: PlaneView, _ dst: MutablePlaneView, channels c: Int, radius r: Int
) {
    let w = src.width, h = src.height, n = w * c
    ImagingThreads.forEachBand(rows: h, workPerRow: n * 4) { band in
        withUnsafeTemporaryAllocation(of: Float.self, capacity: n * 2) { scratch in
            let colSum = scratch.baseAddress!, rowOut = colSum + n
            colSum.update(repeating: 0, count: n)
            let first = band.lowerBound
            for yy in max(0, first - r)...min(h - 1, first + r) {
                let row = src.row(yy)
                for i in 0..<n { colSum[i] += L.load(row, i) }
            }
            var y = band.lowerBound
            // One channel: each row's horizontal pass is one chain of dependent adds, so eight consecutive rows run
            // as the eight lanes of a vector (each lane does exactly its row's arithmetic, in the same order).
            if c == 1 {
                withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: w) { lanes in
                    let col8 = lanes.baseAddress!
                    while y + 8 <= band.upperBound {
                        for k in 0..<8 {
                            if k > 0 { slide(from: y + k - 1) }
                            for x in 0..<w { col8[x][k] = colSum[x] }
                        }
                        var invRows = SIMD8<Float>(repeating: 0)
                        for k in 0..<8 { invRows[k] = 1 / Float(min(h - 1, y + k + r) - max(0, y + k - r) + 1) }
                        var acc = SIMD8<Float>(repeating: 0)
                        for x in 0...min(w - 1, r) { acc += col8[x] }
                        let interiorStart = min(r + 1, w), interiorEnd = max(interiorStart, w - r - 1)
                        let invFull = invRows / Float(2 * r + 1)
                        let outs = (0..<8).map { dst.row(y + $0) }
                        @inline(__always) func put(_ x: Int, _ v: SIMD8<Float>) {
                            for k in 0..<8 { L.store(outs[k], x, v[k]) }
                        }
                        @inline(__always) func edge(_ x: Int) {
                            let cols = min(w - 1, x + r) - max(0, x - r) + 1
                            put(x, acc * (invRows / Float(cols)))
                            let add = x + r + 1, sub = x - r
                            var d = SIMD8<Float>(repeating: 0)
                            if add < w { d += col8[add] }
                            if sub >= 0 { d -= col8[sub] }
                            acc += d
                        }
                        for x in 0..<interiorStart { edge(x) }
                        for x in interiorStart..<interiorEnd {
                            put(x, acc * invFull)
                            acc += col8[x &+ r &+ 1] - col8[x &- r]  // the difference first, off the chain
                        }
                        for x in interiorEnd..<w { edge(x) }
                        if y + 8 < band.upperBound { slide(from: y + 7) }
                        y += 8
                    }
                }
            }
            // Slides the column window from row `from` down to the next row.
            func slide(from row: Int) {
                if row + r + 1 < h {
                    let add = src.row(row + r + 1)
                    for i in 0..<n { colSum[i] += L.load(add, i) }
                }
                if row - r >= 0 {
                    let sub = src.row(row - r)
                    for i in 0..<n { colSum[i] -= L.load(sub, i) }
                }
            }
            for y in y..<band.upperBound {
                let rowsCount = min(h - 1, y + r) - max(0, y - r) + 1
                let invRows: Float = 1 / Float(rowsCount)
                // Horizontal running window over the column sums. The difference entering the window
                // is formed off the dependency chain, so each step costs one add on it.
                for ch in 0..<c {
                    var acc: Float = 0
                    for x in 0...min(w - 1, r) { acc += colSum[x &* c &+ ch] }
                    let interiorStart = min(r + 1, w), interiorEnd = max(interiorStart, w - r - 1)
                    let invFull: Float = invRows / Float(2 * r + 1)
                    @inline(__always) func edge(_ x: Int) {
                        let cols = min(w - 1, x + r) - max(0, x - r) + 1
                        rowOut[x &* c &+ ch] = acc * (invRows / Float(cols))
                        let add = x + r + 1, sub = x - r
                        var d: Float = 0
                        if add < w { d += colSum[add &* c &+ ch] }
                        if sub >= 0 { d -= colSum[sub &* c &+ ch] }
                        acc += d
                    }
                    for x in 0..<interiorStart { edge(x) }
                    for x in interiorStart..<interiorEnd {
                        rowOut[x &* c &+ ch] = acc * invFull
                        acc += colSum[(x &+ r &+ 1) &* c &+ ch] - colSum[(x &- r) &* c &+ ch]
                    }
                    for x in interiorEnd..<w { edge(x) }
                }
                let out = dst.row(y)
                for i in 0..<n { L.store(out, i, rowOut[i]) }
                // Slide the column window down one row.
                if y + 1 < band.upperBound { slide(from: y) }
            }
        }
    }
}

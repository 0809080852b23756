#if canImport(Glibc)
import Glibc
import PVCore
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How ``PixelBuffer/resized(width:height:method:)`` computes each output pixel.
public enum ResamplingMethod: Sendable, Hashable, CaseIterable {
    /// Two taps per axis at half-pixel centres: `src = (dst + 0.5)·scale − 0.5`, clamped to the
    /// edge (MODELS.md §11.5). Like OpenCV's `INTER_LINEAR`; it does not low-pass when shrinking.
    case bilinear
    /// Box average of the covered source area when shrinking (OpenCV's `INTER_AREA`, with fractional
    /// coverage at the box ends); bilinear along an axis that grows.
    case area
    /// Lanczos windowed sinc with a = 3, widened by the scale when shrinking (as Pillow does),
    /// normalised to sum 1. May overshoot; 8-bit results are clamped.
    case lanczos3
}

/// Per-axis filter taps: output index `d` reads source indices `starts[d] ..< starts[d] + counts[d]`
/// with weights `weights[d·maxTaps ..< d·maxTaps + counts[d]]`, which sum to 1.
struct ResampleTaps {
    var starts: [Int]
    var counts: [Int]
    var weights: [Float]
    var maxTaps: Int

    init(method: ResamplingMethod, source: Int, destination: Int) {
        precondition(source > 0 && destination > 0)
        let scale = Double(source) / Double(destination)
        switch method {
        case .area where scale > 1:
            self.init(source: source, destination: destination, maxTaps: Int(scale.rounded(.up)) + 1) { d, emit in
                let lo = Double(d) * scale, hi = min(Double(d + 1) * scale, Double(source))
                var k = Int(lo)
                while Double(k) < hi && k < source {
                    let overlap = min(Double(k + 1), hi) - max(Double(k), lo)
                    if overlap > 1e-12 { emit(k, overlap) }
                    k += 1
                }
            }
        case .lanczos3:
            let filterScale = max(scale, 1)
            let support = 3 * filterScale
            self.init(
                source: source, destination: destination, maxTaps: Int((2 * support).rounded(.up)) + 2
            ) { d, emit in
                let center = (Double(d) + 0.5) * scale
                let lo = max(0, Int((center - support + 0.5).rounded(.down)))
                let hi = min(source, Int((center + support + 0.5).rounded(.down)))
                for k in lo..<max(lo, hi) {
                    let x = (Double(k) + 0.5 - center) / filterScale
                    let w = lanczos3(x)
                    if w != 0 { emit(k, w) }
                }
                if hi <= lo { emit(min(max(Int(center), 0), source - 1), 1) }
            }
        case .bilinear, .area:
            self.init(source: source, destination: destination, maxTaps: 2) { d, emit in
                let s = min(max((Double(d) + 0.5) * scale - 0.5, 0), Double(source - 1))
                let x0 = Int(s)
                let a = s - Double(x0)
                emit(x0, 1 - a)
                if a > 0 && x0 + 1 < source { emit(x0 + 1, a) }
            }
        }
    }

    init(starts: [Int], counts: [Int], weights: [Float], maxTaps: Int) {
        self.starts = starts
        self.counts = counts
        self.weights = weights
        self.maxTaps = maxTaps
    }

    private init(
        source: Int, destination: Int, maxTaps: Int, _ taps: (Int, (Int, Double) -> Void) -> Void
    ) {
        self.maxTaps = maxTaps
        starts = [Int](repeating: 0, count: destination)
        counts = [Int](repeating: 0, count: destination)
        weights = [Float](repeating: 0, count: destination * maxTaps)
        var idx = [Int](), ws = [Double]()
        for d in 0..<destination {
            idx.removeAll(keepingCapacity: true)
            ws.removeAll(keepingCapacity: true)
            taps(d) { k, w in
                idx.append(k)
                ws.append(w)
            }
            // Renormalise and store contiguous from the first index.
            let sum = ws.reduce(0, +)
            let first = idx.first!
            starts[d] = first
            let n = idx.last! - first + 1
            precondition(n <= maxTaps)
            counts[d] = n
            for (k, w) in zip(idx, ws) { weights[d * maxTaps + k - first] = Float(w / sum) }
        }
    }
}

@inline(__always)
package func lanczos3(_ x: Double) -> Double {
    let ax = abs(x)
    if ax < 1e-9 { return 1 }
    if ax >= 3 { return 0 }
    let px = Double.pi * x
    return 3 * sin(px) * sin(px / 3) / (px * px)
}

extension PixelBuffer {
    /// A copy resampled to `width × height`.
    ///
    /// Supported: every format. Interleaved formats filter each channel alike (alpha included, not
    /// premultiplied); 4:2:0 formats resample the luma plane and the CbCr plane separately.
    /// 8-bit results are rounded and clamped; half and float results are not clamped.
    ///
    /// ```swift
    /// let mask = try lowResMask.resized(width: image.width, height: image.height)   // bilinear
    /// ```
    /// - Complexity: O(width·height·taps + sourceRows·width·taps); scratch of a few rows.
    /// - Throws: ``ImagingError`` `.invalidDimensions`/`.tooLarge` for a bad size.
    public func resized(width: Int, height: Int, method: ResamplingMethod = .bilinear) throws -> PixelBuffer {
        // Every method writes every output pixel.
        var out = try PixelBuffer(uninitializedWidth: width, height: height, format: format)
        try resize(into: &out, method: method)
        return out
    }

    /// Resamples this buffer into `destination`, which keeps its size and must have this buffer's format.
    /// Reusing the destination avoids allocating per frame.
    /// - Throws: ``ImagingError`` `.invalidArgument` when the formats differ.
    public func resize(into destination: inout PixelBuffer, method: ResamplingMethod = .bilinear) throws {
        guard destination.format == format else {
            throw ImagingError(
                .invalidArgument, "resize needs one format, got \(format) into \(destination.format); convert first")
        }
        if method == .bilinear, supportsBilinear8 {
            bilinear8(into: &destination)
            return
        }
        let kind = ResampleElementKind(format)
        withPlanes { s0, s1 in
            destination.withMutablePlanes { d0, d1 in
                resamplePlane(s0, d0, channels: kind.channels, kind: kind.element, method: method)
                if let s1, let d1 {
                    resamplePlane(s1, d1, channels: 2, kind: .uint8, method: method)
                }
            }
        }
    }
}

enum ResampleScalar { case uint8, half, float }

struct ResampleElementKind {
    let channels: Int
    let element: ResampleScalar

    init(_ format: PixelFormat) {
        switch format {
        case .oneComponent8, .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange: (channels, element) = (1, .uint8)
        case .oneComponent16Half: (channels, element) = (1, .half)
        case .oneComponent32Float: (channels, element) = (1, .float)
        case .rgba32, .bgra32, .argb32: (channels, element) = (4, .uint8)
        case .rgb24: (channels, element) = (3, .uint8)
        }
    }
}

/// Resamples one plane of `channels` interleaved samples per pixel.
func resamplePlane(
    _ src: PlaneView, _ dst: MutablePlaneView, channels: Int, kind: ResampleScalar, method: ResamplingMethod
) {
    let elementSize: Int
    switch kind {
    case .uint8: elementSize = 1
    case .half: elementSize = 2
    case .float: elementSize = 4
    }
    if src.width == dst.width && src.height == dst.height {
        let n = src.width * channels * elementSize
        for y in 0..<src.height { dst.row(y).copyMemory(from: src.row(y), byteCount: n) }
        return
    }
    let xs = ResampleTaps(method: method, source: src.width, destination: dst.width)
    let ys = ResampleTaps(method: method, source: src.height, destination: dst.height)
    switch (kind, channels) {
    case (.uint8, 4): SeparableResampler<UInt8Loader, Channels4>(src: src, dst: dst, xs: xs, ys: ys).run()
    case (.uint8, 1): SeparableResampler<UInt8Loader, Channels1>(src: src, dst: dst, xs: xs, ys: ys).run()
    case (.uint8, 2): SeparableResampler<UInt8Loader, Channels2>(src: src, dst: dst, xs: xs, ys: ys).run()
    case (.uint8, _): SeparableResampler<UInt8Loader, Channels3>(src: src, dst: dst, xs: xs, ys: ys).run()
    case (.half, _): SeparableResampler<HalfLoader, Channels1>(src: src, dst: dst, xs: xs, ys: ys).run()
    case (.float, _): SeparableResampler<FloatLoader, Channels1>(src: src, dst: dst, xs: xs, ys: ys).run()
    }
}

// MARK: - Generic separable engine

protocol SampleLoader {
    static func load(_ p: UnsafeRawPointer, _ i: Int) -> Float
    static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: Float)
}
enum UInt8Loader: SampleLoader {
    @inline(__always) static func load(_ p: UnsafeRawPointer, _ i: Int) -> Float {
        Float(p.load(fromByteOffset: i, as: UInt8.self))
    }
    @inline(__always) static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: Float) {
        p.storeBytes(of: clampToByte(v), toByteOffset: i, as: UInt8.self)
    }
}
enum HalfLoader: SampleLoader {
    @inline(__always) static func load(_ p: UnsafeRawPointer, _ i: Int) -> Float {
        Float(p.assumingMemoryBound(to: Float16.self)[i])
    }
    @inline(__always) static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: Float) {
        p.assumingMemoryBound(to: Float16.self)[i] = Float16(v)
    }
}
enum FloatLoader: SampleLoader {
    @inline(__always) static func load(_ p: UnsafeRawPointer, _ i: Int) -> Float {
        p.assumingMemoryBound(to: Float.self)[i]
    }
    @inline(__always) static func store(_ p: UnsafeMutableRawPointer, _ i: Int, _ v: Float) {
        p.assumingMemoryBound(to: Float.self)[i] = v
    }
}

extension ResampleTaps {
    /// Runs `body` with the taps as a table of pointers, valid for the call.
    func withTable<R>(_ body: (TapTable) -> R) -> R {
        starts.withUnsafeBufferPointer { s in
            counts.withUnsafeBufferPointer { c in
                weights.withUnsafeBufferPointer { w in
                    body(TapTable(starts: s.baseAddress!, counts: c.baseAddress!, weights: w.baseAddress!, maxTaps: maxTaps, count: starts.count))
                }
            }
        }
    }
}

/// Unsafe view of a ``ResampleTaps`` for the inner loops.
struct TapTable {
    let starts: UnsafePointer<Int>
    let counts: UnsafePointer<Int>
    let weights: UnsafePointer<Float>
    let maxTaps: Int
    let count: Int
}

/// A compile-time channel count and the horizontal tap loop for it.
protocol ChannelCount {
    static var count: Int { get }
    static func filterRow<L: SampleLoader>(
        _ row: UnsafeRawPointer, _ out: UnsafeMutablePointer<Float>, _ xs: TapTable, loader: L.Type)
}

enum Channels1: ChannelCount {
    static var count: Int { 1 }
    @inline(__always) static func filterRow<L: SampleLoader>(
        _ row: UnsafeRawPointer, _ out: UnsafeMutablePointer<Float>, _ xs: TapTable, loader: L.Type
    ) {
        for d in 0..<xs.count {
            let s = xs.starts[d], n = xs.counts[d]
            let w = xs.weights + d &* xs.maxTaps
            var acc: Float = 0
            for k in 0..<n { acc += w[k] * L.load(row, s &+ k) }
            out[d] = acc
        }
    }
}
enum Channels2: ChannelCount {
    static var count: Int { 2 }
    @inline(__always) static func filterRow<L: SampleLoader>(
        _ row: UnsafeRawPointer, _ out: UnsafeMutablePointer<Float>, _ xs: TapTable, loader: L.Type
    ) {
        for d in 0..<xs.count {
            let s = xs.starts[d], n = xs.counts[d]
            let w = xs.weights + d &* xs.maxTaps
            var a0: Float = 0, a1: Float = 0
            for k in 0..<n {
                let i = (s &+ k) &* 2
                a0 += w[k] * L.load(row, i)
                a1 += w[k] * L.load(row, i &+ 1)
            }
            out[2 &* d] = a0
            out[2 &* d &+ 1] = a1
        }
    }
}
enum Channels3: ChannelCount {
    static var count: Int { 3 }
    @inline(__always) static func filterRow<L: SampleLoader>(
        _ row: UnsafeRawPointer, _ out: UnsafeMutablePointer<Float>, _ xs: TapTable, loader: L.Type
    ) {
        for d in 0..<xs.count {
            let s = xs.starts[d], n = xs.counts[d]
            let w = xs.weights + d &* xs.maxTaps
            var acc = SIMD4<Float>(repeating: 0)
            for k in 0..<n {
                let i = (s &+ k) &* 3
                let p = SIMD4<Float>(L.load(row, i), L.load(row, i &+ 1), L.load(row, i &+ 2), 0)
                acc += p * w[k]
            }
            out[3 &* d] = acc[0]
            out[3 &* d &+ 1] = acc[1]
            out[3 &* d &+ 2] = acc[2]
        }
    }
}
enum Channels4: ChannelCount {
    static var count: Int { 4 }
    @inline(__always) static func filterRow<L: SampleLoader>(
        _ row: UnsafeRawPointer, _ out: UnsafeMutablePointer<Float>, _ xs: TapTable, loader: L.Type
    ) {
        let out4 = UnsafeMutableRawPointer(out).assumingMemoryBound(to: SIMD4<Float>.self)
        for d in 0..<xs.count {
            let s = xs.starts[d], n = xs.counts[d]
            let w = xs.weights + d &* xs.maxTaps
            var acc = SIMD4<Float>(repeating: 0)
            for k in 0..<n {
                let i = (s &+ k) &* 4
                let p = SIMD4<Float>(L.load(row, i), L.load(row, i &+ 1), L.load(row, i &+ 2), L.load(row, i &+ 3))
                acc += p * w[k]
            }
            out4[d] = acc
        }
    }
}

/// Horizontal pass into a small ring of filtered rows, vertical pass from the ring, per band of
/// output rows. The ring holds `ys.maxTaps` rows, so memory stays in cache whatever the sizes.
struct SeparableResampler<L: SampleLoader, C: ChannelCount> {
    let src: PlaneView
    let dst: MutablePlaneView
    let xs: ResampleTaps
    let ys: ResampleTaps
    /// When set, the horizontal pass is this same-size kernel (odd length, replicate edges), run as
    /// vectorisable multiply-adds over a padded float row instead of per-output tap lists.
    var horizontalKernel: [Float]? = nil

    func run() { run(sink: nil) }

    /// Runs the filter, handing each finished float row (`dst.width × C` values) to `sink` instead
    /// of storing it into `dst` when `sink` is set. `sink` is called from several threads at once,
    /// each with distinct rows.
    func run(sink: ((Int, UnsafeMutablePointer<Float>) -> Void)?) {
        let rowFloats = dst.width * C.count
        let slots = ys.maxTaps
        let work = rowFloats * (xs.maxTaps + ys.maxTaps)
        xs.withTable { xt in
            ys.withTable { yt in
                ImagingThreads.forEachBand(rows: dst.height, workPerRow: work) { band in
                    runBand(band, xt, yt, rowFloats: rowFloats, slots: slots, sink: sink)
                }
            }
        }
    }

    @inline(__always)
    private func runBand(
        _ band: Range<Int>, _ xt: TapTable, _ yt: TapTable, rowFloats: Int, slots: Int,
        sink: ((Int, UnsafeMutablePointer<Float>) -> Void)?
    ) {
        // Pad each ring row to a multiple of 16 floats to keep them 64-byte aligned.
        let stride = (rowFloats + 15) & ~15
        let kr = (horizontalKernel?.count ?? 1) / 2
        let padded = (src.width + 2 * kr) * C.count
        withUnsafeTemporaryAllocation(of: Float.self, capacity: stride * (slots + 1) + padded + 16) { scratch in
            let base = UnsafeMutableRawPointer(scratch.baseAddress!)
            let ring = base.alignedUp(toMultipleOf: 64).assumingMemoryBound(to: Float.self)
            let acc = ring + stride * slots
            let pad = acc + stride
            withUnsafeTemporaryAllocation(of: Int.self, capacity: slots) { slotRow in
                slotRow.initialize(repeating: -1)
                for oy in band {
                    let s = yt.starts[oy], n = yt.counts[oy]
                    let w = yt.weights + oy &* yt.maxTaps
                    for k in 0..<n {
                        let r = s &+ k
                        let slot = r % slots
                        if slotRow[slot] != r {
                            if let kernel = horizontalKernel {
                                convolveRow(src.row(r), ring + slot &* stride, kernel, pad: pad)
                            } else {
                                C.filterRow(src.row(r), ring + slot &* stride, xt, loader: L.self)
                            }
                            slotRow[slot] = r
                        }
                    }
                    if let sink {
                        combineRows(
                            into: nil, acc: acc, ring: ring, stride: stride, slots: slots, first: s, count: n,
                            weights: w, rowFloats: rowFloats)
                        sink(oy, acc)
                    } else {
                        combineRows(
                            into: dst.row(oy), acc: acc, ring: ring, stride: stride, slots: slots, first: s, count: n,
                            weights: w, rowFloats: rowFloats)
                    }
                }
            }
        }
    }

    /// Vertical combination over flat rows, four source rows per sweep; the last sweep stores
    /// straight to the destination. (One operator per statement keeps type checking fast.)
    @inline(__always)
    private func combineRows(
        into out: UnsafeMutableRawPointer?, acc: UnsafeMutablePointer<Float>, ring: UnsafeMutablePointer<Float>,
        stride: Int, slots: Int, first s: Int, count n: Int, weights w: UnsafePointer<Float>, rowFloats: Int
    ) {
        // Without a destination every sweep accumulates into `acc`.
        let o = out ?? UnsafeMutableRawPointer(acc)
        var k = 0
        while k < n {
            let m = min(4, n - k)
            let isFirst = k == 0
            let isLast = k + m == n && out != nil
            let r0 = ring + ((s &+ k) % slots) &* stride
            let r1 = ring + ((s &+ k &+ min(1, m - 1)) % slots) &* stride
            let r2 = ring + ((s &+ k &+ min(2, m - 1)) % slots) &* stride
            let r3 = ring + ((s &+ k &+ min(3, m - 1)) % slots) &* stride
            let w0: Float = w[k]
            let w1: Float = m > 1 ? w[k + 1] : 0
            let w2: Float = m > 2 ? w[k + 2] : 0
            let w3: Float = m > 3 ? w[k + 3] : 0
            // The taps after the first, added left to right: `v + w1·r1 + w2·r2 + w3·r3`.
            @inline(__always) func rest(_ v: Float, _ x: Int) -> Float {
                var v = v
                v += w1 * r1[x]
                v += w2 * r2[x]
                v += w3 * r3[x]
                return v
            }
            // Four loop variants chosen outside the loop so each one vectorises.
            switch (isFirst, isLast) {
            case (true, true): for x in 0..<rowFloats { L.store(o, x, rest(w0 * r0[x], x)) }
            case (true, false): for x in 0..<rowFloats { acc[x] = rest(w0 * r0[x], x) }
            case (false, false): for x in 0..<rowFloats { acc[x] = rest(acc[x] + w0 * r0[x], x) }
            case (false, true): for x in 0..<rowFloats { L.store(o, x, rest(acc[x] + w0 * r0[x], x)) }
            }
            k += m
        }
    }
}

extension SeparableResampler {
    /// `out[i] = Σ_k kernel[k]·row[i + (k − r)·C]` with the row extended by replicating its edge pixels.
    @inline(__always)
    func convolveRow(
        _ row: UnsafeRawPointer, _ out: UnsafeMutablePointer<Float>, _ kernel: [Float], pad: UnsafeMutablePointer<Float>
    ) {
        let c = C.count, w = src.width, r = kernel.count / 2, n = w * c
        let body = pad + r * c
        for i in 0..<n { body[i] = L.load(row, i) }
        for k in 0..<r {
            for ch in 0..<c {
                pad[k &* c &+ ch] = body[ch]
                body[n &+ k &* c &+ ch] = body[n &- c &+ ch]
            }
        }
        kernel.withUnsafeBufferPointer { kp in
            // Four taps per sweep over the row (one statement per operator: fast type checking).
            var k = 0
            while k < kp.count {
                let m = min(4, kp.count - k)
                let p0 = pad + k &* c
                let p1 = pad + (k &+ min(1, m - 1)) &* c
                let p2 = pad + (k &+ min(2, m - 1)) &* c
                let p3 = pad + (k &+ min(3, m - 1)) &* c
                let w0: Float = kp[k]
                let w1: Float = m > 1 ? kp[k + 1] : 0
                let w2: Float = m > 2 ? kp[k + 2] : 0
                let w3: Float = m > 3 ? kp[k + 3] : 0
                if k == 0 {
                    for i in 0..<n {
                        var v: Float = w0 * p0[i]
                        v += w1 * p1[i]
                        v += w2 * p2[i]
                        v += w3 * p3[i]
                        out[i] = v
                    }
                } else {
                    for i in 0..<n {
                        var v: Float = out[i]
                        v += w0 * p0[i]
                        v += w1 * p1[i]
                        v += w2 * p2[i]
                        v += w3 * p3[i]
                        out[i] = v
                    }
                }
                k += m
            }
        }
    }
}

import CImageKernels
import PVCore

/// He et al.'s guided filter: smooths an input (typically a low-resolution person mask) while
/// following the edges of a guide image.
///
/// With a grey guide `I`: `a = cov(I, p)/(var(I) + ε)`, `b = mean(p) − a·mean(I)` over each
/// `(2r+1)²` window, then `q = mean(a)·I + mean(b)`. With a colour guide, `a` is a 3-vector
/// `(Σ + εU)⁻¹·cov(I, p)`. Means are clipped-window box filters (O(1) per pixel). Guide values
/// and the input are normalised to 0…1 (8-bit /255), so `ε` is in those units (1e-4…1e-2 typical).
///
/// `subsampling > 1` runs the fast guided filter (He & Sun 2015): the coefficients are computed on
/// the guide shrunk by that factor (area) with radius `r/s`, then upsampled bilinearly and applied
/// to the full-resolution guide row by row, with no full-resolution intermediates.
///
/// ```swift
/// let refine = GuidedFilter(radius: 8, epsilon: 1e-3, guide: .color, subsampling: 4)
/// let mask = try refine.filter(lowResMask, guide: frame)     // frame's size, lowResMask's format
/// ```
public struct GuidedFilter: Sendable, Hashable {
    /// Which guide the filter follows.
    public enum Guide: Sendable, Hashable {
        /// BT.601 luma of the guide image.
        case grey
        /// The guide's R, G, B (falls back to grey for one-component guides).
        case color
    }

    /// Window radius in guide pixels.
    public var radius: Int
    /// Regularisation ε (in squared 0…1 units); larger smooths more.
    public var epsilon: Float
    /// Grey or colour guide.
    public var guide: Guide
    /// Compute the coefficients at 1/`subsampling` resolution.
    public var subsampling: Int

    public init(radius: Int, epsilon: Float, guide: Guide = .grey, subsampling: Int = 1) {
        self.radius = radius
        self.epsilon = epsilon
        self.guide = guide
        self.subsampling = subsampling
    }

    /// Filters `input` against `guide`, returning a buffer of the guide's size in the input's format.
    ///
    /// `input` must be one-component (any size: it is resized bilinearly to the working size);
    /// `guide` may be any format. The result is clamped to 0…1.
    /// - Complexity: O(width·height) for any radius (the box filters use running sums).
    /// - Throws: ``ImagingError`` `.invalidArgument` for a negative radius, a non-positive ε or
    ///   subsampling outside 1…64, `.unsupportedPixelFormat` for a multi-channel input.
    public func filter(_ input: PixelBuffer, guide image: PixelBuffer) throws -> PixelBuffer {
        try filter(input, guide: image, shrunkGuide: nil)
    }

    /// ``filter(_:guide:)`` with the guide already shrunk to the working size (`⌈width/subsampling⌉ ×
    /// ⌈height/subsampling⌉`, by area), when the caller has it; another size is ignored.
    package func filter(_ input: PixelBuffer, guide image: PixelBuffer, shrunkGuide: PixelBuffer?) throws -> PixelBuffer {
        guard radius >= 0, epsilon.isFinite, epsilon > 0, subsampling >= 1, subsampling <= 64 else {
            throw ImagingError(
                .invalidArgument,
                "guided filter needs radius ≥ 0, finite ε > 0 and subsampling in 1…64 (got \(radius), \(epsilon), \(subsampling))"
            )
        }
        guard input.format.isOneComponent else { throw ImagingError.unsupported("guided filter input", input.format) }
        let W = image.width, H = image.height
        let s = min(subsampling, W, H)
        let lw = (W + s - 1) / s, lh = (H + s - 1) / s
        let r = s == 1 ? radius : max(1, Int((Double(radius) / Double(s)).rounded()))
        let useColor = guide == .color && !image.format.isOneComponent

        let guideLow =
            s == 1 ? image : try shrunkGuide.flatMap { $0.width == lw && $0.height == lh ? $0 : nil } ?? image.resized(width: lw, height: lh, method: .area)
        let low = FloatPlane.guideChannels(guideLow, color: useColor)
        var p = FloatPlane(input)
        if p.width != lw || p.height != lh { p = p.resampled(width: lw, height: lh, method: .bilinear) }

        var (aPlanes, b) =
            useColor
            ? Self.colorCoefficients(low, p, radius: r, eps: epsilon)
            : Self.greyCoefficients(low[0], p, radius: r, eps: epsilon)
        aPlanes = aPlanes.map { $0.boxFiltered(radius: r) }
        b = b.boxFiltered(radius: r)

        if s == 1 {
            // q = Σ mean(a_c)·I_c + mean(b), clamped.
            var q = b
            q.withMutable { qp in
                for (a, g) in zip(aPlanes, low) {
                    a.data.withUnsafeBufferPointer { ap in
                        g.data.withUnsafeBufferPointer { gp in
                            for i in 0..<qp.count { qp[i] += ap[i] * gp[i] }
                        }
                    }
                }
            }
            return try q.pixelBuffer(format: input.format)
        }
        return try Self.applyUpsampled(aPlanes, b, guide: image, color: useColor, format: input.format)
    }

    /// Upsamples the interleaved coefficients (a…, b) bilinearly row by row and forms
    /// `q = Σ a_c·I_c + b` against the full-resolution guide.
    static func applyUpsampled(
        _ a: [FloatPlane], _ b: FloatPlane, guide image: PixelBuffer, color: Bool, format: PixelFormat
    ) throws -> PixelBuffer {
        let lw = b.width, lh = b.height, W = image.width, H = image.height
        let k = color ? 4 : 2  // a_r, a_g, a_b, b  or  a, b
        var packed = [Float](repeating: 0, count: lw * lh * k)
        for i in 0..<(lw * lh) {
            for (c, plane) in a.enumerated() { packed[i * k + c] = plane.data[i] }
            packed[i * k + k - 1] = b.data[i]
        }
        var out = try PixelBuffer(width: W, height: H, format: format, limits: .unlimitedForKernels)
        let xs = ResampleTaps(method: .bilinear, source: lw, destination: W)
        let ys = ResampleTaps(method: .bilinear, source: lh, destination: H)
        let gf = image.format
        if color, format == .oneComponent8, let layout = RGBLayout(gf) {
            applyColor8(packed, lw: lw, xs: xs, ys: ys, guide: image, layout: layout, into: &out)
            return out
        }
        packed.withUnsafeBytes { raw in
            let src = PlaneView(base: raw.baseAddress!, bytesPerRow: lw * k * 4, width: lw, height: lh)
            image.withPlanes { g0, g1 in
                out.withMutablePlanes { o, _ in
                    // The destination view only carries the size; rows arrive through the sink.
                    let sizeOnly = MutablePlaneView(base: o.base, bytesPerRow: 0, width: W, height: H)
                    let sink: (Int, UnsafeMutablePointer<Float>) -> Void = { y, coef in
                        withUnsafeTemporaryAllocation(of: Float.self, capacity: W * 4) { scratch in
                            let q = scratch.baseAddress!
                            guideRow(g0, g1, gf, y: y, width: W, color: color, into: q + W)
                            let guideValues = q + W
                            if color {
                                for x in 0..<W {
                                    let cf = coef + x &* 4, gv = guideValues + x &* 3
                                    var v: Float = cf[3]
                                    v += cf[0] * gv[0]
                                    v += cf[1] * gv[1]
                                    v += cf[2] * gv[2]
                                    q[x] = v
                                }
                            } else {
                                for x in 0..<W {
                                    var v: Float = coef[x &* 2 &+ 1]
                                    v += coef[x &* 2] * guideValues[x]
                                    q[x] = v
                                }
                            }
                            storeUnitRow(q, width: W, to: o.row(y), format)
                        }
                    }
                    if color {
                        SeparableResampler<FloatLoader, Channels4>(src: src, dst: sizeOnly, xs: xs, ys: ys).run(sink: sink)
                    } else {
                        SeparableResampler<FloatLoader, Channels2>(src: src, dst: sizeOnly, xs: xs, ys: ys).run(sink: sink)
                    }
                }
            }
        }
        return out
    }

    /// ``applyUpsampled(_:_:guide:color:format:)`` for the common case, in one pass per row: a colour guide of 8-bit
    /// RGB-like pixels and an 8-bit output. Each output row blends its two coefficient rows, then each pixel its two
    /// coefficient columns, with the same bilinear taps the separable resampler uses, and forms `Σ a_c·I_c + b`.
    static func applyColor8(
        _ packed: [Float], lw: Int, xs: ResampleTaps, ys: ResampleTaps, guide image: PixelBuffer, layout: RGBLayout,
        into out: inout PixelBuffer
    ) {
        let W = image.width, H = image.height, guideRowBytes = image.bytesPerRow(), outRowBytes = out.bytesPerRow()
        packed.withUnsafeBufferPointer { coef in
            image.withUnsafeBytes { guide in
                out.withUnsafeMutableBytes { output in
                    xs.withTable { xt in
                        ys.withTable { yt in
                            let coefRows = UnsafeRawPointer(coef.baseAddress!).assumingMemoryBound(to: SIMD4<Float>.self)
                            let (g0, o0) = (guide.baseAddress!, output.baseAddress!)
                            // Bands write distinct rows; the buffers outlive the call.
                            ImagingThreads.forEachBand(rows: H, workPerRow: W * 4) { band in
                                withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: lw) { row in
                                    for y in band {
                                        blendRows(coefRows, width: lw, taps: yt, at: y, into: row.baseAddress!)
                                        applyRow(
                                            row.baseAddress!, taps: xt, guide: g0 + y &* guideRowBytes, layout: layout,
                                            into: (o0 + y &* outRowBytes).assumingMemoryBound(to: UInt8.self), width: W)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The coefficient rows under output row `y`, blended by its vertical taps.
    @inline(__always)
    private static func blendRows(
        _ rows: UnsafePointer<SIMD4<Float>>, width lw: Int, taps: TapTable, at y: Int, into row: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        for lx in 0..<lw { row[lx] = .zero }
        for k in 0..<taps.counts[y] {
            let w = taps.weights[y &* taps.maxTaps &+ k], src = rows + (taps.starts[y] &+ k) &* lw
            for lx in 0..<lw { row[lx] += w * src[lx] }
        }
    }

    /// One output row: each pixel's coefficients from its horizontal taps over `row`, then `Σ a_c·I_c + b` against
    /// the guide's pixels (read in place), stored as 8-bit.
    @inline(__always)
    private static func applyRow(
        _ row: UnsafePointer<SIMD4<Float>>, taps: TapTable, guide g: UnsafeRawPointer, layout: RGBLayout,
        into o: UnsafeMutablePointer<UInt8>, width: Int
    ) {
        let bpp = layout.bytesPerPixel
        for x in 0..<width {
            let s = taps.starts[x]
            var c = taps.weights[x &* taps.maxTaps] * row[s]
            if taps.counts[x] > 1 { c += taps.weights[x &* taps.maxTaps &+ 1] * row[s &+ 1] }
            let p = g + x &* bpp
            let rgb = SIMD3<Float>(
                Float(p.load(fromByteOffset: layout.r, as: UInt8.self)), Float(p.load(fromByteOffset: layout.g, as: UInt8.self)),
                Float(p.load(fromByteOffset: layout.b, as: UInt8.self))) * (1 / 255)
            var v = c.w
            v += c.x * rgb.x
            v += c.y * rgb.y
            v += c.z * rgb.z
            o[x] = clampToByte(v * 255)
        }
    }

    static func greyCoefficients(_ I: FloatPlane, _ p: FloatPlane, radius r: Int, eps: Float) -> ([FloatPlane], FloatPlane) {
        let mI = I.boxFiltered(radius: r), mP = p.boxFiltered(radius: r)
        let mII = I.combined(I, *).boxFiltered(radius: r)
        let mIP = I.combined(p, *).boxFiltered(radius: r)
        var a = mIP, b = mP
        let n = I.data.count
        a.withMutable { ap in
            b.withMutable { bp in
                mI.data.withUnsafeBufferPointer { mi in
                    mP.data.withUnsafeBufferPointer { mp in
                        mII.data.withUnsafeBufferPointer { mii in
                            mIP.data.withUnsafeBufferPointer { mip in
                                for i in 0..<n {
                                    let mean = mi[i], meanP = mp[i]
                                    let cov: Float = mip[i] - mean * meanP
                                    let variance: Float = mii[i] - mean * mean
                                    let ai: Float = cov / (variance + eps)
                                    ap[i] = ai
                                    bp[i] = meanP - ai * mean
                                }
                            }
                        }
                    }
                }
            }
        }
        return ([a], b)
    }

    static func colorCoefficients(_ I: [FloatPlane], _ p: FloatPlane, radius r: Int, eps: Float) -> ([FloatPlane], FloatPlane) {
        let m = I.map { $0.boxFiltered(radius: r) }
        let mP = p.boxFiltered(radius: r)
        let mIP = I.map { $0.combined(p, *).boxFiltered(radius: r) }
        // Σ entries: rr, rg, rb, gg, gb, bb.
        let pairs = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
        let mII = pairs.map { I[$0.0].combined(I[$0.1], *).boxFiltered(radius: r) }
        var ar = mP.data, ag = mP.data, ab = mP.data, bb = mP.data
        let n = p.data.count
        // Plain pointers: element access through the nested arrays would check uniqueness per pixel.
        withPointers(m + [mP] + mIP + mII) { q in
            ar.withUnsafeMutableBufferPointer { arp in
                ag.withUnsafeMutableBufferPointer { agp in
                    ab.withUnsafeMutableBufferPointer { abp in
                        bb.withUnsafeMutableBufferPointer { bp in
                            let m0 = q[0], m1 = q[1], m2 = q[2], mp3 = q[3], ip0 = q[4], ip1 = q[5], ip2 = q[6]
                            let ii0 = q[7], ii1 = q[8], ii2 = q[9], ii3 = q[10], ii4 = q[11], ii5 = q[12]
                            for i in 0..<n {
                                let mr = m0[i], mg = m1[i], mb = m2[i], mp = mp3[i]
                                let cr: Float = ip0[i] - mr * mp
                                let cg: Float = ip1[i] - mg * mp
                                let cb: Float = ip2[i] - mb * mp
                                let (i00, i01, i02, i11, i12, i22, det) = covarianceCofactors(
                                    mr, mg, mb, ii0[i], ii1[i], ii2[i], ii3[i], ii4[i], ii5[i], eps: eps)
                                let inv: Float = 1 / det
                                var vr: Float = i00 * cr
                                vr += i01 * cg
                                vr += i02 * cb
                                vr *= inv
                                var vg: Float = i01 * cr
                                vg += i11 * cg
                                vg += i12 * cb
                                vg *= inv
                                var vb: Float = i02 * cr
                                vb += i12 * cg
                                vb += i22 * cb
                                vb *= inv
                                arp[i] = vr
                                agp[i] = vg
                                abp[i] = vb
                                var bi: Float = mp - vr * mr
                                bi -= vg * mg
                                bi -= vb * mb
                                bp[i] = bi
                            }
                        }
                    }
                }
            }
        }
        let w = p.width, h = p.height
        let a = [ar, ag, ab].map { FloatPlane(width: w, height: h, data: $0) }
        let b = FloatPlane(width: w, height: h, data: bb)
        return (a, b)
    }
}

/// Calls `body` with base pointers of the planes' data, in order.
func withPointers<R>(_ planes: [FloatPlane], _ body: ([UnsafePointer<Float>]) -> R) -> R {
    func go(_ i: Int, _ acc: [UnsafePointer<Float>]) -> R {
        if i == planes.count { return body(acc) }
        return planes[i].data.withUnsafeBufferPointer { go(i + 1, acc + [$0.baseAddress!]) }
    }
    return go(0, [])
}

/// One row of guide values in 0…1: R, G, B interleaved when `color`, else one value (luma, or the
/// one-component value).
func guideRow(
    _ p0: PlaneView, _ p1: PlaneView?, _ f: PixelFormat, y: Int, width w: Int, color: Bool,
    into out: UnsafeMutablePointer<Float>
) {
    switch f {
    case .oneComponent8:
        let a = p0.row(y).assumingMemoryBound(to: UInt8.self)
        for x in 0..<w { out[x] = Float(a[x]) * (1 / 255) }
    case .oneComponent16Half:
        let a = p0.row(y).assumingMemoryBound(to: Float16.self)
        for x in 0..<w { out[x] = Float(a[x]) }
    case .oneComponent32Float:
        let a = p0.row(y).assumingMemoryBound(to: Float.self)
        for x in 0..<w { out[x] = a[x] }
    default:
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: w) { scratch in
            let rgba = scratch.baseAddress!
            readRGBARow(p0, p1, f, y: y, width: w, into: rgba)
            for x in 0..<w {
                let px = rgba[x]
                let r = Float(px & 0xFF), g = Float((px &>> 8) & 0xFF), b = Float((px &>> 16) & 0xFF)
                if color {
                    out[3 &* x] = r * (1 / 255)
                    out[3 &* x &+ 1] = g * (1 / 255)
                    out[3 &* x &+ 2] = b * (1 / 255)
                } else {
                    var l: Float = 0.299 * r
                    l += 0.587 * g
                    l += 0.114 * b
                    out[x] = l * (1 / 255)
                }
            }
        }
    }
}

/// Stores 0…1 values (clamped) into a one-component row of `format` (8-bit: ×255, rounded).
func storeUnitRow(_ v: UnsafePointer<Float>, width w: Int, to row: UnsafeMutableRawPointer, _ format: PixelFormat) {
    switch format {
    case .oneComponent8:
        let o = row.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w { o[x] = clampToByte(v[x] * 255) }
    case .oneComponent16Half:
        let o = row.assumingMemoryBound(to: Float16.self)
        for x in 0..<w { o[x] = Float16(min(max(v[x], 0), 1)) }
    default:
        let o = row.assumingMemoryBound(to: Float.self)
        for x in 0..<w { o[x] = min(max(v[x], 0), 1) }
    }
}

/// A dense single-channel float image (stride = width) for the guided filter's intermediates.
struct FloatPlane {
    var width: Int
    var height: Int
    var data: [Float]

    init(width: Int, height: Int, data: [Float]) {
        self.width = width
        self.height = height
        self.data = data
    }

    /// A one-component buffer's values in 0…1 (8-bit /255).
    init(_ buffer: PixelBuffer) {
        self = FloatPlane.guideChannels(buffer, color: false)[0]
    }

    /// Guide channels in 0…1: R, G, B when `color`, else BT.601 luma (one-component guides: their value).
    static func guideChannels(_ image: PixelBuffer, color: Bool) -> [FloatPlane] {
        let w = image.width, h = image.height
        let colorOut = color && !image.format.isOneComponent
        let count = colorOut ? 3 : 1
        var planes = [[Float]](repeating: [Float](repeating: 0, count: w * h), count: count)
        let f = image.format
        image.withPlanes { p0, p1 in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: w * 3) { scratch in
                let row = scratch.baseAddress!
                for y in 0..<h {
                    guideRow(p0, p1, f, y: y, width: w, color: colorOut, into: row)
                    for c in 0..<count {
                        planes[c].withUnsafeMutableBufferPointer { out in
                            let o = out.baseAddress! + y * w
                            for x in 0..<w { o[x] = row[x &* count &+ c] }
                        }
                    }
                }
            }
        }
        return planes.map { FloatPlane(width: w, height: h, data: $0) }
    }

    mutating func withMutable<R>(_ body: (UnsafeMutableBufferPointer<Float>) -> R) -> R {
        data.withUnsafeMutableBufferPointer { body($0) }
    }

    func withView<R>(_ body: (PlaneView) -> R) -> R {
        data.withUnsafeBytes { raw in
            body(PlaneView(base: raw.baseAddress!, bytesPerRow: width * 4, width: width, height: height))
        }
    }

    func combined(_ other: FloatPlane, _ op: (Float, Float) -> Float) -> FloatPlane {
        var out = self
        out.withMutable { o in
            other.data.withUnsafeBufferPointer { b in
                for i in 0..<o.count { o[i] = op(o[i], b[i]) }
            }
        }
        return out
    }

    func boxFiltered(radius: Int) -> FloatPlane {
        var out = FloatPlane(width: width, height: height, data: [Float](repeating: 0, count: data.count))
        let w = width, h = height
        withView { src in
            out.withMutable { o in
                let dst = MutablePlaneView(
                    base: UnsafeMutableRawPointer(o.baseAddress!), bytesPerRow: w * 4, width: w, height: h)
                boxFilter(FloatLoader.self, src, dst, channels: 1, radius: radius)
            }
        }
        return out
    }

    func resampled(width nw: Int, height nh: Int, method: ResamplingMethod) -> FloatPlane {
        var out = FloatPlane(width: nw, height: nh, data: [Float](repeating: 0, count: nw * nh))
        withView { src in
            out.withMutable { o in
                let dst = MutablePlaneView(
                    base: UnsafeMutableRawPointer(o.baseAddress!), bytesPerRow: nw * 4, width: nw, height: nh)
                resamplePlane(src, dst, channels: 1, kind: .float, method: method)
            }
        }
        return out
    }

    /// Stores into a new one-component buffer of `format` (8-bit: ×255, rounded), clamped to 0…1.
    func pixelBuffer(format: PixelFormat) throws -> PixelBuffer {
        var out = try PixelBuffer(width: width, height: height, format: format, limits: .unlimitedForKernels)
        let w = width
        data.withUnsafeBufferPointer { src in
            out.withMutablePlanes { d, _ in
                for y in 0..<height { storeUnitRow(src.baseAddress! + y * w, width: w, to: d.row(y), format) }
            }
        }
        return out
    }
}

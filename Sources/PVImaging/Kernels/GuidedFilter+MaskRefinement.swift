// The fast colour guided filter as the person segmenter uses it: guide statistics computed while the models run,
// then one fused pass that refines a low-resolution mask to the guide's size.
import CImageKernels

/// What the fast colour guided filter needs from the guide alone, on the grid of the guide shrunk by a whole
/// factor: the box-averaged channels, their window means and the inverse regularised covariance per pixel.
/// Computing it does not need the mask, so it can run while the mask is still being made.
package struct GuideStatistics: Sendable {
    let width: Int
    let height: Int
    let factor: Int
    let radius: Int
    let guideWidth: Int
    let guideHeight: Int
    let layout: RGBLayout
    /// I_r, I_g, I_b in 0…1.
    let channels: [FloatPlane]
    /// Window means of the channels.
    let means: [FloatPlane]
    /// Entries 00, 01, 02, 11, 12, 22 of (Σ + εU)⁻¹.
    let inverse: [FloatPlane]
}

extension GuideStatistics {
    /// The guide shrunk to the statistics' grid (each cell the mean of its block of the guide), as RGBA 8-bit: what
    /// an area resize to `⌈width/factor⌉ × ⌈height/factor⌉` gives when the factor divides the guide's sides.
    package func shrunkGuide() throws -> PixelBuffer {
        var out = try PixelBuffer(width: width, height: height, format: .rgba32)
        let row = out.bytesPerRow(), w = width
        out.withUnsafeMutableBytes { bytes in
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            channels[0].data.withUnsafeBufferPointer { r in
                channels[1].data.withUnsafeBufferPointer { g in
                    channels[2].data.withUnsafeBufferPointer { b in
                        // The means lie in 0…1: scaled, a half added and truncated is rounding to nearest.
                        for y in 0..<height {
                            let line = base + y * row, at = y * w
                            for x in 0..<w {
                                line[4 &* x] = UInt8(min(max(r[at &+ x] * 255 + 0.5, 0), 255))
                                line[4 &* x &+ 1] = UInt8(min(max(g[at &+ x] * 255 + 0.5, 0), 255))
                                line[4 &* x &+ 2] = UInt8(min(max(b[at &+ x] * 255 + 0.5, 0), 255))
                                line[4 &* x &+ 3] = 255
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}

extension GuidedFilter {
    /// The guide's statistics for ``refineMask(_:statistics:guide:band:)`` (grid: each side divided by `factor`,
    /// rounded up; `radius` in grid pixels), or nil when the guide is not 8-bit RGB-like or the grid would be
    /// narrower than 2 pixels.
    package static func guideStatistics(_ image: PixelBuffer, factor: Int, radius: Int, epsilon: Float) -> GuideStatistics? {
        let W = image.width, H = image.height
        guard factor >= 1, factor <= 257, radius >= 0, epsilon > 0, let layout = RGBLayout(image.format) else { return nil }
        let w = (W + factor - 1) / factor, h = (H + factor - 1) / factor
        guard w >= 2 else { return nil }
        var lr = [Float](repeating: 0, count: w * h), lg = lr, lb = lr
        var acc = [UInt16](repeating: 0, count: W * layout.bytesPerPixel)
        image.withUnsafeBytes { src in
            lr.withUnsafeMutableBufferPointer { r in
                lg.withUnsafeMutableBufferPointer { g in
                    lb.withUnsafeMutableBufferPointer { b in
                        cik_box_down_rgb8(
                            src.baseAddress!.assumingMemoryBound(to: UInt8.self), image.bytesPerRow(), Int32(W), Int32(H),
                            Int32(layout.bytesPerPixel), Int32(layout.r), Int32(layout.g), Int32(layout.b), Int32(factor),
                            r.baseAddress!, g.baseAddress!, b.baseAddress!, Int32(w), Int32(h), &acc)
                    }
                }
            }
        }
        let I = [lr, lg, lb].map { FloatPlane(width: w, height: h, data: $0) }
        let m = I.map { $0.boxFiltered(radius: radius) }
        let pairs = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
        let mII = pairs.map { I[$0.0].combined(I[$0.1], *).boxFiltered(radius: radius) }
        let eps = epsilon, n = w * h
        // One allocation for the six planes, written through a pointer: indexing an array of arrays in this loop
        // costs a uniqueness check per store (4 ms instead of 0.4 at 480×270).
        var inverse = [Float](repeating: 0, count: 6 * n)
        withPointers(m + mII) { q in
            let m0 = q[0], m1 = q[1], m2 = q[2], ii0 = q[3], ii1 = q[4], ii2 = q[5], ii3 = q[6], ii4 = q[7], ii5 = q[8]
            inverse.withUnsafeMutableBufferPointer { out in
                let o = out.baseAddress!
                for i in 0..<n {
                    let mr = m0[i], mg = m1[i], mb = m2[i]
                    let (i00, i01, i02, i11, i12, i22, det) = covarianceCofactors(
                        mr, mg, mb, ii0[i], ii1[i], ii2[i], ii3[i], ii4[i], ii5[i], eps: eps)
                    let d: Float = 1 / det
                    o[i] = i00 * d
                    o[n &+ i] = i01 * d
                    o[2 &* n &+ i] = i02 * d
                    o[3 &* n &+ i] = i11 * d
                    o[4 &* n &+ i] = i12 * d
                    o[5 &* n &+ i] = i22 * d
                }
            }
        }
        let inv = (0..<6).map { k in Array(inverse[k * n..<(k + 1) * n]) }
        return GuideStatistics(
            width: w, height: h, factor: factor, radius: radius, guideWidth: W, guideHeight: H, layout: layout,
            channels: I, means: m, inverse: inv.map { FloatPlane(width: w, height: h, data: $0) })
    }

    /// ``refineMask(_:statistics:guide:band:)`` with the statistics computed first.
    package static func refineMask(
        _ mask: PixelBuffer, guide image: PixelBuffer, factor: Int, radius: Int, epsilon: Float, band: Float
    ) throws -> PixelBuffer? {
        guard let statistics = guideStatistics(image, factor: factor, radius: radius, epsilon: epsilon) else { return nil }
        return try refineMask(mask, statistics: statistics, guide: image, band: band)
    }

    /// Refines a low-resolution soft mask to the guide's full size in one pass per output row (the last
    /// step of the fast colour guided filter, fused with an uncertainty blend).
    ///
    /// `mask` is one-component float on the statistics' grid. The colour guided filter's coefficients are
    /// computed there, and every full-size pixel gets `q = a·I + b` from the bilinearly upsampled coefficients,
    /// blended into the upsampled mask `m` with weight `max(0, 1 − |m − ½|/band)`: confident pixels keep `m`,
    /// so the filter cannot bleed into them. Rows are split across the imaging threads.
    /// - Returns: a buffer of the guide's size in `format`: `.oneComponent32Float` (values 0…1) or `.oneComponent8`
    ///   (those values to bytes, as converting the float buffer would round them); nil for another format, or when
    ///   the mask or the guide does not match the statistics (use ``filter(_:guide:)`` then).
    package static func refineMask(
        _ mask: PixelBuffer, statistics st: GuideStatistics, guide image: PixelBuffer, band: Float,
        format: PixelFormat = .oneComponent32Float
    ) throws -> PixelBuffer? {
        let W = image.width, H = image.height, w = st.width, h = st.height, layout = st.layout
        guard band > 0, mask.format == .oneComponent32Float, mask.width == w, mask.height == h, W == st.guideWidth,
            H == st.guideHeight, RGBLayout(image.format) == layout,
            format == .oneComponent32Float || format == .oneComponent8
        else { return nil }
        let r = st.radius, n = w * h
        let p = FloatPlane(mask)
        let mP = p.boxFiltered(radius: r)
        let mIP = st.channels.map { $0.combined(p, *).boxFiltered(radius: r) }
        // One allocation for a_r, a_g, a_b and b, written through a pointer (array element stores in this loop
        // would check uniqueness per pixel: 1.8 ms instead of 0.2 at 480×270).
        var ab4 = [Float](repeating: 0, count: 4 * n)
        withPointers(st.means + [mP] + mIP + st.inverse) { q in
            let m0 = q[0], m1 = q[1], m2 = q[2], mp3 = q[3], ip0 = q[4], ip1 = q[5], ip2 = q[6]
            let v00 = q[7], v01 = q[8], v02 = q[9], v11 = q[10], v12 = q[11], v22 = q[12]
            ab4.withUnsafeMutableBufferPointer { out in
                let o = out.baseAddress!
                // Pixels are independent: the grid's rows in bands on the imaging threads (this is on the critical
                // path, after the mask is known).
                ImagingThreads.forEachBand(rows: h, workPerRow: w * 32) { rows in
                    for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                        let mr = m0[i], mg = m1[i], mb = m2[i], mp = mp3[i]
                        let cr: Float = ip0[i] - mr * mp
                        let cg: Float = ip1[i] - mg * mp
                        let cb: Float = ip2[i] - mb * mp
                        var vr: Float = v00[i] * cr
                        vr += v01[i] * cg
                        vr += v02[i] * cb
                        var vg: Float = v01[i] * cr
                        vg += v11[i] * cg
                        vg += v12[i] * cb
                        var vb: Float = v02[i] * cr
                        vb += v12[i] * cg
                        vb += v22[i] * cb
                        o[i] = vr
                        o[n &+ i] = vg
                        o[2 &* n &+ i] = vb
                        var bi: Float = mp - vr * mr
                        bi -= vg * mg
                        bi -= vb * mb
                        o[3 &* n &+ i] = bi
                    }
                }
            }
        }
        let planes = (0..<4).map { k in FloatPlane(width: w, height: h, data: Array(ab4[k * n..<(k + 1) * n])) }
        let a = planes[0..<3].map { $0.boxFiltered(radius: r) }
        let b = planes[3].boxFiltered(radius: r)
        var coef = [Float](repeating: 0, count: n * 5)
        withPointers(a + [b, p]) { q in
            let a0 = q[0], a1 = q[1], a2 = q[2], b0 = q[3], p0 = q[4]
            coef.withUnsafeMutableBufferPointer { out in
                let o = out.baseAddress!
                ImagingThreads.forEachBand(rows: h, workPerRow: w * 8) { rows in
                    for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                        o[5 &* i] = a0[i]
                        o[5 &* i &+ 1] = a1[i]
                        o[5 &* i &+ 2] = a2[i]
                        o[5 &* i &+ 3] = b0[i]
                        o[5 &* i &+ 4] = p0[i]
                    }
                }
            }
        }
        // Per output column: the record of the left tap (its right neighbour exists) and its weight.
        var x0 = [Int32](repeating: 0, count: W), wx = [Float](repeating: 0, count: W)
        let sx = Double(w) / Double(W)
        for x in 0..<W {
            let f = min(max((Double(x) + 0.5) * sx - 0.5, 0), Double(w - 1))
            let i = min(Int(f), w - 2)
            x0[x] = Int32(i)
            wx[x] = Float(f - Double(i))
        }
        var out = try PixelBuffer(uninitializedWidth: W, height: H, format: format, limits: .unlimitedForKernels)
        let rowBytes = out.bytesPerRow(), bytes = format == .oneComponent8
        image.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                let g = src.baseAddress!.assumingMemoryBound(to: UInt8.self)
                // Bands write disjoint output rows; everything else is only read.
                ImagingThreads.forEachBand(rows: H, workPerRow: W * 8) { rows in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: 5 * (w + 8)) { scratch in
                        let first = dst.baseAddress! + rows.lowerBound * rowBytes
                        cik_guided_refine_rgb8(
                            g, image.bytesPerRow(), Int32(W), Int32(layout.bytesPerPixel), Int32(layout.r), Int32(layout.g),
                            Int32(layout.b), coef, Int32(w), Int32(h), band,
                            bytes ? nil : first.assumingMemoryBound(to: Float.self), rowBytes / 4,
                            Int32(rows.lowerBound), Int32(rows.count), Int32(H), x0, wx, scratch.baseAddress!,
                            bytes ? first.assumingMemoryBound(to: UInt8.self) : nil, rowBytes)
                    }
                }
            }
        }
        return out
    }
}

/// One pixel's regularised colour covariance Σ + εI, from the guide's means and second moments (rr, rg, rb, gg, gb,
/// bb), as the cofactors of that symmetric 3×3 (rr, rg, rb, gg, gb, bb) and its determinant: Σ⁻¹ = cofactors / det.
@inline(__always)
func covarianceCofactors(
    _ mr: Float, _ mg: Float, _ mb: Float, _ rr: Float, _ rg: Float, _ rb: Float, _ gg: Float, _ gb: Float, _ bb: Float,
    eps: Float
) -> (Float, Float, Float, Float, Float, Float, det: Float) {
    let srr: Float = rr - mr * mr + eps
    let srg: Float = rg - mr * mg
    let srb: Float = rb - mr * mb
    let sgg: Float = gg - mg * mg + eps
    let sgb: Float = gb - mg * mb
    let sbb: Float = bb - mb * mb + eps
    let i00: Float = sgg * sbb - sgb * sgb
    let i01: Float = srb * sgb - srg * sbb
    let i02: Float = srg * sgb - srb * sgg
    let i11: Float = srr * sbb - srb * srb
    let i12: Float = srg * srb - srr * sgb
    let i22: Float = srr * sgg - srg * srg
    var det: Float = srr * i00
    det += srg * i01
    det += srb * i02
    return (i00, i01, i02, i11, i12, i22, det)
}

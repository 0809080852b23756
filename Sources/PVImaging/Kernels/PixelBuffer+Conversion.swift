extension PixelBuffer {
    /// A copy in another pixel format.
    ///
    /// Every pair of formats converts:
    /// - 8-bit RGB-like ↔ 8-bit RGB-like: channels reordered; alpha becomes 255 where the source has none.
    /// - one-component 8 ↔ half ↔ float: 0…255 ↔ 0…1 (to 8 bits: rounded and clamped).
    /// - colour → one-component: BT.601 luma `0.299R + 0.587G + 0.114B`; one-component → colour:
    ///   grey replicated, alpha 255.
    /// - 4:2:0 YUV ↔ RGB: BT.601, full range (`420f`) or video range (`420v`), 16.16 fixed point,
    ///   rounded. RGB → YUV averages each 2×2 block's chroma. YUV → one-component reads luma.
    ///
    /// ```swift
    /// let rgba = try frame.converted(to: .rgba32)          // e.g. from '420v'
    /// ```
    /// - Complexity: O(width·height) in one pass, with one row of scratch.
    public func converted(to format: PixelFormat) throws -> PixelBuffer {
        if format == self.format { return self }
        var out = try makeSibling(format: format)
        try convert(into: &out)
        return out
    }

    /// Converts into `destination` (same size, any format), which may be reused across frames.
    /// - Throws: ``ImagingError`` `.invalidArgument` when the sizes differ.
    public func convert(into destination: inout PixelBuffer) throws {
        guard destination.width == width, destination.height == height else {
            throw ImagingError.sizeMismatch("convert", self, destination)
        }
        let sf = format, df = destination.format, w = width, h = height
        withPlanes { s0, s1 in
            destination.withMutablePlanes { d0, d1 in
                if sf == df {
                    for y in 0..<h { d0.row(y).copyMemory(from: s0.row(y), byteCount: w * sf.bytesPerPixel) }
                    if let s1, let d1 {
                        for y in 0..<s1.height { d1.row(y).copyMemory(from: s1.row(y), byteCount: s1.width * 2) }
                    }
                    return
                }
                if sf.isOneComponent && df.isOneComponent {
                    ImagingThreads.forEachBand(rows: h, workPerRow: w) { rows in
                        for y in rows { convertOneComponentRow(s0.row(y), sf, d0.row(y), df, width: w) }
                    }
                    return
                }
                if df.isYUV420 {
                    // Rows are handled in pairs that share one chroma row.
                    let pairs = (h + 1) / 2
                    ImagingThreads.forEachBand(rows: pairs, workPerRow: w * 2) { band in
                        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: w * 2) { scratch in
                            let top = scratch.baseAddress!, bottom = top + w
                            for pair in band {
                                let y0 = pair * 2, y1 = min(y0 + 1, h - 1)
                                readRGBARow(s0, s1, sf, y: y0, width: w, into: top)
                                if y1 != y0 { readRGBARow(s0, s1, sf, y: y1, width: w, into: bottom) }
                                writeYUVRowPair(
                                    top, y1 != y0 ? bottom : nil, width: w, matrix: .forFormat(df),
                                    luma0: d0.row(y0), luma1: y1 != y0 ? d0.row(y1) : nil, chroma: d1!.row(pair))
                            }
                        }
                    }
                    return
                }
                ImagingThreads.forEachBand(rows: h, workPerRow: w * 2) { rows in
                    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: w) { scratch in
                        let rgba = scratch.baseAddress!
                        for y in rows {
                            if sf.isYUV420 && df.isOneComponent {
                                yuvLumaToOneComponentRow(s0.row(y), sf, d0.row(y), df, width: w)
                                continue
                            }
                            if df == .rgba32 {
                                // Rows are 64-byte aligned: read straight into the destination.
                                readRGBARow(s0, s1, sf, y: y, width: w, into: d0.row(y).assumingMemoryBound(to: UInt32.self))
                                continue
                            }
                            readRGBARow(s0, s1, sf, y: y, width: w, into: rgba)
                            writeRGBARow(rgba, width: w, to: d0.row(y), df)
                        }
                    }
                }
            }
        }
    }
}

// MARK: - Row converters. RGBA rows are UInt32 words holding R, G, B, A in memory order (little endian).

@inline(__always) private func packRGBA(_ r: UInt32, _ g: UInt32, _ b: UInt32, _ a: UInt32) -> UInt32 {
    r | g &<< 8 | b &<< 16 | a &<< 24
}

/// Reads row `y` of any format as RGBA words.
func readRGBARow(
    _ p0: PlaneView, _ p1: PlaneView?, _ format: PixelFormat, y: Int, width w: Int, into out: UnsafeMutablePointer<UInt32>
) {
    let row = p0.row(y)
    switch format {
    case .rgba32:
        UnsafeMutableRawPointer(out).copyMemory(from: row, byteCount: w * 4)
    case .bgra32:
        RGBAWords.swapRedBlue(row, out, w)
    case .argb32:
        RGBAWords.fromARGB(row, out, w)
    case .rgb24:
        RGBAWords.fromRGB(row.assumingMemoryBound(to: UInt8.self), out, w)
    case .oneComponent8:
        RGBAWords.fromGrey(row.assumingMemoryBound(to: UInt8.self), out, w)
    case .oneComponent16Half:
        let s = row.assumingMemoryBound(to: Float16.self)
        for x in 0..<w { out[x] = UInt32(clampToByte(Float(s[x]) * 255)) &* 0x0001_0101 | 0xFF00_0000 }
    case .oneComponent32Float:
        let s = row.assumingMemoryBound(to: Float.self)
        for x in 0..<w { out[x] = UInt32(clampToByte(s[x] * 255)) &* 0x0001_0101 | 0xFF00_0000 }
    case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange:
        let m = YCbCrMatrix.forFormat(format)
        let ly = row.assumingMemoryBound(to: UInt8.self)
        let c = p1!.row(y &>> 1).assumingMemoryBound(to: UInt8.self)
        // Eight pixels (four chroma pairs) per step in 32-bit lanes, the same fixed point as the scalar tail.
        var x = 0
        // (Every SIMD expression below is one operator with explicit types: chains of SIMD operators
        // with literals make the type checker take minutes.)
        let k = YCbCrVector<SIMD8<Int32>>(m)
        let shift8 = SIMD8<Int32>(repeating: 8), shift16 = SIMD8<Int32>(repeating: 16)
        let alpha = SIMD8<UInt32>(repeating: 0xFF00_0000)
        while x &+ 8 <= w {
            let y8: SIMD8<UInt8> = UnsafeRawPointer(ly + x).loadUnaligned(as: SIMD8<UInt8>.self)
            let c8: SIMD8<UInt8> = UnsafeRawPointer(c + x).loadUnaligned(as: SIMD8<UInt8>.self)
            let yv = SIMD8<Int32>(truncatingIfNeeded: y8)
            let cv = SIMD8<Int32>(truncatingIfNeeded: c8)
            let cbHalf: SIMD4<Int32> = cv.evenHalf
            let crHalf: SIMD4<Int32> = cv.oddHalf
            let cb = SIMD8<Int32>(
                cbHalf[0], cbHalf[0], cbHalf[1], cbHalf[1], cbHalf[2], cbHalf[2], cbHalf[3], cbHalf[3])
            let cr = SIMD8<Int32>(
                crHalf[0], crHalf[0], crHalf[1], crHalf[1], crHalf[2], crHalf[2], crHalf[3], crHalf[3])
            let (r, rawG, rawB) = k.rgb(y: yv, cb: cb, cr: cr)
            let g: SIMD8<Int32> = rawG &<< shift8
            let b: SIMD8<Int32> = rawB &<< shift16
            var word: SIMD8<Int32> = r | g
            word = word | b
            var words = SIMD8<UInt32>(truncatingIfNeeded: word)
            words = words | alpha
            UnsafeMutableRawPointer(out + x).storeBytes(of: words, as: SIMD8<UInt32>.self)
            x &+= 8
        }
        while x < w {
            let ci = (x &>> 1) &* 2
            let (r, g, b) = m.rgb(y: Int32(ly[x]), cb: Int32(c[ci]), cr: Int32(c[ci &+ 1]))
            out[x] = packRGBA(UInt32(r), UInt32(g), UInt32(b), 255)
            x &+= 1
        }
    }
}

/// BT.601 full-range luma of an RGBA word, rounded.
@inline(__always) func luma8(_ p: UInt32) -> UInt8 {
    let r: UInt32 = p & 0xFF
    let g: UInt32 = (p &>> 8) & 0xFF
    let b: UInt32 = (p &>> 16) & 0xFF
    var sum: UInt32 = 19595 &* r
    sum &+= 38470 &* g
    sum &+= 7471 &* b
    sum &+= 32768
    return UInt8(truncatingIfNeeded: sum &>> 16)
}

/// Writes RGBA words as one row of a single-plane format.
func writeRGBARow(_ rgba: UnsafePointer<UInt32>, width w: Int, to row: UnsafeMutableRawPointer, _ format: PixelFormat) {
    switch format {
    case .rgba32:
        row.copyMemory(from: rgba, byteCount: w * 4)
    case .bgra32:
        RGBAWords.swapRedBlue(rgba, row, w)
    case .argb32:
        RGBAWords.toARGB(rgba, row, w)
    case .rgb24:
        let d = row.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w {
            let p = rgba[x]
            d[3 &* x] = UInt8(truncatingIfNeeded: p)
            d[3 &* x &+ 1] = UInt8(truncatingIfNeeded: p &>> 8)
            d[3 &* x &+ 2] = UInt8(truncatingIfNeeded: p &>> 16)
        }
    case .oneComponent8:
        let d = row.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w { d[x] = luma8(rgba[x]) }
    case .oneComponent16Half:
        let d = row.assumingMemoryBound(to: Float16.self)
        for x in 0..<w { d[x] = Float16(Float(luma8(rgba[x])) / 255) }
    case .oneComponent32Float:
        let d = row.assumingMemoryBound(to: Float.self)
        for x in 0..<w { d[x] = Float(luma8(rgba[x])) / 255 }
    case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange:
        preconditionFailure("YUV rows are written in pairs")
    }
}

/// Writes one or two RGBA rows as luma rows and their shared chroma row.
func writeYUVRowPair(
    _ top: UnsafePointer<UInt32>, _ bottom: UnsafePointer<UInt32>?, width w: Int, matrix m: YCbCrMatrix,
    luma0: UnsafeMutableRawPointer, luma1: UnsafeMutableRawPointer?, chroma: UnsafeMutableRawPointer
) {
    @inline(__always) func channels(_ p: UInt32) -> (Int32, Int32, Int32) {
        (Int32(p & 0xFF), Int32((p &>> 8) & 0xFF), Int32((p &>> 16) & 0xFF))
    }
    let y0 = luma0.assumingMemoryBound(to: UInt8.self)
    for x in 0..<w {
        let (r, g, b) = channels(top[x])
        y0[x] = UInt8(truncatingIfNeeded: m.luma(r: r, g: g, b: b))
    }
    if let bottom, let luma1 {
        let y1 = luma1.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w {
            let (r, g, b) = channels(bottom[x])
            y1[x] = UInt8(truncatingIfNeeded: m.luma(r: r, g: g, b: b))
        }
    }
    let c = chroma.assumingMemoryBound(to: UInt8.self)
    var x = 0
    while x < w {
        var rs: Int32 = 0, gs: Int32 = 0, bs: Int32 = 0, n: Int32 = 0
        for xx in x..<min(x + 2, w) {
            let (r, g, b) = channels(top[xx])
            rs &+= r; gs &+= g; bs &+= b; n &+= 1
            if let bottom {
                let (r2, g2, b2) = channels(bottom[xx])
                rs &+= r2; gs &+= g2; bs &+= b2; n &+= 1
            }
        }
        let (cb, cr) = m.chroma(rSum: rs, gSum: gs, bSum: bs, n: n)
        c[x] = UInt8(truncatingIfNeeded: cb)
        c[x + 1] = UInt8(truncatingIfNeeded: cr)
        x += 2
    }
}

/// One-component ↔ one-component: 0…255 ↔ 0…1.
private func convertOneComponentRow(
    _ s: UnsafeRawPointer, _ sf: PixelFormat, _ d: UnsafeMutableRawPointer, _ df: PixelFormat, width w: Int
) {
    switch (sf, df) {
    case (.oneComponent8, .oneComponent16Half):
        let a = s.assumingMemoryBound(to: UInt8.self), b = d.assumingMemoryBound(to: Float16.self)
        for x in 0..<w { b[x] = Float16(Float(a[x]) * (1 / 255)) }
    case (.oneComponent8, .oneComponent32Float):
        let a = s.assumingMemoryBound(to: UInt8.self), b = d.assumingMemoryBound(to: Float.self)
        for x in 0..<w { b[x] = Float(a[x]) / 255 }
    case (.oneComponent16Half, .oneComponent8):
        let a = s.assumingMemoryBound(to: Float16.self), b = d.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w { b[x] = clampToByte(Float(a[x]) * 255) }
    case (.oneComponent16Half, .oneComponent32Float):
        let a = s.assumingMemoryBound(to: Float16.self), b = d.assumingMemoryBound(to: Float.self)
        for x in 0..<w { b[x] = Float(a[x]) }
    case (.oneComponent32Float, .oneComponent8):
        let a = s.assumingMemoryBound(to: Float.self), b = d.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w { b[x] = clampToByte(a[x] * 255) }
    case (.oneComponent32Float, .oneComponent16Half):
        let a = s.assumingMemoryBound(to: Float.self), b = d.assumingMemoryBound(to: Float16.self)
        for x in 0..<w { b[x] = Float16(a[x]) }
    default:
        d.copyMemory(from: s, byteCount: w * sf.bytesPerPixel)
    }
}

/// YUV luma → one-component grey (video range expanded to 0…255).
private func yuvLumaToOneComponentRow(
    _ s: UnsafeRawPointer, _ sf: PixelFormat, _ d: UnsafeMutableRawPointer, _ df: PixelFormat, width w: Int
) {
    let m = YCbCrMatrix.forFormat(sf)
    let a = s.assumingMemoryBound(to: UInt8.self)
    @inline(__always) func grey(_ v: UInt8) -> Int32 {
        YCbCrMatrix.clamp8(((Int32(v) &- m.yOffset) &* m.yScale &+ 32768) &>> 16)
    }
    switch df {
    case .oneComponent8:
        let b = d.assumingMemoryBound(to: UInt8.self)
        for x in 0..<w { b[x] = UInt8(truncatingIfNeeded: grey(a[x])) }
    case .oneComponent16Half:
        let b = d.assumingMemoryBound(to: Float16.self)
        for x in 0..<w { b[x] = Float16(Float(grey(a[x])) / 255) }
    default:
        let b = d.assumingMemoryBound(to: Float.self)
        for x in 0..<w { b[x] = Float(grey(a[x])) / 255 }
    }
}

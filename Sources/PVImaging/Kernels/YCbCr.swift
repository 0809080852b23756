/// BT.601 Y′CbCr ↔ R′G′B′ in 16.16 fixed point, for the bi-planar 4:2:0 formats.
///
/// Full range (`420f`, JPEG): Y, Cb, Cr all span 0–255. Video range (`420v`): Y spans 16–235 and
/// Cb, Cr span 16–240. Results are rounded to the nearest integer and clamped to 0–255.
struct YCbCrMatrix: Sendable {
    // Decode: rgb = yScale·(Y − yOffset) + chroma terms, each (Cb|Cr − 128).
    let yOffset: Int32
    let yScale: Int32
    let crToR: Int32
    let cbToG: Int32
    let crToG: Int32
    let cbToB: Int32
    // Encode: Y = yOffset + (yr R + yg G + yb B); Cb/Cr = 128 + (…).
    let yr: Int32, yg: Int32, yb: Int32
    let cbr: Int32, cbg: Int32, cbb: Int32
    let crr: Int32, crg: Int32, crb: Int32

    private init(videoRange: Bool) {
        func fx(_ v: Double) -> Int32 { Int32((v * 65536).rounded()) }
        let ys = videoRange ? 255.0 / 219.0 : 1.0
        let cs = videoRange ? 255.0 / 224.0 : 1.0
        yOffset = videoRange ? 16 : 0
        yScale = fx(ys)
        crToR = fx(1.402 * cs)
        cbToG = fx(0.344136 * cs)
        crToG = fx(0.714136 * cs)
        cbToB = fx(1.772 * cs)
        let ye = 1 / ys, ce = 1 / cs
        yr = fx(0.299 * ye); yg = fx(0.587 * ye); yb = fx(0.114 * ye)
        cbr = fx(-0.168736 * ce); cbg = fx(-0.331264 * ce); cbb = fx(0.5 * ce)
        crr = fx(0.5 * ce); crg = fx(-0.418688 * ce); crb = fx(-0.081312 * ce)
    }

    static let fullRange = YCbCrMatrix(videoRange: false)
    static let videoRange = YCbCrMatrix(videoRange: true)

    static func forFormat(_ format: PixelFormat) -> YCbCrMatrix {
        format == .yuv420BiPlanarVideoRange ? videoRange : fullRange
    }

    @inline(__always) static func clamp8(_ v: Int32) -> Int32 { min(max(v, 0), 255) }

    /// R, G, B in 0–255 for one sample.
    @inline(__always)
    func rgb(y: Int32, cb: Int32, cr: Int32) -> (r: Int32, g: Int32, b: Int32) {
        let yy = (y &- yOffset) &* yScale &+ 32768
        let u = cb &- 128, v = cr &- 128
        let r = (yy &+ crToR &* v) &>> 16
        let g = (yy &- cbToG &* u &- crToG &* v) &>> 16
        let b = (yy &+ cbToB &* u) &>> 16
        return (Self.clamp8(r), Self.clamp8(g), Self.clamp8(b))
    }

    /// Luma of one R, G, B sample.
    @inline(__always)
    func luma(r: Int32, g: Int32, b: Int32) -> Int32 {
        Self.clamp8(yOffset &+ ((yr &* r &+ yg &* g &+ yb &* b &+ 32768) &>> 16))
    }

    /// Cb, Cr from R, G, B sums over `n` pixels (n = 1…4).
    @inline(__always)
    func chroma(rSum: Int32, gSum: Int32, bSum: Int32, n: Int32) -> (cb: Int32, cr: Int32) {
        let cbAcc = cbr &* rSum &+ cbg &* gSum &+ cbb &* bSum
        let crAcc = crr &* rSum &+ crg &* gSum &+ crb &* bSum
        // Round-to-nearest division of a signed 16.16 value by n.
        let d = n &* 65536
        let cb = 128 &+ Self.roundedDivide(cbAcc, d)
        let cr = 128 &+ Self.roundedDivide(crAcc, d)
        return (Self.clamp8(cb), Self.clamp8(cr))
    }

    @inline(__always) static func roundedDivide(_ a: Int32, _ d: Int32) -> Int32 {
        a >= 0 ? (a &+ d / 2) / d : -((-a &+ d / 2) / d)
    }
}

/// A matrix's constants splatted across a vector's lanes: ``rgb(y:cb:cr:)`` converts one sample a lane with exactly
/// ``YCbCrMatrix/rgb(y:cb:cr:)``'s fixed point.
struct YCbCrVector<V: SIMD> where V.Scalar == Int32 {
    let c128: V, yOffset: V, yScale: V, half: V, crToR: V, cbToG: V, crToG: V, cbToB: V, shift: V, zero: V, max: V

    @inline(__always) init(_ m: YCbCrMatrix) {
        c128 = V(repeating: 128)
        yOffset = V(repeating: m.yOffset)
        yScale = V(repeating: m.yScale)
        half = V(repeating: 32768)
        crToR = V(repeating: m.crToR)
        cbToG = V(repeating: m.cbToG)
        crToG = V(repeating: m.crToG)
        cbToB = V(repeating: m.cbToB)
        shift = V(repeating: 16)
        zero = V(repeating: 0)
        max = V(repeating: 255)
    }

    /// R, G, B in 0–255, one sample a lane. One SIMD operator per statement with explicit types: operator chains
    /// type-check very slowly.
    @inline(__always) func rgb(y: V, cb: V, cr: V) -> (r: V, g: V, b: V) {
        let u: V = cb &- c128
        let v: V = cr &- c128
        var yy: V = y &- yOffset
        yy = yy &* yScale
        yy = yy &+ half
        var r: V = crToR &* v
        r = r &+ yy
        r = r &>> shift
        var g: V = cbToG &* u
        let g2: V = crToG &* v
        g = yy &- g
        g = g &- g2
        g = g &>> shift
        var b: V = cbToB &* u
        b = b &+ yy
        b = b &>> shift
        return (r.clamped(lowerBound: zero, upperBound: max), g.clamped(lowerBound: zero, upperBound: max),
                b.clamped(lowerBound: zero, upperBound: max))
    }
}

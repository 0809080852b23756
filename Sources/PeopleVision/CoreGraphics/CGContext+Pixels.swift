import Foundation

/// A premultiplied colour with components in 0…1 (grey contexts use `r` only, with g = b = r).
struct PremultipliedColor: Equatable {
    var r: Float, g: Float, b: Float, a: Float

    static let clear = PremultipliedColor(r: 0, g: 0, b: 0, a: 0)

    /// A colour's components (grey + alpha or RGB + alpha, straight) premultiplied; nil components are black.
    init(_ color: CGColor?) {
        let c = (color?.components ?? [0, 1]).map { Float(min(max($0, 0), 1)) }
        let a = c.count >= 4 ? c[3] : (c.count == 2 ? c[1] : 1)
        if c.count >= 3 {
            self.init(r: c[0] * a, g: c[1] * a, b: c[2] * a, a: a)
        } else {
            self.init(r: c[0] * a, g: c[0] * a, b: c[0] * a, a: a)
        }
    }

    init(r: Float, g: Float, b: Float, a: Float) {
        (self.r, self.g, self.b, self.a) = (r, g, b, a)
    }

    func scaled(_ s: Float) -> PremultipliedColor { PremultipliedColor(r: r * s, g: g * s, b: b * s, a: a * s) }

    /// The colour as grey, by the Rec. 709 (sRGB) luma weights.
    var grey: PremultipliedColor {
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        return PremultipliedColor(r: y, g: y, b: y, a: a)
    }
}

/// Where each component of a bitmap context's pixel lives (byte offsets within the pixel).
struct BitmapLayout {
    let bytesPerPixel: Int
    let red: Int, green: Int, blue: Int
    /// The alpha byte, nil when the pixel has none (or skips it).
    let alpha: Int?
    /// The skipped byte of an RGBX or XRGB pixel, nil otherwise.
    let skipped: Int?
    let isGrey: Bool
    let isAlphaOnly: Bool
    let info: CGBitmapInfo

    /// The layout Core Graphics accepts for these parameters, or nil for a combination it rejects (non-premultiplied
    /// alpha, 24-bit RGB, components other than 8 bits): Core Graphics refuses the same combinations.
    init?(bitsPerComponent: Int, space: CGColorSpace?, info: CGBitmapInfo) {
        guard bitsPerComponent == 8, !info.contains(.floatComponents), let alphaInfo = info.alphaInfo, info.byteOrder != nil
        else { return nil }
        self.info = info
        if alphaInfo == .alphaOnly {
            (bytesPerPixel, red, green, blue, alpha, skipped, isGrey, isAlphaOnly) = (1, 0, 0, 0, 0, nil, true, true)
            return
        }
        switch space?.model {
        case .monochrome?:
            guard alphaInfo == .none else { return nil }
            (bytesPerPixel, red, green, blue, alpha, skipped, isGrey, isAlphaOnly) = (1, 0, 0, 0, nil, nil, true, false)
        case .rgb?:
            // Straight alpha (`last`, `first`) is refused, as by Core Graphics.
            guard alphaInfo != .last, alphaInfo != .first, let o = info.fourByteOffsets else { return nil }
            let hasAlpha = alphaInfo == .premultipliedLast || alphaInfo == .premultipliedFirst
            (bytesPerPixel, red, green, blue) = (4, o.red, o.green, o.blue)
            (alpha, skipped, isGrey, isAlphaOnly) = (hasAlpha ? o.alpha : nil, hasAlpha ? nil : o.alpha, false, false)
        default:
            return nil
        }
    }

    @inline(__always)
    func read(_ p: UnsafeMutablePointer<UInt8>) -> PremultipliedColor {
        let a = alpha.map { Float(p[$0]) / 255 } ?? 1
        if isAlphaOnly { return PremultipliedColor(r: 0, g: 0, b: 0, a: a) }
        return PremultipliedColor(r: Float(p[red]) / 255, g: Float(p[green]) / 255, b: Float(p[blue]) / 255, a: a)
    }

    @inline(__always)
    func write(_ c: PremultipliedColor, to p: UnsafeMutablePointer<UInt8>) {
        @inline(__always) func byte(_ v: Float) -> UInt8 { UInt8(min(max(v, 0), 1) * 255 + 0.5) }
        if let alpha { p[alpha] = byte(c.a) }
        if isAlphaOnly { return }
        if isGrey {
            p[red] = byte(c.r)
        } else {
            (p[red], p[green], p[blue]) = (byte(c.r), byte(c.g), byte(c.b))
            // A skipped byte is written as opaque, as Core Graphics leaves it.
            if let skipped { p[skipped] = 255 }
        }
    }
}

/// Core Graphics' blend modes on premultiplied colours (the PDF blend modes and Porter–Duff operators).
enum Compositing {
    /// The result of drawing `s` over `d` in `mode`.
    static func blend(_ s: PremultipliedColor, _ d: PremultipliedColor, _ mode: CGBlendMode) -> PremultipliedColor {
        let sa = s.a, da = d.a
        func pd(_ fs: Float, _ fd: Float) -> PremultipliedColor {
            PremultipliedColor(r: s.r * fs + d.r * fd, g: s.g * fs + d.g * fd, b: s.b * fs + d.b * fd, a: sa * fs + da * fd)
        }
        switch mode {
        case .normal: return pd(1, 1 - sa)
        case .clear: return .clear
        case .copy: return s
        case .sourceIn: return pd(da, 0)
        case .sourceOut: return pd(1 - da, 0)
        case .sourceAtop: return pd(da, 1 - sa)
        case .destinationOver: return pd(1 - da, 1)
        case .destinationIn: return pd(0, sa)
        case .destinationOut: return pd(0, 1 - sa)
        case .destinationAtop: return pd(1 - da, sa)
        case .xor: return pd(1 - da, 1 - sa)
        case .plusLighter:
            return PremultipliedColor(r: min(1, s.r + d.r), g: min(1, s.g + d.g), b: min(1, s.b + d.b), a: min(1, sa + da))
        case .plusDarker:
            let a = min(1, sa + da)
            func c(_ x: Float, _ y: Float) -> Float { max(0, a - ((da - y) + (sa - x))) }
            return PremultipliedColor(r: c(s.r, d.r), g: c(s.g, d.g), b: c(s.b, d.b), a: a)
        default:
            return mixed(s, d, mode)
        }
    }

    /// The separable and non-separable blend modes: B(Cs, Cb) on straight colours, mixed by the usual formula
    /// `(1 − αb)·S + (1 − αs)·D + αs·αb·B`.
    private static func mixed(_ s: PremultipliedColor, _ d: PremultipliedColor, _ mode: CGBlendMode) -> PremultipliedColor {
        let sa = s.a, da = d.a
        let cs = sa > 0 ? SIMD3<Float>(s.r, s.g, s.b) / sa : .zero
        let cb = da > 0 ? SIMD3<Float>(d.r, d.g, d.b) / da : .zero
        let b = blended(cs, cb, mode)
        let out = (1 - da) * SIMD3<Float>(s.r, s.g, s.b) + (1 - sa) * SIMD3<Float>(d.r, d.g, d.b) + sa * da * b
        return PremultipliedColor(r: out.x, g: out.y, b: out.z, a: sa + da - sa * da)
    }

    private static func blended(_ cs: SIMD3<Float>, _ cb: SIMD3<Float>, _ mode: CGBlendMode) -> SIMD3<Float> {
        func each(_ f: (Float, Float) -> Float) -> SIMD3<Float> { SIMD3(f(cs.x, cb.x), f(cs.y, cb.y), f(cs.z, cb.z)) }
        switch mode {
        case .multiply: return cs * cb
        case .screen: return cs + cb - cs * cb
        case .overlay: return each { s, b in hardLight(b, s) }
        case .darken: return pointwiseMin(cs, cb)
        case .lighten: return pointwiseMax(cs, cb)
        case .colorDodge: return each { s, b in b == 0 ? 0 : (s >= 1 ? 1 : min(1, b / (1 - s))) }
        case .colorBurn: return each { s, b in b >= 1 ? 1 : (s <= 0 ? 0 : 1 - min(1, (1 - b) / s)) }
        case .hardLight: return each { s, b in hardLight(s, b) }
        case .softLight: return each(softLight)
        case .difference: return each { s, b in abs(b - s) }
        case .exclusion: return cs + cb - 2 * cs * cb
        case .hue: return setLum(setSat(cs, sat(cb)), lum(cb))
        case .saturation: return setLum(setSat(cb, sat(cs)), lum(cb))
        case .color: return setLum(cs, lum(cb))
        case .luminosity: return setLum(cb, lum(cs))
        default: return cs
        }
    }

    private static func hardLight(_ s: Float, _ b: Float) -> Float {
        s <= 0.5 ? b * 2 * s : b + (2 * s - 1) - b * (2 * s - 1)
    }

    private static func softLight(_ s: Float, _ b: Float) -> Float {
        if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
        let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
        return b + (2 * s - 1) * (d - b)
    }

    private static func lum(_ c: SIMD3<Float>) -> Float { 0.3 * c.x + 0.59 * c.y + 0.11 * c.z }

    private static func setLum(_ c: SIMD3<Float>, _ l: Float) -> SIMD3<Float> {
        let shifted = c + (l - lum(c))
        let l2 = lum(shifted), n = shifted.min(), x = shifted.max()
        var out = shifted
        if n < 0 { out = l2 + (out - l2) * l2 / (l2 - n) }
        if x > 1 { out = l2 + (out - l2) * (1 - l2) / (x - l2) }
        return out
    }

    private static func sat(_ c: SIMD3<Float>) -> Float { c.max() - c.min() }

    private static func setSat(_ c: SIMD3<Float>, _ s: Float) -> SIMD3<Float> {
        let n = c.min(), x = c.max()
        guard x > n else { return .zero }
        return (c - n) * s / (x - n)
    }
}

import Testing

@testable import PVImaging

@Suite("Kernels: blend, gamma, maximum component, format conversion")
struct KernelsColorTests {
    static let rgbFormats: [PixelFormat] = [.rgba32, .bgra32, .argb32, .rgb24]

    @Test("blend with a one-component 8-bit mask is exact", arguments: rgbFormats)
    func blendOneComponentMask(format: PixelFormat) throws {
        let w = 37, h = 11  // odd width exercises the tails
        let fg = try makeImage(w, h, format, noisePattern(seed: 1))
        let bg = try makeImage(w, h, format, noisePattern(seed: 2))
        let mask = try makeImage(w, h, .oneComponent8, noisePattern(seed: 3))
        let out = try PixelBuffer.blend(foreground: fg, background: bg, mask: mask)
        #expect(out.format == format)
        for y in 0..<h {
            for x in 0..<w {
                let m = readSample(mask, x, y) / 255
                let f = readPixel(fg, x, y), b = readPixel(bg, x, y), o = readPixel(out, x, y)
                for (fc, bc, oc) in [(f.0, b.0, o.0), (f.1, b.1, o.1), (f.2, b.2, o.2), (f.3, b.3, o.3)] {
                    #expect(oc == (bc + m * (fc - bc)).rounded(), "(\(x),\(y))")
                }
            }
        }
    }

    @Test("blend reads red, green or alpha of a 4-channel mask", arguments: [MaskChannel.red, .green, .alpha])
    func blendChannelMask(channel: MaskChannel) throws {
        let w = 20, h = 9
        let fg = try makeImage(w, h, .rgba32, noisePattern(seed: 4))
        let bg = try makeImage(w, h, .rgba32, noisePattern(seed: 5))
        let mask = try makeImage(w, h, .bgra32, noisePattern(seed: 6))
        let out = try PixelBuffer.blend(foreground: fg, background: bg, mask: mask, maskChannel: channel)
        for y in 0..<h {
            for x in 0..<w {
                let mp = readPixel(mask, x, y)
                let m = (channel == .red ? mp.0 : channel == .green ? mp.1 : mp.3) / 255
                let f = readPixel(fg, x, y), b = readPixel(bg, x, y), o = readPixel(out, x, y)
                #expect(o.0 == (b.0 + m * (f.0 - b.0)).rounded())
                #expect(o.2 == (b.2 + m * (f.2 - b.2)).rounded())
            }
        }
    }

    @Test("blend with float and half masks is within 1 LSB", arguments: [PixelFormat.oneComponent32Float, .oneComponent16Half])
    func blendFloatMask(maskFormat: PixelFormat) throws {
        let w = 33, h = 7
        let fg = try makeImage(w, h, .rgba32, noisePattern(seed: 7))
        let bg = try makeImage(w, h, .rgba32, noisePattern(seed: 8))
        let mask = try makeImage(w, h, maskFormat) { x, y in (Double((x * 37 + y * 11) % 256), 0, 0, 0) }
        let out = try PixelBuffer.blend(foreground: fg, background: bg, mask: mask)
        for y in 0..<h {
            for x in 0..<w {
                let m = readSample(mask, x, y)
                let f = readPixel(fg, x, y), b = readPixel(bg, x, y), o = readPixel(out, x, y)
                #expect(abs(o.1 - (b.1 + m * (f.1 - b.1))) <= 1)
            }
        }
    }

    @Test("blend rejects mismatched sizes and formats")
    func blendErrors() throws {
        let a = try PixelBuffer(width: 4, height: 4, format: .rgba32)
        let b = try PixelBuffer(width: 5, height: 4, format: .rgba32)
        let c = try PixelBuffer(width: 4, height: 4, format: .bgra32)
        let m = try PixelBuffer(width: 4, height: 4, format: .oneComponent8)
        let y = try PixelBuffer(width: 4, height: 4, format: .yuv420BiPlanarFullRange)
        #expect(throws: ImagingError.self) { try PixelBuffer.blend(foreground: a, background: b, mask: m) }
        #expect(throws: ImagingError.self) { try PixelBuffer.blend(foreground: a, background: c, mask: m) }
        #expect(throws: ImagingError.self) { try PixelBuffer.blend(foreground: a, background: a, mask: y) }
        #expect(throws: ImagingError.self) { try PixelBuffer.blend(foreground: y, background: y, mask: m) }
    }

    @Test("gamma matches round(255·(v/255)^p) and keeps alpha", arguments: [0.45 as Float, 1, 2.2])
    func gamma8(power: Float) throws {
        let img = try makeImage(64, 5, .argb32, noisePattern(seed: 9))
        let out = try img.gammaAdjusted(power: power)
        for y in 0..<5 {
            for x in 0..<64 {
                let i = readPixel(img, x, y), o = readPixel(out, x, y)
                for (ic, oc) in [(i.0, o.0), (i.1, o.1), (i.2, o.2)] {
                    #expect(abs(oc - (255 * pow(ic / 255, Double(power))).rounded()) <= 1)
                }
                #expect(o.3 == i.3)
            }
        }
    }

    @Test("gamma on float and half grey")
    func gammaFloat() throws {
        for f in [PixelFormat.oneComponent32Float, .oneComponent16Half] {
            let img = try makeImage(40, 3, f) { x, _ in (Double(x) * 6, 0, 0, 0) }
            let out = try img.gammaAdjusted(power: 2.2)
            for x in 0..<40 {
                let v = readSample(img, x, 0)
                let tol = f == .oneComponent16Half ? 2e-3 : 1e-6
                #expect(abs(readSample(out, x, 0) - pow(v, 2.2)) <= tol)
            }
        }
        #expect(throws: ImagingError.self) { try PixelBuffer(width: 2, height: 2, format: .rgba32).gammaAdjusted(power: .nan) }
    }

    @Test("maximum component", arguments: [PixelFormat.rgba32, .bgra32, .argb32, .rgb24])
    func maximumComponent(format: PixelFormat) throws {
        let img = try makeImage(29, 6, format, noisePattern(seed: 10))
        let grey = try img.maximumComponent()
        let asRGB = try img.maximumComponent(format: .rgba32)
        let asFloat = try img.maximumComponent(format: .oneComponent32Float)
        for y in 0..<6 {
            for x in 0..<29 {
                let p = readPixel(img, x, y)
                let m = max(p.0, p.1, p.2)
                #expect(readSample(grey, x, y) == m)
                let q = readPixel(asRGB, x, y)
                #expect(q.0 == m && q.1 == m && q.2 == m && q.3 == p.3)
                #expect(abs(readSample(asFloat, x, y) - m / 255) < 1e-6)
            }
        }
    }

    @Test("RGB-like formats convert into each other losslessly")
    func rgbPermutations() throws {
        let src = try makeImage(19, 4, .rgba32, noisePattern(seed: 11))
        for f in Self.rgbFormats {
            let converted = try src.converted(to: f)
            for g in Self.rgbFormats {
                let back = try converted.converted(to: g)
                for y in 0..<4 {
                    for x in 0..<19 {
                        let a = readPixel(src, x, y), b = readPixel(back, x, y)
                        #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2)
                        let alphaKept = f != .rgb24 && g != .rgb24
                        #expect(b.3 == (alphaKept ? a.3 : 255))
                    }
                }
            }
        }
    }

    @Test("one-component 8 ↔ half ↔ float map 0…255 to 0…1")
    func oneComponentConversions() throws {
        let g8 = try makeImage(256, 1, .oneComponent8) { x, _ in (Double(x), 0, 0, 0) }
        let f32 = try g8.converted(to: .oneComponent32Float)
        let f16 = try g8.converted(to: .oneComponent16Half)
        for x in 0..<256 {
            #expect(abs(readSample(f32, x, 0) - Double(x) / 255) < 1e-7)
            #expect(abs(readSample(f16, x, 0) - Double(x) / 255) < 1e-3)
        }
        let back8 = try f16.converted(to: .oneComponent8)
        let back8f = try f32.converted(to: .oneComponent8)
        let f16f32 = try f16.converted(to: .oneComponent32Float)
        for x in 0..<256 {
            #expect(readSample(back8, x, 0) == Double(x))
            #expect(readSample(back8f, x, 0) == Double(x))
            #expect(readSample(f16f32, x, 0) == readSample(f16, x, 0))
        }
        // Out-of-range floats clamp when going to 8 bits.
        let wild = try makeImage(2, 1, .oneComponent32Float) { x, _ in (x == 0 ? -300 : 900, 0, 0, 0) }
        let w8 = try wild.converted(to: .oneComponent8)
        #expect(readSample(w8, 0, 0) == 0 && readSample(w8, 1, 0) == 255)
    }

    @Test("colour ↔ grey uses BT.601 luma and replication")
    func greyConversions() throws {
        let img = try makeImage(16, 3, .bgra32, noisePattern(seed: 12))
        let grey = try img.converted(to: .oneComponent8)
        for y in 0..<3 {
            for x in 0..<16 {
                let p = readPixel(img, x, y)
                #expect(abs(readSample(grey, x, y) - (0.299 * p.0 + 0.587 * p.1 + 0.114 * p.2)) <= 0.5 + 1e-6)
            }
        }
        let rgb = try grey.converted(to: .rgba32)
        let p = readPixel(rgb, 3, 1), g = readSample(grey, 3, 1)
        #expect(p.0 == g && p.1 == g && p.2 == g && p.3 == 255)
    }

    /// Reference BT.601 decode in Double.
    static func referenceRGB(y: Double, cb: Double, cr: Double, video: Bool) -> (Double, Double, Double) {
        let yy = video ? (y - 16) * 255 / 219 : y
        let u = (cb - 128) * (video ? 255.0 / 224 : 1), v = (cr - 128) * (video ? 255.0 / 224 : 1)
        func c(_ x: Double) -> Double { min(max(x, 0), 255) }
        return (c(yy + 1.402 * v), c(yy - 0.344136 * u - 0.714136 * v), c(yy + 1.772 * u))
    }

    @Test("YUV → RGB matches the BT.601 formula within 1 LSB", arguments: [false, true])
    func yuvToRGB(video: Bool) throws {
        let f: PixelFormat = video ? .yuv420BiPlanarVideoRange : .yuv420BiPlanarFullRange
        var yuv = try PixelBuffer(width: 15, height: 9, format: f)  // odd sizes
        var rng = TestRandom(seed: 13)
        for p in 0..<2 {
            yuv.withUnsafeMutableBytes(plane: p) { raw in
                for i in 0..<raw.count { raw[i] = rng.byte() }
            }
        }
        let rgb = try yuv.converted(to: .rgb24)
        for y in 0..<9 {
            for x in 0..<15 {
                let ly = yuv.withUnsafeBytes(plane: 0) { Double($0[y * yuv.bytesPerRow(plane: 0) + x]) }
                let (cb, cr) = yuv.withUnsafeBytes(plane: 1) { raw in
                    let o = (y / 2) * yuv.bytesPerRow(plane: 1) + (x / 2) * 2
                    return (Double(raw[o]), Double(raw[o + 1]))
                }
                let ref = Self.referenceRGB(y: ly, cb: cb, cr: cr, video: video)
                let got = readPixel(rgb, x, y)
                #expect(abs(got.0 - ref.0) <= 1 && abs(got.1 - ref.1) <= 1 && abs(got.2 - ref.2) <= 1, "(\(x),\(y))")
            }
        }
    }

    @Test("RGB → YUV → RGB round trip within 2 LSB", arguments: [PixelFormat.yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange])
    func yuvRoundTrip(format: PixelFormat) throws {
        // Chroma constant over each 2×2 block (what 4:2:0 can carry); luma free.
        let img = try makeImage(34, 18, .rgba32) { x, y in
            let bx = Double(x / 2), by = Double(y / 2)
            let base = (60 + bx * 5, 80 + by * 6, 150 - bx * 3, 255.0)
            let dl = Double((x * 7 + y * 3) % 9) - 4  // luma detail, same for R, G, B
            return (base.0 + dl, base.1 + dl, base.2 + dl, base.3)
        }
        let yuv = try img.converted(to: format)
        let back = try yuv.converted(to: .rgba32)
        var worst = 0.0
        for y in 0..<18 {
            for x in 0..<34 {
                let a = readPixel(img, x, y), b = readPixel(back, x, y)
                worst = max(worst, abs(a.0 - b.0), abs(a.1 - b.1), abs(a.2 - b.2))
            }
        }
        #expect(worst <= 2, "worst channel error \(worst)")
        // Grey stays neutral: chroma is exactly 128.
        let grey = try makeImage(4, 4, .rgb24) { _, _ in (90, 90, 90, 255) }
        let gy = try grey.converted(to: format)
        gy.withUnsafeBytes(plane: 1) { raw in
            #expect(raw[0] == 128 && raw[1] == 128)
        }
        // YUV → grey reads luma.
        let g8 = try gy.converted(to: .oneComponent8)
        #expect(abs(readSample(g8, 1, 1) - 90) <= 1)
    }

    @Test("convert(into:) checks sizes; converted(to: same) shares storage")
    func conversionMisc() throws {
        let a = try PixelBuffer(width: 4, height: 4, format: .rgba32)
        var b = try PixelBuffer(width: 4, height: 5, format: .bgra32)
        #expect(throws: ImagingError.self) { try a.convert(into: &b) }
        #expect(try a.converted(to: .rgba32).sharesStorage(with: a))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

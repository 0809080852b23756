import Testing

@testable import PVImaging

@Suite("Kernels: resampling")
struct KernelsResamplingTests {
    static let formats: [PixelFormat] = [
        .oneComponent8, .oneComponent16Half, .oneComponent32Float, .rgba32, .bgra32, .argb32, .rgb24,
        .yuv420BiPlanarFullRange,
    ]

    @Test("scale 1 is the identity for every method and format", arguments: formats)
    func identity(format: PixelFormat) throws {
        var img = try PixelBuffer(width: 23, height: 14, format: format)
        var rng = TestRandom(seed: 41)
        for p in 0..<img.planeCount {
            img.withUnsafeMutableBytes(plane: p) { raw in
                for i in 0..<raw.count { raw[i] = rng.byte() & 0x3F }  // small values: finite floats/halves
            }
        }
        for method in ResamplingMethod.allCases {
            let out = try img.resized(width: 23, height: 14, method: method)
            for p in 0..<img.planeCount {
                let n = img.planeWidth(p) * (p == 1 ? 2 : format.bytesPerPixel)
                for y in 0..<img.planeHeight(p) {
                    let a = img.withUnsafeBytes(plane: p) { Array($0[y * img.bytesPerRow(plane: p)..<y * img.bytesPerRow(plane: p) + n]) }
                    let b = out.withUnsafeBytes(plane: p) { Array($0[y * out.bytesPerRow(plane: p)..<y * out.bytesPerRow(plane: p) + n]) }
                    #expect(a == b, "\(method) plane \(p) row \(y)")
                }
            }
        }
    }

    /// Reference half-pixel bilinear (MODELS.md §11.5) in Double.
    static func bilinearRef(_ src: PixelBuffer, _ dw: Int, _ dh: Int, _ x: Int, _ y: Int, _ c: Int) -> Double {
        func coord(_ d: Int, _ sn: Int, _ dn: Int) -> (Int, Int, Double) {
            let s = min(max((Double(d) + 0.5) * Double(sn) / Double(dn) - 0.5, 0), Double(sn - 1))
            let i = Int(s.rounded(.down))
            return (i, min(i + 1, sn - 1), s - Double(i))
        }
        let (x0, x1, ax) = coord(x, src.width, dw), (y0, y1, ay) = coord(y, src.height, dh)
        let top = readSample(src, x0, y0, c) * (1 - ax) + readSample(src, x1, y0, c) * ax
        let bottom = readSample(src, x0, y1, c) * (1 - ax) + readSample(src, x1, y1, c) * ax
        return top * (1 - ay) + bottom * ay
    }

    @Test("bilinear matches half-pixel-centre reference", arguments: [(40, 30, 13, 9), (16, 12, 57, 35), (30, 20, 30, 47)])
    func bilinear(sizes: (Int, Int, Int, Int)) throws {
        let (sw, sh, dw, dh) = sizes
        let rgba = try makeImage(sw, sh, .rgba32, noisePattern(seed: 42))
        let out = try rgba.resized(width: dw, height: dh, method: .bilinear)
        let f = try makeImage(sw, sh, .oneComponent32Float, noisePattern(seed: 43))
        let outF = try f.resized(width: dw, height: dh)
        for y in 0..<dh {
            for x in 0..<dw {
                // 8-bit resampling is fixed point (11-bit weights): within 1 LSB of the exact value.
                for c in 0..<4 {
                    #expect(abs(readSample(out, x, y, c) - Self.bilinearRef(rgba, dw, dh, x, y, c)) < 1)
                }
                #expect(abs(readSample(outF, x, y) - Self.bilinearRef(f, dw, dh, x, y, 0)) <= 1e-5)
            }
        }
    }

    @Test(
        "8-bit bilinear (1, 3 and 4 channels, fixed point) is within 1 LSB of the exact formula",
        arguments: [PixelFormat.oneComponent8, .rgb24, .rgba32, .bgra32, .argb32])
    func bilinear8(format: PixelFormat) throws {
        // Shrink by a non-integer factor, grow, a 2-pixel-wide source, and an output large enough to be
        // split into row bands across threads; odd widths exercise the kernel's tail columns.
        let cases = [(97, 61, 23, 17), (13, 9, 41, 29), (2, 5, 7, 3), (1021, 301, 611, 509)]
        for (sw, sh, dw, dh) in cases {
            let src = try makeImage(sw, sh, format, noisePattern(seed: UInt64(sw * 7 + dh)))
            let out = try src.resized(width: dw, height: dh, method: .bilinear)
            var worst = 0.0
            for y in 0..<dh {
                for x in 0..<dw {
                    for c in 0..<format.bytesPerPixel {
                        worst = max(worst, abs(readSample(out, x, y, c) - Self.bilinearRef(src, dw, dh, x, y, c)))
                    }
                }
            }
            #expect(worst < 1, "\(format) \(sw)×\(sh) → \(dw)×\(dh): worst error \(worst)")
        }
    }

    @Test("known values: 2× mask upsample and 2×2 area average")
    func knownValues() throws {
        // 1×2 mask [0, 1] → 4 wide: centres at −0.25, 0.25, 0.75, 1.25 → clamped 0, 0.25, 0.75, 1.
        let m = try makeImage(2, 1, .oneComponent32Float) { x, _ in (Double(x) * 255, 0, 0, 0) }
        let up = try m.resized(width: 4, height: 1)
        let expected = [0.0, 0.25, 0.75, 1]
        for x in 0..<4 { #expect(abs(readSample(up, x, 0) - expected[x]) < 1e-6) }
        // Area 4×2 → 2×1 averages 2×2 blocks.
        let g = try makeImage(4, 2, .oneComponent8) { x, y in (Double([10, 20, 30, 41][x] + y * 100), 0, 0, 0) }
        let down = try g.resized(width: 2, height: 1, method: .area)
        #expect(readSample(down, 0, 0) == 65)  // (10+20+110+120)/4
        #expect(readSample(down, 1, 0) == 86)  // (30+41+130+141)/4 = 85.5 → 86
    }

    @Test("area with a fractional box matches the overlap-weighted mean")
    func areaFractional() throws {
        let src = try makeImage(10, 7, .oneComponent32Float, noisePattern(seed: 44))
        let out = try src.resized(width: 4, height: 3, method: .area)
        func w(_ d: Int, _ n: Int, _ m: Int) -> [(Int, Double)] {
            let s = Double(n) / Double(m), lo = Double(d) * s, hi = Double(d + 1) * s
            return (0..<n).compactMap { k in
                let o = min(Double(k + 1), hi) - max(Double(k), lo)
                return o > 0 ? (k, o / s) : nil
            }
        }
        for y in 0..<3 {
            for x in 0..<4 {
                var acc = 0.0
                for (ky, a) in w(y, 7, 3) { for (kx, b) in w(x, 10, 4) { acc += a * b * readSample(src, kx, ky) } }
                #expect(abs(readSample(out, x, y) - acc) < 1e-5)
            }
        }
    }

    @Test("Lanczos preserves constants, is symmetric, and stays close to bilinear on smooth data")
    func lanczos() throws {
        let flat = try makeImage(50, 40, .rgba32) { _, _ in (77, 140, 200, 255) }
        for (w, h) in [(20, 13), (111, 97)] {
            let out = try flat.resized(width: w, height: h, method: .lanczos3)
            for (x, y) in [(0, 0), (w / 2, h / 2), (w - 1, h - 1)] {
                let p = readPixel(out, x, y)
                #expect(p.0 == 77 && p.1 == 140 && p.2 == 200 && p.3 == 255)
            }
        }
        // A symmetric ramp stays symmetric.
        let ramp = try makeImage(64, 1, .oneComponent32Float) { x, _ in (Double(min(x, 63 - x)) * 8, 0, 0, 0) }
        let r = try ramp.resized(width: 24, height: 1, method: .lanczos3)
        for x in 0..<12 { #expect(abs(readSample(r, x, 0) - readSample(r, 23 - x, 0)) < 1e-5) }
        // Taps sum to 1.
        let taps = ResampleTaps(method: .lanczos3, source: 1000, destination: 77)
        for d in 0..<77 {
            let s = (0..<taps.counts[d]).reduce(Float(0)) { $0 + taps.weights[d * taps.maxTaps + $1] }
            #expect(abs(s - 1) < 1e-5)
        }
    }

    @Test("resize(into:) requires one format")
    func formatMismatch() throws {
        let a = try PixelBuffer(width: 4, height: 4, format: .rgba32)
        var b = try PixelBuffer(width: 2, height: 2, format: .bgra32)
        #expect(throws: ImagingError.self) { try a.resize(into: &b) }
        #expect(throws: ImagingError.self) { try a.resized(width: 0, height: 3) }
    }
}

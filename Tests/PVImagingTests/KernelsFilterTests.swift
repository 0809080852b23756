import Testing

@testable import PVImaging

@Suite("Kernels: box, Gaussian and guided filters")
struct KernelsFilterTests {
    /// Naive clipped-window mean.
    static func boxRef(_ img: PixelBuffer, _ x: Int, _ y: Int, _ c: Int, _ r: Int) -> Double {
        var s = 0.0, n = 0.0
        for yy in max(0, y - r)...min(img.height - 1, y + r) {
            for xx in max(0, x - r)...min(img.width - 1, x + r) {
                s += readSample(img, xx, yy, c)
                n += 1
            }
        }
        return s / n
    }

    @Test("box filter equals the naive clipped mean", arguments: [0, 1, 3, 12, 40])
    func box(radius: Int) throws {
        let rgba = try makeImage(31, 23, .rgba32, noisePattern(seed: 51))
        let f = try makeImage(31, 23, .oneComponent32Float, noisePattern(seed: 52))
        let h = try makeImage(31, 23, .oneComponent16Half, noisePattern(seed: 53))
        let outRGBA = try rgba.boxFiltered(radius: radius)
        let outF = try f.boxFiltered(radius: radius)
        let outH = try h.boxFiltered(radius: radius)
        for y in 0..<23 {
            for x in 0..<31 {
                for c in 0..<4 {
                    #expect(abs(readSample(outRGBA, x, y, c) - Self.boxRef(rgba, x, y, c, radius)) <= 0.5 + 1e-4)
                }
                #expect(abs(readSample(outF, x, y) - Self.boxRef(f, x, y, 0, radius)) <= 1e-5)
                #expect(abs(readSample(outH, x, y) - Self.boxRef(h, x, y, 0, radius)) <= 2e-3)
            }
        }
    }

    @Test("box filter on a large image with bands matches naive on sampled pixels")
    func boxLarge() throws {
        // Big enough to split into parallel bands.
        let img = try makeImage(700, 500, .oneComponent8, noisePattern(seed: 54))
        let out = try img.boxFiltered(radius: 5)
        for (x, y) in [(0, 0), (350, 250), (699, 499), (13, 166), (600, 167), (5, 333)] {
            #expect(abs(readSample(out, x, y) - Self.boxRef(img, x, y, 0, 5)) <= 0.5 + 1e-4)
        }
    }

    /// Naive replicate-edge Gaussian.
    static func gaussRef(_ img: PixelBuffer, _ x: Int, _ y: Int, _ c: Int, sigma: Double, r: Int) -> Double {
        var k = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let s = k.reduce(0, +)
        k = k.map { $0 / s }
        var acc = 0.0
        for dy in -r...r {
            for dx in -r...r {
                let xx = min(max(x + dx, 0), img.width - 1), yy = min(max(y + dy, 0), img.height - 1)
                acc += k[dy + r] * k[dx + r] * readSample(img, xx, yy, c)
            }
        }
        return acc
    }

    @Test("Gaussian equals naive 2-D convolution with edge extension", arguments: [0.8 as Float, 2, 4.5])
    func gaussian(sigma: Float) throws {
        let img = try makeImage(29, 21, .bgra32, noisePattern(seed: 55))
        let f = try makeImage(29, 21, .oneComponent32Float, noisePattern(seed: 56))
        let r = Int((3 * sigma).rounded(.up))
        let out = try img.gaussianBlurred(sigma: sigma)
        let outF = try f.gaussianBlurred(sigma: sigma)
        for y in 0..<21 {
            for x in 0..<29 {
                for c in 0..<4 {
                    #expect(abs(readSample(out, x, y, c) - Self.gaussRef(img, x, y, c, sigma: Double(sigma), r: r)) <= 0.5 + 1e-3)
                }
                #expect(abs(readSample(outF, x, y) - Self.gaussRef(f, x, y, 0, sigma: Double(sigma), r: r)) <= 1e-5)
            }
        }
        #expect(throws: ImagingError.self) { try img.gaussianBlurred(sigma: -1) }
    }

    @Test("guided filter sharpens a blurred mask at a guide edge", arguments: [GuidedFilter.Guide.grey, .color])
    func guidedEdge(guide: GuidedFilter.Guide) throws {
        // Guide: dark left half, bright right half (a colour edge). Mask: a soft ramp across the edge.
        let w = 64, h = 32
        let image = try makeImage(w, h, .rgba32) { x, _ in x < 32 ? (20, 30, 60, 255) : (230, 200, 150, 255) }
        let mask = try makeImage(w, h, .oneComponent8) { x, _ in (min(max(Double(x - 20) / 24 * 255, 0), 255), 0, 0, 0) }
        let out = try GuidedFilter(radius: 6, epsilon: 1e-3, guide: guide).filter(mask, guide: image)
        #expect(out.format == .oneComponent8 && out.width == w && out.height == h)
        // Steeper transition: the step across the edge grows and both sides move toward 0 / 1.
        let before = readSample(mask, 32, 16) - readSample(mask, 31, 16)
        let after = readSample(out, 32, 16) - readSample(out, 31, 16)
        #expect(after > 4 * before, "edge step \(before) → \(after)")
        #expect(readSample(out, 28, 16) < readSample(mask, 28, 16))
        #expect(readSample(out, 36, 16) > readSample(mask, 36, 16))
        // Flat regions of the guide smooth the mask (no new detail away from the edge).
        #expect(abs(readSample(out, 5, 16) - readSample(mask, 5, 16)) <= 2)
    }

    @Test("guided filter: constant guide gives the box mean; low-res masks and subsampling work")
    func guidedMisc() throws {
        let flat = try makeImage(40, 30, .oneComponent8) { _, _ in (128, 0, 0, 0) }
        let mask = try makeImage(40, 30, .oneComponent32Float, noisePattern(seed: 57))
        let out = try GuidedFilter(radius: 3, epsilon: 1e-2).filter(mask, guide: flat)
        let boxed = try mask.boxFiltered(radius: 3).boxFiltered(radius: 3)
        for (x, y) in [(0, 0), (20, 15), (39, 29)] {
            #expect(abs(readSample(out, x, y) - readSample(boxed, x, y)) < 1e-4)
        }
        // Low-resolution mask, half-float, subsampled coefficients: output follows the guide's size.
        let image = try makeImage(96, 64, .bgra32, smoothPattern)
        let low = try makeImage(24, 16, .oneComponent16Half) { x, _ in (Double(x) * 10, 0, 0, 0) }
        let refined = try GuidedFilter(radius: 8, epsilon: 1e-3, guide: .color, subsampling: 4).filter(low, guide: image)
        #expect(refined.width == 96 && refined.height == 64 && refined.format == .oneComponent16Half)
        for x in stride(from: 0, to: 96, by: 7) {
            let v = readSample(refined, x, 30)
            #expect(v >= 0 && v <= 1)
        }
        #expect(throws: ImagingError.self) { try GuidedFilter(radius: 3, epsilon: 0).filter(mask, guide: flat) }
        #expect(throws: ImagingError.self) { try GuidedFilter(radius: 3, epsilon: 1e-3).filter(image, guide: flat) }
    }

    @Test("guided filter: the 8-bit colour pass gives the general pass's values, for every RGB-like layout")
    func guidedEightBitPass() throws {
        // A size the grid does not divide, so that the edge rows and columns take one tap.
        let mask = try makeImage(101, 67, .oneComponent8, noisePattern(seed: 11))
        let filter = GuidedFilter(radius: 8, epsilon: 1e-3, guide: .color, subsampling: 4)
        for format in [PixelFormat.rgba32, .bgra32, .argb32, .rgb24] {
            let image = try makeImage(101, 67, format, smoothPattern)
            let general = try filter.filter(try mask.converted(to: .oneComponent32Float), guide: image)
            let fast = try filter.filter(mask, guide: image)
            #expect(fast.format == .oneComponent8 && general.format == .oneComponent32Float)
            var worst = 0.0
            for y in 0..<67 {
                for x in 0..<101 { worst = max(worst, abs(readSample(fast, x, y) / 255 - readSample(general, x, y))) }
            }
            // The 8-bit output is rounded to 1/255; the two passes add in different orders (about 1e-6).
            #expect(worst <= 0.5 / 255 + 1e-4, "\(format): \(worst)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

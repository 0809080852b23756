import Foundation
import Testing

@testable import PVImaging

@Suite("Kernels: fused guided mask refinement")
struct KernelsGuidedRefineTests {
    /// He et al.'s colour guided filter written out in Double: box-averaged guide on the grid, clipped-window
    /// means, a 3×3 solve per pixel, means of the coefficients, bilinear upsampling at half-pixel centres, then
    /// the uncertainty blend `m + (q − m)·max(0, 1 − |m − ½|/band)`, clamped to 0…1.
    static func reference(
        mask: [[Double]], guide: PixelBuffer, factor s: Int, radius r: Int, eps: Double, band: Double
    ) -> [[Double]] {
        let W = guide.width, H = guide.height, h = mask.count, w = mask[0].count
        // Guide on the grid, channels 0…1.
        var I = [[[Double]]](repeating: [[Double]](repeating: [0, 0, 0], count: w), count: h)
        for j in 0..<h {
            for i in 0..<w {
                var sum = [0.0, 0, 0]
                var n = 0.0
                for y in (j * s)..<min((j + 1) * s, H) {
                    for x in (i * s)..<min((i + 1) * s, W) {
                        let p = readPixel(guide, x, y)
                        sum[0] += p.0
                        sum[1] += p.1
                        sum[2] += p.2
                        n += 1
                    }
                }
                I[j][i] = sum.map { $0 / n / 255 }
            }
        }
        func mean(_ f: (Int, Int) -> Double, _ j: Int, _ i: Int) -> Double {
            var total = 0.0, n = 0.0
            for y in max(0, j - r)...min(h - 1, j + r) {
                for x in max(0, i - r)...min(w - 1, i + r) {
                    total += f(y, x)
                    n += 1
                }
            }
            return total / n
        }
        // Coefficients per grid pixel: (a_r, a_g, a_b, b).
        var coef = [[[Double]]](repeating: [[Double]](repeating: [0, 0, 0, 0], count: w), count: h)
        for j in 0..<h {
            for i in 0..<w {
                let mI = (0..<3).map { c in mean({ I[$0][$1][c] }, j, i) }
                let mp = mean({ mask[$0][$1] }, j, i)
                var S = [[Double]](repeating: [0, 0, 0], count: 3)
                var cov = [0.0, 0, 0]
                for c in 0..<3 {
                    cov[c] = mean({ I[$0][$1][c] * mask[$0][$1] }, j, i) - mI[c] * mp
                    for d in 0..<3 { S[c][d] = mean({ I[$0][$1][c] * I[$0][$1][d] }, j, i) - mI[c] * mI[d] + (c == d ? eps : 0) }
                }
                let a = solve3(S, cov)
                coef[j][i] = a + [mp - a[0] * mI[0] - a[1] * mI[1] - a[2] * mI[2]]
            }
        }
        var meanCoef = coef
        for j in 0..<h { for i in 0..<w { for k in 0..<4 { meanCoef[j][i][k] = mean({ coef[$0][$1][k] }, j, i) } } }
        func tap(_ d: Int, _ n: Int, _ N: Int) -> (Int, Int, Double) {
            let f = min(max((Double(d) + 0.5) * Double(n) / Double(N) - 0.5, 0), Double(n - 1))
            let i0 = Int(f)
            return (i0, min(i0 + 1, n - 1), f - Double(i0))
        }
        var out = [[Double]](repeating: [Double](repeating: 0, count: W), count: H)
        for y in 0..<H {
            let (j0, j1, ay) = tap(y, h, H)
            for x in 0..<W {
                let (i0, i1, ax) = tap(x, w, W)
                func up(_ v: (Int, Int) -> Double) -> Double {
                    let top = v(j0, i0) * (1 - ax) + v(j0, i1) * ax
                    let bottom = v(j1, i0) * (1 - ax) + v(j1, i1) * ax
                    return top * (1 - ay) + bottom * ay
                }
                let c = (0..<4).map { k in up { meanCoef[$0][$1][k] } }
                let m = up { mask[$0][$1] }
                let p = readPixel(guide, x, y)
                let q = c[0] * p.0 / 255 + c[1] * p.1 / 255 + c[2] * p.2 / 255 + c[3]
                let t = max(0, 1 - abs(m - 0.5) / band)
                out[y][x] = min(1, max(0, m + (q - m) * t))
            }
        }
        return out
    }

    static func solve3(_ A: [[Double]], _ b: [Double]) -> [Double] {
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let d = det(A)
        return (0..<3).map { c in
            var m = A
            for r in 0..<3 { m[r][c] = b[r] }
            return det(m) / d
        }
    }

    @Test(
        "refineMask matches the guided-filter formula within 1 LSB of 8-bit output",
        arguments: [(PixelFormat.rgba32, 37, 23, 3), (.bgra32, 41, 30, 4), (.rgb24, 19, 26, 2), (.argb32, 29, 17, 1)])
    func matchesReference(format: PixelFormat, W: Int, H: Int, factor: Int) throws {
        // A guide with an edge the mask only roughly follows, plus texture.
        let guide = try makeImage(W, H, format) { x, y in
            let inside = x * 3 + y * 2 < W * 2
            let n = Double((x * 7 + y * 13) % 17)
            return inside ? (200 - n, 160 + n, 120, 255) : (40 + n, 60, 90 - n, 255)
        }
        let w = (W + factor - 1) / factor, h = (H + factor - 1) / factor
        var maskValues = [[Double]](repeating: [Double](repeating: 0, count: w), count: h)
        var mask = try PixelBuffer(width: w, height: h, format: .oneComponent32Float)
        let stride = mask.bytesPerRow() / 4
        mask.withUnsafeMutableBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            for j in 0..<h {
                for i in 0..<w {
                    let phase: Double = Double(i) * 0.9 - Double(j) * 0.4
                    let value: Double = 0.5 + 0.35 * sin(phase)
                    let v = Float(min(1, max(0, value)))
                    m[j * stride + i] = v
                    maskValues[j][i] = Double(v)
                }
            }
        }
        let out = try #require(
            try GuidedFilter.refineMask(mask, guide: guide, factor: factor, radius: 2, epsilon: 1e-2, band: 0.5))
        #expect(out.width == W && out.height == H && out.format == .oneComponent32Float)
        let ref = Self.reference(mask: maskValues, guide: guide, factor: factor, radius: 2, eps: 1e-2, band: 0.5)
        var worst = 0.0
        for y in 0..<H { for x in 0..<W { worst = max(worst, abs(readSample(out, x, y) - ref[y][x])) } }
        #expect(worst * 255 <= 1, "worst difference \(worst * 255) LSB")
    }

    /// The guide on the grid is each block's exact mean, with the generic loop's rounding, whichever path computes it
    /// (4×4 blocks of 4-byte pixels take a vector path): full and cut blocks, bright pixels, both byte orders.
    @Test(arguments: [(PixelFormat.rgba32, 41, 30, 4), (.bgra32, 64, 32, 4), (.bgra32, 37, 21, 3), (.argb32, 18, 13, 4)])
    func guideOnTheGridIsTheBlockMean(format: PixelFormat, W: Int, H: Int, factor: Int) throws {
        let guide = try makeImage(W, H, format) { x, y in
            (Double((x * 37 + y * 11) % 256), Double(255 - (x * 5 + y * 29) % 256), x % 3 == 0 ? 255 : Double((x * y) % 256), 255)
        }
        let st = try #require(GuidedFilter.guideStatistics(guide, factor: factor, radius: 1, epsilon: 1e-2))
        let w = (W + factor - 1) / factor, h = (H + factor - 1) / factor
        #expect(st.width == w && st.height == h)
        for j in 0..<h {
            for i in 0..<w {
                var sums = [0, 0, 0], count = 0
                for y in (j * factor)..<min((j + 1) * factor, H) {
                    for x in (i * factor)..<min((i + 1) * factor, W) {
                        let p = readPixel(guide, x, y)
                        sums[0] += Int(p.0)
                        sums[1] += Int(p.1)
                        sums[2] += Int(p.2)
                        count += 1
                    }
                }
                let scale: Float = 1 / (255 * Float(count))
                for c in 0..<3 {
                    #expect(st.channels[c].data[j * w + i] == Float(sums[c]) * scale, "channel \(c) at \(i), \(j)")
                }
            }
        }
    }

    @Test("refineMask declines what the fused kernel does not handle")
    func declines() throws {
        let grey = try PixelBuffer(width: 8, height: 8, format: .oneComponent8)
        let rgba = try PixelBuffer(width: 8, height: 8, format: .rgba32)
        let mask = try PixelBuffer(width: 4, height: 4, format: .oneComponent32Float)
        #expect(try GuidedFilter.refineMask(mask, guide: grey, factor: 2, radius: 1, epsilon: 1e-2, band: 0.5) == nil)
        #expect(try GuidedFilter.refineMask(mask, guide: rgba, factor: 3, radius: 1, epsilon: 1e-2, band: 0.5) == nil)
        let mask8 = try PixelBuffer(width: 4, height: 4, format: .oneComponent8)
        #expect(try GuidedFilter.refineMask(mask8, guide: rgba, factor: 2, radius: 1, epsilon: 1e-2, band: 0.5) == nil)
    }

    @Test("the statistics' shrunk guide is the area shrink of the guide, in RGBA whatever the guide's layout",
        arguments: [(PixelFormat.bgra32, 4), (.rgba32, 2), (.argb32, 3)])
    func shrunkGuide(format: PixelFormat, factor k: Int) throws {
        var guide = try PixelBuffer(width: 6 * k, height: 5 * k, format: format)
        var rng = TestRandom(seed: UInt64(70 + k))
        guide.withUnsafeMutableBytes { raw in for i in 0..<raw.count { raw[i] = rng.byte() } }
        let statistics = try #require(GuidedFilter.guideStatistics(guide, factor: k, radius: 1, epsilon: 0.004))
        let shrunk = try statistics.shrunkGuide()
        let expected = try guide.converted(to: .rgba32).resized(width: 6, height: 5, method: .area)
        #expect(shrunk.width == 6 && shrunk.height == 5 && shrunk.format == .rgba32)
        var worst = 0
        shrunk.withUnsafeBytes { a in
            expected.withUnsafeBytes { b in
                for y in 0..<5 {
                    for x in 0..<6 {
                        for c in 0..<3 {
                            worst = max(worst, abs(Int(a[y * shrunk.bytesPerRow() + 4 * x + c]) - Int(b[y * expected.bytesPerRow() + 4 * x + c])))
                        }
                        #expect(a[y * shrunk.bytesPerRow() + 4 * x + 3] == 255)
                    }
                }
            }
        }
        #expect(worst <= 1, "worst \(worst) levels")
    }
}

import Testing

@testable import PVImaging

/// Naive MODELS.md §2.3 in Double: per output pixel, the affine source position, bilinear with
/// zero/replicate border over RGB read by `readPixel`.
func referenceTensor(
    _ image: PixelBuffer, rgbSource: PixelBuffer? = nil, rect: RotatedRect, width tw: Int, height th: Int,
    range: ClosedRange<Double>, letterbox: Bool, zeroBorder: Bool
) -> (tensor: [Double], padding: [Double]) {
    let src = rgbSource ?? image
    var rw = rect.width, rh = rect.height
    var padding = [0.0, 0, 0, 0]
    if letterbox {
        let ta = Double(th) / Double(tw), ra = rh / rw
        if ta > ra {
            rh = rw * ta
            let pv = (1 - ra / ta) / 2
            padding = [0, pv, 0, pv]
        } else {
            rw = rh / ta
            let ph = (1 - ta / ra) / 2
            padding = [ph, 0, ph, 0]
        }
    }
    let c = cos(rect.angle), s = sin(rect.angle)
    let W = src.width, H = src.height
    func px(_ x: Int, _ y: Int) -> (Double, Double, Double) {
        if x < 0 || y < 0 || x >= W || y >= H {
            if zeroBorder { return (0, 0, 0) }
            let p = readPixel(src, min(max(x, 0), W - 1), min(max(y, 0), H - 1))
            return (p.0, p.1, p.2)
        }
        let p = readPixel(src, x, y)
        return (p.0, p.1, p.2)
    }
    var out = [Double](repeating: 0, count: tw * th * 3)
    for j in 0..<th {
        for i in 0..<tw {
            let u = Double(i) / Double(tw) - 0.5, v = Double(j) / Double(th) - 0.5
            let sx = rect.centerX + u * rw * c - v * rh * s
            let sy = rect.centerY + u * rw * s + v * rh * c
            let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
            let ax = sx - Double(x0), ay = sy - Double(y0)
            let p00 = px(x0, y0), p01 = px(x0 + 1, y0), p10 = px(x0, y0 + 1), p11 = px(x0 + 1, y0 + 1)
            func lerp(_ a: Double, _ b: Double, _ cc: Double, _ d: Double) -> Double {
                (a * (1 - ax) + b * ax) * (1 - ay) + (cc * (1 - ax) + d * ax) * ay
            }
            let rgb = [lerp(p00.0, p01.0, p10.0, p11.0), lerp(p00.1, p01.1, p10.1, p11.1), lerp(p00.2, p01.2, p10.2, p11.2)]
            for k in 0..<3 {
                out[(j * tw + i) * 3 + k] = rgb[k] * (range.upperBound - range.lowerBound) / 255 + range.lowerBound
            }
        }
    }
    return (out, padding)
}

func maxDifference(_ a: [Float], _ b: [Double]) -> Double {
    zip(a, b).reduce(0) { max($0, abs(Double($1.0) - $1.1)) }
}

@Suite("TensorSampler: fused crop/rotate/resize/normalise (MODELS.md §2)")
struct TensorSamplerTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let format: PixelFormat
        let fit: FitMode
        let border: BorderMode
        let angle: Double
        var testDescription: String { "\(format) \(fit) \(border) θ=\(angle)" }
    }

    static let cases: [Case] = {
        var all = [Case]()
        for f in [PixelFormat.rgba32, .bgra32, .argb32, .rgb24, .oneComponent8, .oneComponent32Float] {
            for fit in [FitMode.stretch, .letterbox] {
                for border in [BorderMode.zero, .replicate] {
                    for angle in [0.0, 0.3] { all.append(Case(format: f, fit: fit, border: border, angle: angle)) }
                }
            }
        }
        return all
    }()

    @Test("matches a naive Double reference", arguments: cases)
    func matchesReference(c: Case) throws {
        let image = try makeImage(97, 61, c.format, smoothPattern)
        // A rect that sticks out of the image so both borders are exercised.
        let rect = RotatedRect(centerX: 40.3, centerY: 27.8, width: 90.5, height: 55.25, angle: c.angle)
        let sampler = TensorSampler(width: 48, height: 40, range: -1...1, fit: c.fit, border: c.border)
        var tensor = [Float](repeating: .nan, count: sampler.elementCount)
        let padding = try tensor.withUnsafeMutableBufferPointer { try sampler.sample(image, rect: rect, into: $0) }
        let ref = referenceTensor(
            image, rect: rect, width: 48, height: 40, range: -1...1, letterbox: c.fit == .letterbox,
            zeroBorder: c.border == .zero)
        #expect(maxDifference(tensor, ref.tensor) <= 1e-4)
        #expect(abs(padding.left - ref.padding[0]) < 1e-12 && abs(padding.top - ref.padding[1]) < 1e-12)
        #expect(padding.right == padding.left && padding.bottom == padding.top)
        if c.fit == .stretch { #expect(padding == .zero) }
    }

    /// The 4-byte formats go through the C kernels, RGB24 through the Swift loops: both must give the same bits,
    /// inside the image and on both borders, rotated and axis-aligned, stretched and letterboxed.
    @Test("4-byte sources give exactly the tensor of the same image in RGB24", arguments: [PixelFormat.rgba32, .bgra32, .argb32])
    func packedFourMatchesSwiftPath(format: PixelFormat) throws {
        let rgb = try makeImage(97, 61, .rgb24, smoothPattern)
        let image = try rgb.converted(to: format)
        // The first rect crosses the borders; the second lies inside the image (whole rows of 16-pixel vectors).
        for (angle, inside) in [(0.0, false), (0.3, false), (-1.2, false), (0.0, true), (0.12, true), (-0.2, true)] {
            for fit in [FitMode.stretch, .letterbox] {
                for border in [BorderMode.zero, .replicate] {
                    let rect = inside
                        ? RotatedRect(centerX: 48.6, centerY: 30.1, width: 52.5, height: 38.25, angle: angle)
                        : RotatedRect(centerX: 40.3, centerY: 27.8, width: 90.5, height: 55.25, angle: angle)
                    let sampler = TensorSampler(width: 50, height: 40, range: -1...1, fit: fit, border: border)
                    var fast = [Float](repeating: .nan, count: sampler.elementCount), swift = fast
                    try fast.withUnsafeMutableBufferPointer { _ = try sampler.sample(image, rect: rect, into: $0) }
                    try swift.withUnsafeMutableBufferPointer { _ = try sampler.sample(rgb, rect: rect, into: $0) }
                    #expect(fast.map(\.bitPattern) == swift.map(\.bitPattern), "θ=\(angle) \(fit) \(border) inside: \(inside)")
                }
            }
        }
    }

    @Test("YUV sources sample like their RGB conversion", arguments: [PixelFormat.yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange])
    func yuvSource(format: PixelFormat) throws {
        let rgb = try makeImage(64, 48, .rgba32, smoothPattern)
        let yuv = try rgb.converted(to: format)
        let asRGB = try yuv.converted(to: .rgba32)
        for angle in [0.0, 0.3] {
            let rect = RotatedRect(centerX: 30, centerY: 20, width: 70, height: 50, angle: angle)
            let sampler = TensorSampler(width: 32, height: 24, range: 0...1, fit: .letterbox, border: .replicate)
            var tensor = [Float](repeating: .nan, count: sampler.elementCount)
            try tensor.withUnsafeMutableBufferPointer { _ = try sampler.sample(yuv, rect: rect, into: $0) }
            let ref = referenceTensor(
                yuv, rgbSource: asRGB, rect: rect, width: 32, height: 24, range: 0...1, letterbox: true, zeroBorder: false)
            #expect(maxDifference(tensor, ref.tensor) <= 1e-4)
        }
    }

    @Test("whole-image stretch: output (i, j) reads source (i·W/tw, j·H/th), no half-pixel shift")
    func wholeImageStretchGrid() throws {
        // Integer-aligned case: 2× downscale reads exactly the even pixels.
        let image = try makeImage(8, 6, .rgba32, noisePattern(seed: 21))
        let sampler = TensorSampler(width: 4, height: 3, range: 0...255)
        var tensor = [Float](repeating: 0, count: sampler.elementCount)
        try tensor.withUnsafeMutableBufferPointer { _ = try sampler.sample(image, rect: RotatedRect(covering: image), into: $0) }
        for j in 0..<3 {
            for i in 0..<4 {
                let p = readPixel(image, 2 * i, 2 * j)
                #expect(abs(Double(tensor[(j * 4 + i) * 3]) - p.0) < 1e-4)
                #expect(abs(Double(tensor[(j * 4 + i) * 3 + 2]) - p.2) < 1e-4)
            }
        }
    }

    @Test("letterbox of a wide image pads top and bottom with the zero border")
    func letterboxPadding() throws {
        let image = try makeImage(200, 100, .rgb24) { _, _ in (255, 255, 255, 255) }
        let sampler = TensorSampler(width: 64, height: 64, range: -1...1, fit: .letterbox, border: .zero)
        var tensor = [Float](repeating: 0, count: sampler.elementCount)
        let pad = try tensor.withUnsafeMutableBufferPointer {
            try sampler.sample(image, rect: RotatedRect(covering: image), into: $0)
        }
        #expect(abs(pad.top - 0.25) < 1e-12 && pad.left == 0)
        #expect(tensor[0] == -1)  // top-left is padding → RGB 0 → −1
        #expect(abs(tensor[(32 * 64 + 32) * 3] - 1) < 1e-5)  // centre is white
    }

    @Test("invalid arguments throw")
    func errors() throws {
        let image = try PixelBuffer(width: 4, height: 4, format: .rgba32)
        var tensor = [Float](repeating: 0, count: 48)
        tensor.withUnsafeMutableBufferPointer { t in
            #expect(throws: ImagingError.self) {
                try TensorSampler(width: 4, height: 4).sample(image, rect: RotatedRect(centerX: 1, centerY: 1, width: 0, height: 2), into: t)
            }
            #expect(throws: ImagingError.self) {
                try TensorSampler(width: 4, height: 4).sample(image, rect: RotatedRect(centerX: .nan, centerY: 1, width: 2, height: 2), into: t)
            }
            #expect(throws: ImagingError.self) {
                try TensorSampler(width: 0, height: 4).sample(image, rect: RotatedRect(covering: image), into: t)
            }
        }
    }
}

// MARK: - Iris crop (MODELS.md §11.4)

/// Naive §11.4 in Double.
func referenceIris(
    _ image: PixelBuffer, rect: RotatedRect, size: Int, flip: Bool
) -> [Double] {
    let cw = Int(rect.width.rounded()), ch = Int(rect.height.rounded())
    var cx = rect.centerX, cy = rect.centerY
    var c = cos(rect.angle), s = sin(rect.angle)
    if rect.angle == 0 {
        cx = cw % 2 == 0 ? cx.rounded() : (cx + 0.5).rounded() - 0.5
        cy = ch % 2 == 0 ? cy.rounded() : (cy + 0.5).rounded() - 0.5
        c = 1
        s = 0
    }
    var crop = [[Double]](repeating: [0, 0, 0], count: cw * ch)
    for j in 0..<ch {
        for i in 0..<cw {
            let dx = Double(i) + 0.5 - Double(cw) / 2, dy = Double(j) + 0.5 - Double(ch) / 2
            let sx = cx + c * dx - s * dy - 0.5, sy = cy + s * dx + c * dy - 0.5
            let nx = min(max(Int((sx + 0.5).rounded(.down)), 0), image.width - 1)
            let ny = min(max(Int((sy + 0.5).rounded(.down)), 0), image.height - 1)
            let p = readPixel(image, nx, ny)
            crop[j * cw + i] = [p.0, p.1, p.2]
        }
    }
    let sc = min(Double(size) / Double(cw), Double(size) / Double(ch))
    let rw = Int((Double(cw) * sc).rounded()), rh = Int((Double(ch) * sc).rounded())
    // Per-axis weights: area (overlap) when shrinking, else bilinear with half-pixel centres.
    func weights(_ n: Int, _ m: Int, area: Bool) -> [[(Int, Double)]] {
        let scale = Double(n) / Double(m)
        return (0..<m).map { d in
            if area && scale > 1 {
                let lo = Double(d) * scale, hi = Double(d + 1) * scale
                return (0..<n).compactMap { k in
                    let o = min(Double(k + 1), hi) - max(Double(k), lo)
                    return o > 0 ? (k, o / scale) : nil
                }
            }
            let sp = min(max((Double(d) + 0.5) * scale - 0.5, 0), Double(n - 1))
            let k0 = Int(sp.rounded(.down)), a = sp - Double(k0)
            return [(k0, 1 - a), (min(k0 + 1, n - 1), a)]
        }
    }
    let area = sc < 1
    let wx = weights(cw, rw, area: area), wy = weights(ch, rh, area: area)
    let top = (size - rh) / 2, left = (size - rw) / 2
    var out = [Double](repeating: 0, count: size * size * 3)
    for oy in 0..<rh {
        for ox in 0..<rw {
            var acc = [0.0, 0, 0]
            for (ky, wyv) in wy[oy] {
                for (kx, wxv) in wx[ox] {
                    for k in 0..<3 { acc[k] += wyv * wxv * crop[ky * cw + kx][k] }
                }
            }
            let tx = ox + left
            let fx = flip ? size - 1 - tx : tx
            for k in 0..<3 { out[((oy + top) * size + fx) * 3 + k] = acc[k] / 255 }
        }
    }
    return out
}

@Suite("IrisCropSampler (MODELS.md §11.4)")
struct TensorIrisCropTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let rect: RotatedRect
        let flip: Bool
        let format: PixelFormat
        var testDescription: String { "\(rect) flip=\(flip) \(format)" }
    }

    static let cases: [Case] = [
        // Shrink (area), θ = 0 with even and odd sizes, snapping the centre.
        Case(rect: RotatedRect(centerX: 50.3, centerY: 40.6, width: 90.2, height: 80.4), flip: false, format: .rgba32),
        Case(rect: RotatedRect(centerX: 50.5, centerY: 40.2, width: 91, height: 77), flip: true, format: .bgra32),
        // Enlarge (bilinear), rotated, partly outside (replicate).
        Case(rect: RotatedRect(centerX: 8, centerY: 10, width: 30, height: 22, angle: 0.3), flip: false, format: .rgb24),
        Case(rect: RotatedRect(centerX: 60, centerY: 30, width: 41.6, height: 41.6, angle: -1.1), flip: true, format: .oneComponent8),
        // Exactly 64: scale 1.
        Case(rect: RotatedRect(centerX: 60, centerY: 50, width: 64, height: 64), flip: false, format: .argb32),
        // Tall crop, shrinking with a fractional area box.
        Case(rect: RotatedRect(centerX: 70, centerY: 50, width: 45, height: 100, angle: 0.2), flip: false, format: .rgba32),
    ]

    @Test("matches a naive Double reference", arguments: cases)
    func matchesReference(c: Case) throws {
        let image = try makeImage(120, 96, c.format, noisePattern(seed: 31))
        let iris = IrisCropSampler()
        var tensor = [Float](repeating: .nan, count: iris.elementCount)
        let pad = try tensor.withUnsafeMutableBufferPointer {
            try iris.sample(image, rect: c.rect, flipHorizontally: c.flip, into: $0)
        }
        let ref = referenceIris(image, rect: c.rect, size: 64, flip: c.flip)
        #expect(maxDifference(tensor, ref) <= 1e-4)
        let cw = c.rect.width.rounded(), ch = c.rect.height.rounded()
        if cw > ch {
            #expect(abs(pad.top - (1 - ch / cw) / 2) < 1e-12 && pad.left == 0)
        } else {
            #expect(abs(pad.left - (1 - cw / ch) / 2) < 1e-12 && pad.top == 0)
        }
    }

    @Test("θ = 0 with integer placement copies pixels exactly")
    func exactCopy() throws {
        let image = try makeImage(100, 100, .rgba32, noisePattern(seed: 32))
        let iris = IrisCropSampler(range: 0...255)
        var tensor = [Float](repeating: 0, count: iris.elementCount)
        // cw = 64 even → cx snaps to 50; crop column i reads source x = 50 − 32 + i.
        try tensor.withUnsafeMutableBufferPointer {
            _ = try iris.sample(image, rect: RotatedRect(centerX: 50.2, centerY: 49.7, width: 64, height: 64), into: $0)
        }
        for (i, j) in [(0, 0), (5, 9), (63, 63)] {
            let p = readPixel(image, 18 + i, 18 + j)
            #expect(Double(tensor[(j * 64 + i) * 3 + 1]) == p.1)
        }
    }

    @Test("degenerate rects throw")
    func errors() throws {
        let image = try PixelBuffer(width: 10, height: 10, format: .rgba32)
        var tensor = [Float](repeating: 0, count: 64 * 64 * 3)
        tensor.withUnsafeMutableBufferPointer { t in
            #expect(throws: ImagingError.self) {
                try IrisCropSampler().sample(image, rect: RotatedRect(centerX: 5, centerY: 5, width: 0.4, height: 3), into: t)
            }
            #expect(throws: ImagingError.self) {
                try IrisCropSampler().sample(image, rect: RotatedRect(centerX: 5, centerY: 5, width: 1e9, height: 3), into: t)
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

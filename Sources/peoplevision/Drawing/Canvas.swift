import PVImaging

/// An RGBA8 picture to draw results on: pixel coordinates, top-left origin.
struct Canvas {
    /// A drawing colour.
    struct Color {
        var r: UInt8, g: UInt8, b: UInt8, a: UInt8
        init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
            self.r = r
            self.g = g
            self.b = b
            self.a = a
        }
        static let red = Color(r: 255, g: 0, b: 0), green = Color(r: 0, g: 255, b: 0), blue = Color(r: 0, g: 0, b: 255)
        static let yellow = Color(r: 255, g: 255, b: 0), cyan = Color(r: 0, g: 255, b: 255), magenta = Color(r: 255, g: 0, b: 255)
        static let white = Color(r: 255, g: 255, b: 255), black = Color(r: 0, g: 0, b: 0)
    }

    /// The picture.
    var picture: PixelBuffer

    init(_ image: PixelBuffer) throws { picture = try image.converted(to: .rgba32) }

    private mutating func plot(_ x: Int, _ y: Int, _ c: Color) {
        guard x >= 0, y >= 0, x < picture.width, y < picture.height else { return }
        let stride = picture.bytesPerRow()
        let a = Int(c.a)
        picture.withUnsafeMutableBytes { p in
            let o = y * stride + 4 * x
            for (k, v) in [c.r, c.g, c.b].enumerated() {
                p[o + k] = UInt8((Int(p[o + k]) * (255 - a) + Int(v) * a) / 255)
            }
        }
    }

    /// A filled disc.
    mutating func dot(_ p: SIMD2<Double>, radius: Double, color: Color) {
        let r = max(0.5, radius)
        for y in Int((p.y - r).rounded(.down))...Int((p.y + r).rounded(.up)) {
            for x in Int((p.x - r).rounded(.down))...Int((p.x + r).rounded(.up)) {
                let dx = Double(x) - p.x, dy = Double(y) - p.y
                if dx * dx + dy * dy <= r * r { plot(x, y, color) }
            }
        }
    }

    /// A straight line.
    mutating func line(_ a: SIMD2<Double>, _ b: SIMD2<Double>, color: Color, width: Double = 2) {
        let d = b - a
        let steps = max(1, Int(max(abs(d.x), abs(d.y)).rounded(.up)))
        guard steps < 100_000 else { return }
        for i in 0...steps { dot(a + d * (Double(i) / Double(steps)), radius: width / 2, color: color) }
    }

    /// Connected line segments.
    mutating func polyline(_ points: [SIMD2<Double>], closed: Bool = false, color: Color, width: Double = 2) {
        for (p, q) in zip(points, points.dropFirst()) { line(p, q, color: color, width: width) }
        if closed, let f = points.first, let l = points.last { line(l, f, color: color, width: width) }
    }

    /// A rectangle outline.
    mutating func rectangle(x: Double, y: Double, width: Double, height: Double, color: Color, lineWidth: Double = 2) {
        polyline([SIMD2(x, y), SIMD2(x + width, y), SIMD2(x + width, y + height), SIMD2(x, y + height)],
                 closed: true, color: color, width: lineWidth)
    }

    /// Text as blocks of a tiny 3×5 font (L, R and ? only; other characters as blocks).
    mutating func text(_ string: String, at origin: SIMD2<Double>, color: Color, scale: Double = 2) {
        let glyphs: [Character: [String]] = [
            "L": ["1..", "1..", "1..", "1..", "111"], "R": ["11.", "1.1", "11.", "1.1", "1.1"],
            "?": ["111", "..1", ".1.", "...", ".1."],
        ]
        for (k, ch) in string.enumerated() {
            let rows = glyphs[ch] ?? ["111", "111", "111", "111", "111"]
            for (j, row) in rows.enumerated() {
                for (i, bit) in row.enumerated() where bit == "1" {
                    let x0 = origin.x + (Double(k * 4 + i)) * scale, y0 = origin.y + Double(j) * scale
                    for y in Int(y0)..<Int(y0 + scale) { for x in Int(x0)..<Int(x0 + scale) { plot(x, y, color) } }
                }
            }
        }
    }
}

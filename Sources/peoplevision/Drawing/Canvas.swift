import PVImaging

/// An RGBA8 picture that command-line overlays draw results on.
///
/// Coordinates are pixels with a top-left origin (as in image files); callers convert Vision's
/// normalized lower-left coordinates with ``point(normalized:)``. Lines and dots are antialiased by
/// their exact coverage of each pixel's centre, so thin skeletons stay legible on large photos.
struct Canvas {
    /// A straight-alpha RGBA colour.
    struct Color: Sendable, Equatable {
        var r: UInt8, g: UInt8, b: UInt8, a: UInt8

        init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
            self.r = r; self.g = g; self.b = b; self.a = a
        }

        /// A saturated colour on the hue circle, `hue` in [0, 1) (wraps).
        init(hue: Double, alpha: UInt8 = 255) {
            let h = (hue - hue.rounded(.down)) * 6
            let x = 1 - abs(h.truncatingRemainder(dividingBy: 2) - 1)
            let (r, g, b): (Double, Double, Double) =
                switch Int(h) {
                case 0: (1, x, 0)
                case 1: (x, 1, 0)
                case 2: (0, 1, x)
                case 3: (0, x, 1)
                case 4: (x, 0, 1)
                default: (1, 0, x)
                }
            self.init(r: UInt8((r * 255).rounded()), g: UInt8((g * 255).rounded()), b: UInt8((b * 255).rounded()), a: alpha)
        }

        func withAlpha(_ a: UInt8) -> Color { Color(r: r, g: g, b: b, a: a) }

        static let red = Color(r: 235, g: 40, b: 40)
        static let green = Color(r: 40, g: 210, b: 70)
        static let blue = Color(r: 50, g: 110, b: 255)
        static let yellow = Color(r: 250, g: 220, b: 30)
        static let cyan = Color(r: 30, g: 220, b: 230)
        static let magenta = Color(r: 255, g: 0, b: 200)
        static let white = Color(r: 255, g: 255, b: 255)
        static let black = Color(r: 0, g: 0, b: 0)
    }

    /// The picture drawn so far (`.rgba32`).
    private(set) var picture: PixelBuffer

    var width: Int { picture.width }
    var height: Int { picture.height }

    /// Starts from a copy of `image` converted to RGBA8.
    init(_ image: PixelBuffer) throws {
        picture = try image.converted(to: .rgba32)
    }

    /// The pixel position of a Vision point (normalized, lower-left origin).
    func point(normalized p: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2(p.x * Double(width), (1 - p.y) * Double(height))
    }

    /// Tints the picture where `mask` (any one-component format, any size: stretched over the
    /// picture) is set: `opacity` × mask value of `color` over each pixel.
    mutating func tint(mask: PixelBuffer, color: Color, opacity: Double) throws {
        let m = try mask.converted(to: .oneComponent32Float).resized(width: width, height: height, method: .bilinear)
        let ms = m.bytesPerRow() / 4
        let w = width, h = height
        m.withUnsafeBytes { raw in
            let values = raw.bindMemory(to: Float.self)
            draw { plot in
                for y in 0..<h {
                    for x in 0..<w {
                        let v = Double(min(1, max(0, values[y * ms + x])))
                        if v > 0 { plot(x, y, color, opacity * v) }
                    }
                }
            }
        }
    }

    /// A line `width` pixels wide with round caps.
    mutating func line(_ a: SIMD2<Double>, _ b: SIMD2<Double>, color: Color, width lineWidth: Double = 2) {
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite, lineWidth.isFinite else { return }
        let r = max(0.5, lineWidth / 2)
        guard max(a.x, b.x) + r >= 0, min(a.x, b.x) - r < Double(width), max(a.y, b.y) + r >= 0, min(a.y, b.y) - r < Double(height) else { return }
        let x0 = max(0, Int((min(a.x, b.x) - r - 1).rounded(.down))), x1 = min(width - 1, Int((max(a.x, b.x) + r + 1).rounded(.up)))
        let y0 = max(0, Int((min(a.y, b.y) - r - 1).rounded(.down))), y1 = min(height - 1, Int((max(a.y, b.y) + r + 1).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        let d = b - a
        let len2 = (d * d).sum()
        draw { plot in
            for y in y0...y1 {
                for x in x0...x1 {
                    let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                    let t = len2 > 0 ? min(1, max(0, ((p - a) * d).sum() / len2)) : 0
                    let q = p - (a + t * d)
                    let coverage = min(1, max(0, r + 0.5 - (q * q).sum().squareRoot()))
                    if coverage > 0 { plot(x, y, color, coverage) }
                }
            }
        }
    }

    /// Connected line segments through `points`; `closed` joins the last point to the first.
    mutating func polyline(_ points: [SIMD2<Double>], closed: Bool, color: Color, width lineWidth: Double = 2) {
        guard points.count > 1 else {
            if let p = points.first { dot(p, radius: lineWidth / 2, color: color) }
            return
        }
        for k in 1..<points.count { line(points[k - 1], points[k], color: color, width: lineWidth) }
        if closed, points.count > 2 { line(points[points.count - 1], points[0], color: color, width: lineWidth) }
    }

    /// The outline of an axis-aligned rectangle (top-left corner `x`, `y`).
    mutating func rectangle(x: Double, y: Double, width w: Double, height h: Double, color: Color, lineWidth: Double = 2) {
        let corners = [SIMD2(x, y), SIMD2(x + w, y), SIMD2(x + w, y + h), SIMD2(x, y + h)]
        polyline(corners, closed: true, color: color, width: lineWidth)
    }

    /// A filled disc.
    mutating func dot(_ center: SIMD2<Double>, radius: Double, color: Color) {
        line(center, center, color: color, width: 2 * radius)
    }

    /// Text in a built-in 5×7 pixel font, each font pixel drawn as `scale`×`scale` pixels, top-left
    /// corner at `origin`, over a translucent dark box so it reads on any background. Letters are
    /// drawn as capitals; characters the font lacks are drawn as `?`.
    mutating func text(_ string: String, at origin: SIMD2<Double>, color: Color, scale: Int = 2) {
        let s = max(1, scale)
        let glyphs = string.map { BitmapFont.glyph(for: $0) }
        guard !glyphs.isEmpty else { return }
        guard origin.x.isFinite, origin.y.isFinite, abs(origin.x) < 1e6, abs(origin.y) < 1e6 else { return }
        let ox = Int(origin.x.rounded()), oy = Int(origin.y.rounded())
        let boxWidth = glyphs.count * 6 * s + s, boxHeight = 9 * s
        let w = width, h = height
        draw { plot in
            for y in Self.clip(oy, oy + boxHeight, h) {
                for x in Self.clip(ox, ox + boxWidth, w) { plot(x, y, .black, 0.55) }
            }
            for (k, rows) in glyphs.enumerated() {
                for (row, bits) in rows.enumerated() {
                    for col in 0..<5 where bits & (0x10 >> col) != 0 {
                        let px = ox + s + (6 * k + col) * s, py = oy + s + row * s
                        for y in Self.clip(py, py + s, h) {
                            for x in Self.clip(px, px + s, w) { plot(x, y, color, 1) }
                        }
                    }
                }
            }
        }
    }

    /// The width in pixels that ``text(_:at:color:scale:)`` covers for `string`.
    static func textWidth(_ string: String, scale: Int = 2) -> Int { string.count * 6 * max(1, scale) + max(1, scale) }

    /// `lower..<upper` limited to `0..<size` (empty when they do not meet).
    private static func clip(_ lower: Int, _ upper: Int, _ size: Int) -> Range<Int> {
        let lo = min(max(0, lower), size)
        return lo..<max(lo, min(upper, size))
    }

    /// Gives `body` a function that composites `color` with a coverage in [0, 1] over pixel (x, y);
    /// callers keep (x, y) inside the picture.
    private mutating func draw(_ body: ((Int, Int, Color, Double) -> Void) -> Void) {
        let stride = picture.bytesPerRow()
        picture.withUnsafeMutableBytes { p in
            body { x, y, color, coverage in
                let a = coverage * Double(color.a) / 255
                guard a > 0 else { return }
                let o = y * stride + 4 * x
                func mix(_ old: UInt8, _ new: UInt8) -> UInt8 { UInt8((Double(old) * (1 - a) + Double(new) * a).rounded()) }
                p[o] = mix(p[o], color.r)
                p[o + 1] = mix(p[o + 1], color.g)
                p[o + 2] = mix(p[o + 2], color.b)
                p[o + 3] = mix(p[o + 3], 255)
            }
        }
    }
}

/// A 5×7 bitmap font: seven rows per glyph, bit 4 is the leftmost column.
enum BitmapFont {
    static func glyph(for character: Character) -> [UInt8] {
        let upper = Character(character.uppercased())
        return table[upper] ?? table["?"]!
    }

    static let table: [Character: [UInt8]] = [
        " ": [0, 0, 0, 0, 0, 0, 0],
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "B": [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E], "D": [0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "G": [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F], "H": [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E], "J": [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        "K": [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11], "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "P": [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        "Q": [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "V": [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A], "X": [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        "Y": [0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04], "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        ".": [0, 0, 0, 0, 0, 0x0C, 0x0C], ",": [0, 0, 0, 0, 0x0C, 0x04, 0x08],
        "-": [0, 0, 0, 0x1F, 0, 0, 0], "+": [0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0],
        ":": [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0], "/": [0, 0x01, 0x02, 0x04, 0x08, 0x10, 0],
        "%": [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03], "(": [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02],
        ")": [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08], "=": [0, 0, 0x1F, 0, 0x1F, 0, 0],
        "_": [0, 0, 0, 0, 0, 0, 0x1F], "°": [0x0C, 0x12, 0x12, 0x0C, 0, 0, 0],
        "#": [0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A], "?": [0x0E, 0x11, 0x01, 0x02, 0x04, 0, 0x04],
        "!": [0x04, 0x04, 0x04, 0x04, 0x04, 0, 0x04], "'": [0x04, 0x04, 0x08, 0, 0, 0, 0],
        "[": [0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E], "]": [0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E],
        "*": [0, 0x04, 0x15, 0x0E, 0x15, 0x04, 0], "<": [0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02],
        ">": [0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08],
    ]
}

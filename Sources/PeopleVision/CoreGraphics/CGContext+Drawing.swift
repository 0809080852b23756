import Foundation
import PVImaging

extension CGContext {
    // MARK: Painting paths

    /// Fills the current path and clears it.
    public func fillPath(using rule: CGPathFillRule = .winding) {
        paint(polygons(devicePath), rule: rule, color: state.fill)
        beginPath()
    }

    /// Fills the current path by the even-odd rule and clears it.
    public func eoFillPath() { fillPath(using: .evenOdd) }

    /// Strokes the current path with the line settings and clears it.
    public func strokePath() {
        paint(strokeOutline(devicePath), rule: .winding, color: state.stroke)
        beginPath()
    }

    /// Fills and/or strokes the current path, then clears it.
    public func drawPath(using mode: CGPathDrawingMode) {
        let path = devicePath
        if mode != .stroke { paint(polygons(path), rule: mode == .eoFill || mode == .eoFillStroke ? .evenOdd : .winding, color: state.fill) }
        if mode == .stroke || mode == .fillStroke || mode == .eoFillStroke {
            paint(strokeOutline(path), rule: .winding, color: state.stroke)
        }
        beginPath()
    }

    /// Fills a rectangle (the current path is left as it is).
    public func fill(_ rect: CGRect) { fill([rect]) }
    /// Fills rectangles.
    public func fill(_ rects: [CGRect]) {
        let path = CGMutablePath()
        path.addRects(rects, transform: state.ctm)
        paint(polygons(path), rule: .winding, color: state.fill)
    }
    /// Fills the ellipse inscribed in `rect`.
    public func fillEllipse(in rect: CGRect) {
        let path = CGMutablePath()
        path.addEllipse(in: rect, transform: state.ctm)
        paint(polygons(path), rule: .winding, color: state.fill)
    }
    /// Strokes a rectangle's outline.
    public func stroke(_ rect: CGRect) {
        let path = CGMutablePath()
        path.addRect(rect, transform: state.ctm)
        paint(strokeOutline(path), rule: .winding, color: state.stroke)
    }
    /// Strokes a rectangle's outline with a line `width` wide.
    public func stroke(_ rect: CGRect, width: CGFloat) {
        saveGState()
        setLineWidth(width)
        stroke(rect)
        restoreGState()
    }
    /// Strokes the ellipse inscribed in `rect`.
    public func strokeEllipse(in rect: CGRect) {
        let path = CGMutablePath()
        path.addEllipse(in: rect, transform: state.ctm)
        paint(strokeOutline(path), rule: .winding, color: state.stroke)
    }
    /// Strokes separate segments: points 0–1, 2–3 and so on.
    public func strokeLineSegments(between points: [CGPoint]) {
        let path = CGMutablePath()
        for i in stride(from: 0, to: points.count - 1, by: 2) {
            path.addLines(between: [points[i], points[i + 1]], transform: state.ctm)
        }
        paint(strokeOutline(path), rule: .winding, color: state.stroke)
    }
    /// Makes a rectangle transparent (every component zero), ignoring the blend mode and alpha but not the clip.
    public func clear(_ rect: CGRect) {
        let path = CGMutablePath()
        path.addRect(rect, transform: state.ctm)
        saveGState()
        (state.blendMode, state.alpha) = (.clear, 1)
        paint(polygons(path), rule: .winding, color: .clear)
        restoreGState()
    }

    // MARK: Clipping

    /// Intersects the clip with the current path's interior and clears the path.
    public func clip(using rule: CGPathFillRule = .winding) {
        intersectClip(Rasterizer.coverage(of: polygons(devicePath), rule: rule, width: width, height: height,
                                          antialias: state.antialias))
        beginPath()
    }
    /// Intersects the clip with the even-odd interior of the current path.
    public func eoClip() { clip(using: .evenOdd) }
    /// Intersects the clip with a rectangle.
    public func clip(to rect: CGRect) { clip(to: [rect]) }
    /// Intersects the clip with the union of rectangles.
    public func clip(to rects: [CGRect]) {
        let path = CGMutablePath()
        path.addRects(rects, transform: state.ctm)
        intersectClip(Rasterizer.coverage(of: polygons(path), rule: .winding, width: width, height: height,
                                          antialias: state.antialias))
    }
    /// Intersects the clip with a mask image drawn into `rect`: its grey level (luminance for a colour image) is how
    /// much shows through — white shows, black hides — and nothing outside `rect` shows.
    public func clip(to rect: CGRect, mask: CGImage) {
        var coverage = [Float](repeating: 0, count: width * height)
        forEachImagePixel(mask, in: rect, tiled: false) { x, y, color in
            coverage[y * width + x] = color.a > 0 ? color.grey.r / color.a : 0
        }
        intersectClip(Coverage(x0: 0, y0: 0, width: width, height: height, values: coverage))
    }
    /// The clip's bounding box in user space (the whole canvas when nothing is clipped).
    public var boundingBoxOfClipPath: CGRect {
        var box = CGRect(x: 0, y: 0, width: width, height: height)
        if let clip = state.clip {
            var (x0, y0, x1, y1) = (width, height, 0, 0)
            for y in 0..<height { for x in 0..<width where clip[y * width + x] > 0 {
                (x0, y0, x1, y1) = (min(x0, x), min(y0, y), max(x1, x + 1), max(y1, y + 1))
            } }
            box = x0 < x1 ? CGRect(x: x0, y: height - y1, width: x1 - x0, height: y1 - y0) : .null
        }
        return box.isNull ? box : box.applying(state.ctm.inverted())
    }

    private func intersectClip(_ coverage: Coverage?) {
        var clip = [Float](repeating: 0, count: width * height)
        if let c = coverage {
            for y in c.y0..<(c.y0 + c.height) {
                for x in c.x0..<(c.x0 + c.width) {
                    clip[y * width + x] = c[x, y] * (state.clip?[y * width + x] ?? 1)
                }
            }
        }
        state.clip = clip
    }

    // MARK: Images

    /// Draws `image` scaled into `rect` (user space), upright when user space is y-up; with `byTiling`, repeats it
    /// over the whole clip at that size.
    public func draw(_ image: CGImage, in rect: CGRect, byTiling: Bool = false) {
        let alpha = state.alpha, mode = state.blendMode
        withPixels { pixel in
            forEachImagePixel(image, in: rect, tiled: byTiling) { x, y, source in
                let coverage = state.clip?[y * width + x] ?? 1
                guard coverage > 0 else { return }
                composite(source.scaled(alpha), coverage: coverage, mode: mode, at: pixel(x, y))
            }
        }
    }

    /// A copy of the pixels as an image (straight alpha, as ``CGImage`` holds; grey for grey and alpha-only
    /// contexts, the latter holding the alpha), or nil when memory runs out.
    public func makeImage() -> CGImage? {
        let format: PixelFormat = layout.isGrey ? .oneComponent8 : .rgba32
        guard var out = try? PixelBuffer(uninitializedWidth: width, height: height, format: format) else { return nil }
        let stride = out.bytesPerRow()
        out.withUnsafeMutableBytes { bytes in
            withPixels { pixel in
                for y in 0..<height {
                    let row = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * stride
                    for x in 0..<width {
                        let c = layout.read(pixel(x, y))
                        if layout.isGrey {
                            row[x] = layout.isAlphaOnly ? Self.byte(c.a) : Self.byte(c.r)
                            continue
                        }
                        let a = c.a > 0 ? c.a : 1
                        (row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) =
                            (Self.byte(c.r / a), Self.byte(c.g / a), Self.byte(c.b / a), Self.byte(c.a))
                    }
                }
            }
        }
        return CGImage(buffer: out)
    }

    // MARK: Internals

    private static func byte(_ v: Float) -> UInt8 { UInt8(min(max(v, 0), 1) * 255 + 0.5) }

    private func withPixels<R>(_ body: ((Int, Int) -> UnsafeMutablePointer<UInt8>) -> R) -> R {
        let base = data!.assumingMemoryBound(to: UInt8.self), stride = bytesPerRow, bpp = layout.bytesPerPixel
        return body { x, y in base + y * stride + x * bpp }
    }

    private func composite(_ source: PremultipliedColor, coverage: Float, mode: CGBlendMode, at p: UnsafeMutablePointer<UInt8>) {
        let d = layout.read(p)
        let s = layout.isGrey ? source.grey : source
        let b = Compositing.blend(s, d, mode)
        let c = coverage
        layout.write(PremultipliedColor(r: d.r + c * (b.r - d.r), g: d.g + c * (b.g - d.g), b: d.b + c * (b.b - d.b),
                                        a: d.a + c * (b.a - d.a)), to: p)
    }

    /// Fills polygons (device space) with `color` through the clip, alpha and blend mode.
    private func paint(_ polygons: [[CGPoint]], rule: CGPathFillRule, color: PremultipliedColor) {
        guard let coverage = Rasterizer.coverage(of: polygons, rule: rule, width: width, height: height,
                                                 antialias: state.antialias)
        else { return }
        let source = color.scaled(state.alpha), mode = state.blendMode
        withPixels { pixel in
            for y in coverage.y0..<(coverage.y0 + coverage.height) {
                for x in coverage.x0..<(coverage.x0 + coverage.width) {
                    let c = coverage[x, y] * (state.clip?[y * width + x] ?? 1)
                    if c > 0 { composite(source, coverage: c, mode: mode, at: pixel(x, y)) }
                }
            }
        }
    }

    /// The current scale of user space (the square root of the CTM's determinant), for choosing curve segments.
    private var deviceScale: CGFloat { abs(state.ctm.a * state.ctm.d - state.ctm.b * state.ctm.c).squareRoot() }

    /// A path's subpaths as polylines, curves flattened finely enough for their size in device pixels.
    func polylines(_ path: CGPath, scale: CGFloat) -> [(points: [CGPoint], closed: Bool)] {
        var result: [(points: [CGPoint], closed: Bool)] = [], current: [CGPoint] = []
        for e in path.elements {
            switch e.type {
            case .moveToPoint:
                if !current.isEmpty { result.append((current, false)) }
                current = [e.points[0]]
            case .addLineToPoint: current.append(e.points[0])
            case .addQuadCurveToPoint, .addCurveToPoint:
                let control = [current.last ?? e.points[0]] + e.points
                var length: CGFloat = 0
                for i in 1..<control.count { length += hypot(control[i].x - control[i - 1].x, control[i].y - control[i - 1].y) }
                let n = max(2, min(256, Int((length * scale / 3).rounded(.up))))
                current += (1...n).map { CGPath.bezier(control, t: CGFloat($0) / CGFloat(n)) }
            case .closeSubpath:
                if !current.isEmpty { result.append((current, true)) }
                current = current.first.map { [$0] } ?? []
            }
        }
        if current.count > 1 { result.append((current, false)) }
        return result
    }

    private func polygons(_ path: CGPath) -> [[CGPoint]] { polylines(path, scale: 1).map(\.points) }

    /// The polygons of a device-space path's stroke, built in user space (so widths and dashes scale with the CTM).
    private func strokeOutline(_ path: CGPath) -> [[CGPoint]] {
        let toUser = state.ctm.inverted()
        guard state.lineWidth > 0, toUser.a.isFinite, toUser.d.isFinite else { return [] }
        var inverse = toUser
        guard let userPath = path.copy(using: &inverse) else { return [] }
        let scale = deviceScale
        let outliner = StrokeOutliner(
            halfWidth: state.lineWidth / 2, cap: state.lineCap, join: state.lineJoin, miterLimit: state.miterLimit,
            circleSegments: max(8, min(96, Int((state.lineWidth * scale * 1.5).rounded(.up)))))
        var pieces: [[CGPoint]] = []
        for line in polylines(userPath, scale: scale) {
            if state.dashLengths.isEmpty {
                pieces += outliner.outline(line.points, closed: line.closed)
            } else {
                for dash in StrokeOutliner.dashes(line.points, closed: line.closed, pattern: state.dashLengths,
                                                  phase: state.dashPhase) {
                    pieces += outliner.outline(dash, closed: false)
                }
            }
        }
        return pieces.map { $0.map { $0.applying(state.ctm) } }
    }

    /// Calls `body` for each canvas pixel (column, row top-down) that `image` drawn into `rect` covers, with the
    /// image's premultiplied colour there.
    private func forEachImagePixel(_ image: CGImage, in rect: CGRect, tiled: Bool, _ body: (Int, Int, PremultipliedColor) -> Void) {
        let r = rect.standardized
        guard r.width > 0, r.height > 0, r.width.isFinite, r.height.isFinite else { return }
        let toUser = state.ctm.inverted()
        guard toUser.a.isFinite, toUser.b.isFinite, toUser.c.isFinite, toUser.d.isFinite else { return }
        let bounds = tiled ? CGRect(x: 0, y: 0, width: width, height: height) : r.applying(state.ctm)
        let x0 = max(0, Int(bounds.minX.rounded(.down))), x1 = min(width, Int(bounds.maxX.rounded(.up)))
        let y0 = max(0, Int((CGFloat(height) - bounds.maxY).rounded(.down)))
        let y1 = min(height, Int((CGFloat(height) - bounds.minY).rounded(.up)))
        guard x0 < x1, y0 < y1 else { return }
        let sampler = ImageSampler(image: image, quality: state.interpolation,
                                   footprintX: hypot(toUser.a, toUser.c) * CGFloat(image.width) / r.width,
                                   footprintY: hypot(toUser.b, toUser.d) * CGFloat(image.height) / r.height)
        for y in y0..<y1 {
            for x in x0..<x1 {
                let user = CGPoint(x: CGFloat(x) + 0.5, y: CGFloat(height - y) - 0.5).applying(toUser)
                var u = (user.x - r.minX) / r.width * CGFloat(image.width)
                var v = (r.maxY - user.y) / r.height * CGFloat(image.height)
                if tiled {
                    u = u.truncatingRemainder(dividingBy: CGFloat(image.width))
                    v = v.truncatingRemainder(dividingBy: CGFloat(image.height))
                    if u < 0 { u += CGFloat(image.width) }
                    if v < 0 { v += CGFloat(image.height) }
                }
                guard u >= 0, v >= 0, u < CGFloat(image.width), v < CGFloat(image.height) else { continue }
                body(x, y, sampler.sample(u: Double(u), v: Double(v)))
            }
        }
    }
}

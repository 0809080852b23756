import Foundation

/// A bitmap drawing destination, as Core Graphics' bitmap `CGContext`: paths, rectangles, ellipses and images drawn
/// into 8-bit RGBA, BGRA, grey or alpha-only memory, yours or the context's own.
///
/// Vision apps use it to draw overlays (boxes, skeletons, contours), to turn a photo into a model's input pixels and
/// to mask images. Coordinates follow Core Graphics: the origin is at the bitmap's **bottom-left**, y grows upward,
/// one unit is one pixel until the current transformation matrix (``ctm``) is changed. Paths are filled with 4× vertical
/// and exact horizontal antialiasing; images are resampled bilinearly, or by an area average when shrinking.
///
/// ```swift
/// let context = CGContext(data: nil, width: 640, height: 480, bitsPerComponent: 8, bytesPerRow: 0,
///                         space: CGColorSpaceCreateDeviceRGB(),
///                         bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)!
/// context.draw(photo, in: CGRect(x: 0, y: 0, width: 640, height: 480))
/// context.setStrokeColor(CGColor(red: 0, green: 1, blue: 0, alpha: 1))
/// context.setLineWidth(3)
/// context.stroke(VNImageRectForNormalizedRect(face.boundingBox, 640, 480))
/// let overlay = context.makeImage()
/// ```
///
/// Not here: text, shadows, gradients, patterns, PDF contexts and colour management (components are drawn as the
/// numbers they are).
public final class CGContext: @unchecked Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bits per colour component (8).
    public let bitsPerComponent: Int
    /// Bytes from one row to the next.
    public let bytesPerRow: Int
    /// The colour space given at creation (nil for alpha-only contexts).
    public let colorSpace: CGColorSpace?
    /// The layout bits given at creation.
    public var bitmapInfo: CGBitmapInfo { layout.info }
    /// Where alpha is.
    public var alphaInfo: CGImageAlphaInfo { layout.info.alphaInfo ?? .none }
    /// Bits per pixel (32 or 8).
    public var bitsPerPixel: Int { layout.bytesPerPixel * 8 }
    /// The pixels (the memory given at creation, or the context's own).
    public var data: UnsafeMutableRawPointer? { memory }

    /// How images are resampled when drawn at another size.
    public var interpolationQuality: CGInterpolationQuality {
        get { state.interpolation }
        set { state.interpolation = newValue }
    }

    let layout: BitmapLayout
    private let memory: UnsafeMutableRawPointer
    private let ownsMemory: Bool
    var state = GraphicsState()
    private var saved: [GraphicsState] = []
    /// The current path, in device space (points are transformed by the CTM when they are added, as in Core
    /// Graphics: changing the CTM later does not move them).
    var devicePath = CGMutablePath()

    /// What `saveGState` keeps and `restoreGState` brings back.
    struct GraphicsState {
        var ctm = CGAffineTransform.identity
        var fill = PremultipliedColor(r: 0, g: 0, b: 0, a: 1)
        var stroke = PremultipliedColor(r: 0, g: 0, b: 0, a: 1)
        var lineWidth: CGFloat = 1
        var lineCap = CGLineCap.butt
        var lineJoin = CGLineJoin.miter
        var miterLimit: CGFloat = 10
        var dashPhase: CGFloat = 0
        var dashLengths: [CGFloat] = []
        var alpha: Float = 1
        var blendMode = CGBlendMode.normal
        var antialias = true
        var interpolation = CGInterpolationQuality.default
        /// Coverage of the clip over the whole canvas (rows top-down); nil when nothing is clipped.
        var clip: [Float]?
    }

    /// A bitmap context over `data` (or over memory of its own when `data` is nil), as Core Graphics'
    /// `CGContext(data:width:height:bitsPerComponent:bytesPerRow:space:bitmapInfo:)`.
    ///
    /// Accepted, as by Core Graphics: 8 bits per component with an RGB space and premultiplied or skipped alpha, first
    /// or last, in the default or 32-bit little-endian order (`premultipliedFirst | byteOrder32Little` is BGRA in
    /// memory); a grey space without alpha; `alphaOnly` (any space). `bytesPerRow` 0 lets the context choose.
    /// - Returns: nil for any other combination, a side that is not positive, or a `bytesPerRow` smaller than a row.
    public init?(
        data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int, bytesPerRow: Int,
        space: CGColorSpace, bitmapInfo: UInt32
    ) {
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16,
              let layout = BitmapLayout(bitsPerComponent: bitsPerComponent, space: space, info: CGBitmapInfo(rawValue: bitmapInfo))
        else { return nil }
        let minimum = width * layout.bytesPerPixel
        let stride = bytesPerRow == 0 ? (minimum + 63) / 64 * 64 : bytesPerRow
        guard stride >= minimum else { return nil }
        (self.width, self.height, self.bitsPerComponent, self.bytesPerRow) = (width, height, bitsPerComponent, stride)
        self.layout = layout
        self.colorSpace = layout.isAlphaOnly ? nil : space
        if let data {
            (memory, ownsMemory) = (data, false)
        } else {
            guard let allocated = calloc(stride * height, 1) else { return nil }
            (memory, ownsMemory) = (allocated, true)
        }
    }

    /// The same context with the layout given as a ``CGBitmapInfo``.
    public convenience init?(
        data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int, bytesPerRow: Int,
        space: CGColorSpace, bitmapInfo: CGBitmapInfo
    ) {
        self.init(data: data, width: width, height: height, bitsPerComponent: bitsPerComponent, bytesPerRow: bytesPerRow,
                  space: space, bitmapInfo: bitmapInfo.rawValue)
    }

    deinit { if ownsMemory { free(memory) } }

    // MARK: Graphics state

    /// Pushes a copy of the graphics state (transform, colours, line settings, alpha, blend mode, clip).
    public func saveGState() { saved.append(state) }

    /// Pops the graphics state saved last (nothing when none is saved).
    public func restoreGState() {
        if let last = saved.popLast() { state = last }
    }

    /// The current transformation matrix: user space to device pixels.
    public var ctm: CGAffineTransform { state.ctm }
    /// The same as ``ctm`` (Apple's `userSpaceToDeviceSpaceTransform`).
    public var userSpaceToDeviceSpaceTransform: CGAffineTransform { state.ctm }

    /// Moves the user-space origin.
    public func translateBy(x: CGFloat, y: CGFloat) { state.ctm = CGAffineTransform(translationX: x, y: y).concatenating(state.ctm) }
    /// Scales user space (`scaleBy(x: 1, y: -1)` after `translateBy(x: 0, y: height)` gives a top-left origin).
    public func scaleBy(x: CGFloat, y: CGFloat) { state.ctm = CGAffineTransform(scaleX: x, y: y).concatenating(state.ctm) }
    /// Rotates user space by `angle` radians, counter-clockwise.
    public func rotate(by angle: CGFloat) { state.ctm = CGAffineTransform(rotationAngle: angle).concatenating(state.ctm) }
    /// Applies `transform` to user space before the current transform.
    public func concatenate(_ transform: CGAffineTransform) { state.ctm = transform.concatenating(state.ctm) }

    /// A user-space point in device pixels.
    public func convertToDeviceSpace(_ point: CGPoint) -> CGPoint { point.applying(state.ctm) }
    /// A device point in user space.
    public func convertToUserSpace(_ point: CGPoint) -> CGPoint { point.applying(state.ctm.inverted()) }
    /// A user-space rectangle's bounding box in device pixels.
    public func convertToDeviceSpace(_ rect: CGRect) -> CGRect { rect.applying(state.ctm) }
    /// A device rectangle's bounding box in user space.
    public func convertToUserSpace(_ rect: CGRect) -> CGRect { rect.applying(state.ctm.inverted()) }

    /// The colour for fills.
    public func setFillColor(_ color: CGColor) { state.fill = PremultipliedColor(color) }
    /// The fill colour from RGB components.
    public func setFillColor(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        setFillColor(CGColor(red: red, green: green, blue: blue, alpha: alpha))
    }
    /// The fill colour from a grey level.
    public func setFillColor(gray: CGFloat, alpha: CGFloat) { setFillColor(CGColor(gray: gray, alpha: alpha)) }
    /// The colour for strokes.
    public func setStrokeColor(_ color: CGColor) { state.stroke = PremultipliedColor(color) }
    /// The stroke colour from RGB components.
    public func setStrokeColor(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        setStrokeColor(CGColor(red: red, green: green, blue: blue, alpha: alpha))
    }
    /// The stroke colour from a grey level.
    public func setStrokeColor(gray: CGFloat, alpha: CGFloat) { setStrokeColor(CGColor(gray: gray, alpha: alpha)) }

    /// The stroke width in user-space units (negative widths are ignored, as by Core Graphics).
    public func setLineWidth(_ width: CGFloat) {
        if width >= 0, width.isFinite { state.lineWidth = width }
    }
    /// How open subpaths end.
    public func setLineCap(_ cap: CGLineCap) { state.lineCap = cap }
    /// How segments meet.
    public func setLineJoin(_ join: CGLineJoin) { state.lineJoin = join }
    /// The longest miter, in line widths, before a miter join becomes a bevel.
    public func setMiterLimit(_ limit: CGFloat) { state.miterLimit = limit }
    /// A dash pattern: alternating painted and unpainted lengths, starting `phase` into the pattern; an empty array
    /// (or one with a negative length, or all zeros) draws solid lines.
    public func setLineDash(phase: CGFloat, lengths: [CGFloat]) {
        let valid = lengths.allSatisfy { $0 >= 0 && $0.isFinite } && lengths.contains { $0 > 0 }
        (state.dashPhase, state.dashLengths) = (phase, valid ? lengths : [])
    }
    /// The opacity everything drawn is multiplied by (clamped to 0…1, as by Core Graphics).
    public func setAlpha(_ alpha: CGFloat) { state.alpha = Float(min(max(alpha, 0), 1)) }
    /// How drawn colour combines with the pixels already there.
    public func setBlendMode(_ mode: CGBlendMode) { state.blendMode = mode }
    /// Whether paths are antialiased.
    public func setShouldAntialias(_ antialias: Bool) { state.antialias = antialias }
    /// Accepted for compatibility; ``setShouldAntialias(_:)`` decides.
    public func setAllowsAntialiasing(_ allows: Bool) {}
    /// Nothing to do for a bitmap context: drawing is done when each call returns.
    public func flush() {}

    // MARK: Path construction

    /// Discards the current path.
    public func beginPath() { devicePath = CGMutablePath() }
    /// Starts a subpath at `point`.
    public func move(to point: CGPoint) { devicePath.move(to: point, transform: state.ctm) }
    /// A line from the current point.
    public func addLine(to point: CGPoint) { devicePath.addLine(to: point, transform: state.ctm) }
    /// Lines through `points`, as a new subpath.
    public func addLines(between points: [CGPoint]) { devicePath.addLines(between: points, transform: state.ctm) }
    /// A cubic curve from the current point.
    public func addCurve(to end: CGPoint, control1: CGPoint, control2: CGPoint) {
        devicePath.addCurve(to: end, control1: control1, control2: control2, transform: state.ctm)
    }
    /// A quadratic curve from the current point.
    public func addQuadCurve(to end: CGPoint, control: CGPoint) {
        devicePath.addQuadCurve(to: end, control: control, transform: state.ctm)
    }
    /// A circular arc (see ``CGMutablePath/addArc(center:radius:startAngle:endAngle:clockwise:transform:)``).
    public func addArc(center: CGPoint, radius: CGFloat, startAngle: CGFloat, endAngle: CGFloat, clockwise: Bool) {
        devicePath.addArc(center: center, radius: radius, startAngle: startAngle, endAngle: endAngle, clockwise: clockwise,
                          transform: state.ctm)
    }
    /// A closed rectangle.
    public func addRect(_ rect: CGRect) { devicePath.addRect(rect, transform: state.ctm) }
    /// Closed rectangles.
    public func addRects(_ rects: [CGRect]) { devicePath.addRects(rects, transform: state.ctm) }
    /// A closed ellipse inscribed in `rect`.
    public func addEllipse(in rect: CGRect) { devicePath.addEllipse(in: rect, transform: state.ctm) }
    /// Another path's elements.
    public func addPath(_ path: CGPath) { devicePath.addPath(path, transform: state.ctm) }
    /// Closes the current subpath.
    public func closePath() { devicePath.closeSubpath() }

    /// Whether the current path is empty.
    public var isPathEmpty: Bool { devicePath.isEmpty }
    /// The current path in user space, or nil when it is empty.
    public var path: CGPath? {
        guard !devicePath.isEmpty else { return nil }
        var inverse = state.ctm.inverted()
        return devicePath.copy(using: &inverse)
    }
    /// The current path's bounding box in user space (`.null` when empty).
    public var boundingBoxOfPath: CGRect { path?.boundingBox ?? .null }
    /// The current path's end point in user space.
    public var currentPointOfPath: CGPoint { devicePath.currentPoint.applying(state.ctm.inverted()) }
}

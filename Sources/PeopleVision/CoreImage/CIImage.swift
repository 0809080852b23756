import Foundation
import PVImaging
import PVRender

/// An image recipe, as Core Image's `CIImage` (iOS 5 / macOS 10.4).
///
/// A `CIImage` holds no pixels of its own: it is an immutable description — a source buffer or
/// colour, then transforms, crops, filters and composites — that a ``CIContext`` evaluates in
/// one fused pass when you render or export it. Building and chaining images is cheap.
///
/// **Coordinates** are Core Image's working space: pixels, origin at the **lower-left**, y up.
/// A `w × h` buffer has ``extent`` `(0, 0, w, h)`; its first row in memory (the top of the
/// picture) is the strip `y ∈ [h − 1, h)`. Outside its extent an image is clear (transparent
/// black). Colours, ``clampedToExtent()`` and some filters have an infinite extent
/// (`CGRect.infinite`): crop those before exporting.
///
/// **Pixels** are read as sRGB-encoded values and blended in that space, premultiplied, in
/// 32-bit float. Apple's default working space is linear extended sRGB, so blends of
/// mid-tones differ slightly from a default Apple `CIContext`; they match one created with
/// `[.workingColorSpace: NSNull()]`. One-component buffers (`L008`, `L00h`, `L00f`) read as grey
/// with opaque alpha (the value in R, G and B), as on Apple platforms.
///
/// ```swift
/// let frame = CIImage(cvPixelBuffer: pixelBuffer)
/// let mask = CIImage(cvPixelBuffer: observation.pixelBuffer)
///     .transformed(by: CGAffineTransform(scaleX: frame.extent.width / CGFloat(maskWidth),
///                                        y: frame.extent.height / CGFloat(maskHeight)))
/// let composite = frame.applyingFilter("CIBlendWithMask", parameters: [
///     kCIInputBackgroundImageKey: background, kCIInputMaskImageKey: mask])
/// try CIContext().writePNGRepresentation(of: composite, to: url, format: .RGBA8,
///                                         colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
/// ```
public final class CIImage: Sendable, CustomStringConvertible {
    /// The rectangle, in working-space pixels, outside which the image is clear.
    public var extent: CGRect { recipe.extent }
    /// What the image is made of, for the renderer.
    let recipe: ImageRecipe
    let info: ImageFileInfo
    /// For a transformed image, the image the transform was applied to: undoing the transform gives it back.
    let transformInput: CIImage?

    init(recipe: ImageRecipe, info: ImageFileInfo = ImageFileInfo(), transformInput: CIImage? = nil) {
        self.recipe = recipe
        self.info = info
        self.transformInput = transformInput
    }

    convenience init(node: ImageRecipe.Node, extent: CGRect, info: ImageFileInfo = ImageFileInfo()) {
        self.init(recipe: ImageRecipe(node, extent: extent), info: info)
    }

    var node: ImageRecipe.Node { recipe.node }

    /// The source this image was created from, if it was.
    var source: ImageSource? {
        if case .source(let s) = node { return s as? ImageSource }
        return nil
    }

    // MARK: Sources

    /// An image of a Core Video pixel buffer, as Core Image's `CIImage(cvPixelBuffer:)`.
    ///
    /// The buffer is read when the image is rendered (not copied now). Four-channel buffers are
    /// taken as premultiplied; 4:2:0 buffers are converted with BT.601 (full or video range as
    /// the format says); depth and disparity formats read like one-component buffers.
    public convenience init(cvPixelBuffer pixelBuffer: CVPixelBuffer) {
        self.init(cvPixelBuffer: pixelBuffer, options: nil)
    }

    /// As ``init(cvPixelBuffer:)``. Only ``CIImageOption/properties`` is used; other options
    /// (such as `.colorSpace`) are accepted and ignored.
    public convenience init(cvPixelBuffer pixelBuffer: CVPixelBuffer, options: [CIImageOption: Any]?) {
        self.init(
            node: .source(ImageSource(storage: .cvPixelBuffer(pixelBuffer), premultiplied: true)),
            extent: CGRect(x: 0, y: 0, width: pixelBuffer.width, height: pixelBuffer.height),
            info: ImageFileInfo(options: options))
    }

    /// An image of a `CGImage`, as Core Image's `CIImage(cgImage:)` (its straight alpha is premultiplied on read).
    public convenience init(cgImage image: CGImage) {
        self.init(cgImage: image, options: nil)
    }

    /// As ``init(cgImage:)``; only ``CIImageOption/properties`` is used.
    public convenience init(cgImage image: CGImage, options: [CIImageOption: Any]?) {
        self.init(
            node: .source(ImageSource(storage: .cgImage(image), premultiplied: false)),
            extent: CGRect(x: 0, y: 0, width: image.width, height: image.height), info: ImageFileInfo(options: options))
    }

    /// An infinite image of one colour, as Core Image's `CIImage(color:)`. Crop it before rendering.
    public convenience init(color: CIColor) {
        self.init(node: .color(color.premultiplied), extent: .infinite)
    }

    /// An image of imaging-layer pixels (straight alpha unless `premultiplied`), for the Vision layer and tools.
    package convenience init(pixels: PixelBuffer, premultiplied: Bool = false) {
        self.init(
            node: .source(ImageSource(storage: .pixels(pixels), premultiplied: premultiplied)),
            extent: CGRect(x: 0, y: 0, width: pixels.width, height: pixels.height))
    }

    /// An image with no pixels, as Core Image's `CIImage.empty()`; its extent is `CGRect.null`
    /// (Apple's exact value is unconfirmed).
    public static func empty() -> CIImage { CIImage(node: .empty, extent: .null) }

    /// Infinite opaque black (`CIImage.black`, iOS 13).
    public static var black: CIImage { CIImage(color: .black) }
    /// Infinite opaque white.
    public static var white: CIImage { CIImage(color: .white) }
    /// Infinite opaque 50% grey.
    public static var gray: CIImage { CIImage(color: .gray) }
    /// Infinite opaque red.
    public static var red: CIImage { CIImage(color: .red) }
    /// Infinite opaque green.
    public static var green: CIImage { CIImage(color: .green) }
    /// Infinite opaque blue.
    public static var blue: CIImage { CIImage(color: .blue) }
    /// Infinite opaque cyan.
    public static var cyan: CIImage { CIImage(color: .cyan) }
    /// Infinite opaque magenta.
    public static var magenta: CIImage { CIImage(color: .magenta) }
    /// Infinite opaque yellow.
    public static var yellow: CIImage { CIImage(color: .yellow) }
    /// Infinite transparent black.
    public static var clear: CIImage { CIImage(color: .clear) }

    // MARK: Accessors

    /// The pixel buffer this image was created from, if it was (Apple's `pixelBuffer`).
    public var pixelBuffer: CVPixelBuffer? {
        if let s = source, case .cvPixelBuffer(let b) = s.storage { return b }
        return nil
    }

    /// The `CGImage` this image was created from, if it was (Apple's `cgImage`).
    public var cgImage: CGImage? {
        if let s = source, case .cgImage(let i) = s.storage { return i }
        return nil
    }

    /// Metadata: the `properties` option if one was given, else what the file said —
    /// `"Orientation"` (EXIF 1–8, when the file has one), `"PixelWidth"`, `"PixelHeight"`.
    /// Apple returns the full ImageIO dictionary; this is a small subset.
    public var properties: [String: Any] { info.properties?.value ?? [:] }

    /// The colour space the pixels are taken to be in: sRGB (grey for grey sources); nil for
    /// recipes. No colour management is done.
    public var colorSpace: CGColorSpace? {
        guard let s = source else { return nil }
        return s.isGrey ? CGColorSpaceCreateDeviceGray() : CGColorSpace(name: CGColorSpace.sRGB)
    }

    public var description: String { "CIImage(extent: \(extent), \(node.summary))" }
}

/// Where a source image's pixels come from.
struct ImageSource: RecipeSource {
    enum Storage: Sendable {
        case cvPixelBuffer(CVPixelBuffer)
        case cgImage(CGImage)
        case pixels(PixelBuffer)
    }
    let storage: Storage
    /// Whether 4-channel pixels are already premultiplied.
    let premultiplied: Bool

    /// The pixels now (a copy-on-write snapshot for pixel buffers).
    var pixels: PixelBuffer {
        switch storage {
        case .cvPixelBuffer(let b): return b.pixelBuffer
        case .cgImage(let i): return i.buffer
        case .pixels(let p): return p
        }
    }

    var isCVPixelBuffer: Bool {
        if case .cvPixelBuffer = storage { return true }
        return false
    }

    var isGrey: Bool {
        switch storage {
        case .cvPixelBuffer(let b): return CVPixelBuffer.layout(for: b.pixelFormatType)?.isOneComponent ?? false
        case .cgImage(let i): return i.buffer.format == .oneComponent8
        case .pixels(let p): return p.format.isOneComponent
        }
    }
}

/// Immutable metadata carried by source images.
struct ImageFileInfo: Sendable {
    /// `[String: Any]` is not Sendable; this box is never mutated after creation.
    final class Properties: @unchecked Sendable {
        let value: [String: Any]
        init(_ value: [String: Any]) { self.value = value }
    }
    var properties: Properties?
    /// The file the image was read from.
    var url: URL?
    /// The depth data the image was made from or read with (``CIImage/depthData``).
    var depthData: AVDepthData?
    /// The matte the image shows, when it was made from one or read with a matte option.
    var semanticSegmentationMatte: AVSemanticSegmentationMatte?
    var portraitEffectsMatte: AVPortraitEffectsMatte?

    init(properties: [String: Any]? = nil) {
        self.properties = properties.map(Properties.init)
    }

    init(options: [CIImageOption: Any]?) {
        self.init(properties: options?[.properties] as? [String: Any])
    }
}

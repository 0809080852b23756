import Foundation
import PVImaging
import PVRender

/// Evaluates ``CIImage`` recipes into pixels, as Core Image's `CIContext`.
///
/// Rendering runs on the CPU: the recipe is compiled for the requested rectangle and evaluated
/// once, fused, in bands of up to 2048 × 8 pixels on up to ``PVImaging/ImagingThreads/maximum``
/// threads; per-pixel filters, crops, composites and bilinear transforms keep no intermediate
/// image, while Gaussian blurs and Lanczos scaling are materialised over just the region needed.
/// Values are premultiplied 32-bit float RGBA in the images' own (sRGB-encoded) space: there
/// is no colour management, which matches an Apple context created with
/// `[.workingColorSpace: NSNull()]` (Apple's default blends in linear light).
///
/// A context holds no per-render state: share one across threads (Apple's is thread-safe too).
///
/// ```swift
/// let context = CIContext()
/// context.render(composite, to: outputPixelBuffer)
/// let cg = context.createCGImage(composite, from: composite.extent)
/// ```
public final class CIContext: Sendable {
    let highQualityDownsample: Bool

    /// A context; see ``CIContextOption`` for what each option does here (only
    /// ``CIContextOption/highQualityDownsample`` changes the output).
    public init(options: [CIContextOption: Any]? = nil) {
        highQualityDownsample = boolOption(options?[.highQualityDownsample])
    }

    /// A context with default options.
    public convenience init() {
        self.init(options: nil)
    }

    /// The working colour space: always nil here (no colour management); Apple's default is
    /// extended linear sRGB.
    public var workingColorSpace: CGColorSpace? { nil }

    /// The working pixel format: always ``CIFormat/RGBAf`` (Apple's default is `RGBAh`).
    public var workingFormat: CIFormat { .RGBAf }

    // MARK: Rendering

    /// Frees cached intermediates (Apple's `clearCaches()`): nothing is cached between renders here, so this does
    /// nothing.
    public func clearCaches() {}

    /// Renders `image` into a pixel buffer, as Core Image's `render(_:to:)`: the buffer shows
    /// the rectangle `(0, 0, width, height)` of the image, top row first.
    ///
    /// Only pixels inside the image's extent are written; the rest of the buffer keeps its
    /// contents (**unconfirmed** against Apple: crop over a background to fill it). 4:2:0
    /// buffers are rewritten whole (outside the extent: black). 8-bit four-channel buffers
    /// receive premultiplied RGBA; one-component buffers BT.601 luma (exact for grey images);
    /// depth and disparity buffers the red channel.
    public func render(_ image: CIImage, to buffer: CVPixelBuffer) {
        render(image, to: buffer, bounds: CGRect(x: 0, y: 0, width: buffer.width, height: buffer.height), colorSpace: nil)
    }

    /// Renders the `bounds` rectangle of `image` into `buffer` (the buffer's top-left pixel shows
    /// the top-left of `bounds`), as Core Image's `render(_:to:bounds:colorSpace:)`. `colorSpace`
    /// is ignored (no colour management).
    public func render(_ image: CIImage, to buffer: CVPixelBuffer, bounds: CGRect, colorSpace: CGColorSpace?) {
        _ = try? render(image, toPixelBuffer: buffer, bounds: bounds)
    }

    /// As ``render(_:to:bounds:colorSpace:)``, with the render's figures; throws for a buffer format it cannot
    /// write and for a failed 4:2:0 conversion.
    func render(_ image: CIImage, toPixelBuffer buffer: CVPixelBuffer, bounds: CGRect) throws -> RenderInfo {
        let area = PixelRect(integral: bounds)
        guard !area.isEmpty, !area.isInfinite else { return RenderInfo() }
        // The buffer covers `area`'s top-left corner.
        let destination = PixelRect(x: area.x, y: area.maxY - buffer.height, w: buffer.width, h: buffer.height)
        let target = destination.intersection(area)
        if let layout = PixelLayout(cvFormat: buffer.pixelFormatType) {
            let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
            let rect = target.intersection(PixelRect(covering: image.extent))
            guard !rect.isEmpty else { return RenderInfo() }
            return buffer.withMutableBytes(plane: 0) { bytes in
                renderRegion(
                    image, rect: rect, destination: destination, layout: layout, unpremultiply: false,
                    into: bytes.baseAddress!, rowBytes: rowBytes)
            }
        }
        guard buffer.layout.isYUV420 else {
            throw CoreImageFailure.make(.unsupportedFormat, "cannot render to pixel format \(buffer.pixelFormatType)")
        }
        do {
            var rgba = try PixelBuffer(width: buffer.width, height: buffer.height, format: .rgba32)
            let rowBytes = rgba.bytesPerRow()
            let info = rgba.withUnsafeMutableBytes { bytes in
                renderRegion(
                    image, rect: target, destination: destination, layout: .rgba8(.rgba), unpremultiply: false,
                    into: bytes.baseAddress!, rowBytes: rowBytes)
            }
            var converted = buffer.pixelBuffer
            try rgba.convert(into: &converted)
            buffer.replace(with: converted)
            return info
        } catch {
            throw CoreImageFailure.make(.unsupportedFormat, "cannot render to a 4:2:0 buffer: \(error)", underlying: error)
        }
    }

    /// Renders the `bounds` rectangle of `image` into memory in `format`, as Core Image's
    /// `render(_:toBitmap:rowBytes:bounds:format:colorSpace:)`. `bounds` is made integral
    /// (outward), and `data` must hold that many rows of `rowBytes`. Every pixel is written (clear
    /// outside the extent), top row first; alpha formats are premultiplied. An unknown format or
    /// an infinite `bounds` writes nothing.
    public func render(
        _ image: CIImage, toBitmap data: UnsafeMutableRawPointer, rowBytes: Int, bounds: CGRect, format: CIFormat,
        colorSpace: CGColorSpace?
    ) {
        let area = PixelRect(integral: bounds)
        guard !area.isEmpty, !area.isInfinite, let layout = format.layout else { return }
        renderRegion(image, rect: area, destination: area, layout: layout, unpremultiply: false, into: data, rowBytes: rowBytes)
    }

    /// Renders the `fromRect` rectangle of `image` into a new `CGImage` (8-bit RGBA, straight
    /// alpha), as Core Image's `createCGImage(_:from:)`.
    ///
    /// - Returns: nil when `fromRect` is infinite, empty or larger than 100 megapixels.
    public func createCGImage(_ image: CIImage, from fromRect: CGRect) -> CGImage? {
        createCGImage(image, from: fromRect, format: .RGBA8, colorSpace: nil)
    }

    /// As ``createCGImage(_:from:)``; one-channel formats (`L8`, `R8`, `A8`, …) or a grey
    /// `colorSpace` give a grey image, every other format 8-bit RGBA (Apple also makes 16-bit and
    /// float CGImages).
    public func createCGImage(_ image: CIImage, from fromRect: CGRect, format: CIFormat, colorSpace: CGColorSpace?) -> CGImage? {
        let area = PixelRect(integral: fromRect)
        guard !fromRect.isInfinite, !area.isInfinite, !area.isEmpty, format.isKnown else { return nil }
        let grey = format.isSingleChannel || colorSpace?.model == .monochrome
        let layout: PixelLayout
        if grey, case .one(let channel, _) = format.layout! {
            layout = .one(channel, .uint8)
        } else {
            layout = grey ? .one(.luma, .uint8) : .rgba8(.rgba)
        }
        guard let pixels = try? renderPixels(image, rect: area, layout: layout, unpremultiply: !grey) else { return nil }
        return CGImage(buffer: pixels)
    }

    /// Renders `image`'s extent (made integral) into a new imaging buffer: for the Vision layer
    /// and tools. `format` must not be 4:2:0.
    ///
    /// - Throws: an `NSError` when the extent is infinite or empty, or the size exceeds the limits.
    package func renderPixels(_ image: CIImage, format: PixelFormat, straightAlpha: Bool = true) throws -> PixelBuffer {
        guard let layout = PixelLayout(format: format) else {
            throw CoreImageFailure.make(.unsupportedFormat, "cannot render to \(format); render RGBA and convert")
        }
        // A decoded image asked for in its own format and alpha convention is its pixels: share them
        // (copy-on-write) instead of rendering a copy. Not for CVPixelBuffers, whose memory callers may
        // write through a base address.
        if let source = image.source, source.premultiplied != straightAlpha, !format.isOneComponent,
            !source.isCVPixelBuffer
        {
            let pixels = source.pixels
            if pixels.format == format, image.extent == CGRect(x: 0, y: 0, width: pixels.width, height: pixels.height) {
                return pixels
            }
        }
        return try renderPixels(image, rect: exportRect(image), layout: layout, unpremultiply: straightAlpha)
    }

    // MARK: Internals

    /// The integral extent to export, or a thrown error for an infinite or empty extent.
    func exportRect(_ image: CIImage) throws -> PixelRect {
        guard !image.extent.isInfinite else {
            throw CoreImageFailure.make(
                .invalidExtent, "cannot export an image with an infinite extent; crop it first (cropped(to:))")
        }
        let area = PixelRect(integral: image.extent)
        guard !image.extent.isNull, !area.isEmpty, !area.isInfinite else {
            throw CoreImageFailure.make(.invalidExtent, "cannot export an image with an empty extent (\(image.extent))")
        }
        return area
    }

    /// Renders `rect` into a new buffer of the layout's natural format.
    func renderPixels(_ image: CIImage, rect: PixelRect, layout: PixelLayout, unpremultiply: Bool) throws -> PixelBuffer {
        do {
            return try RecipeRenderer.renderPixels(
                image.recipe, rect: rect, layout: layout, unpremultiply: unpremultiply,
                highQualityDownsample: highQualityDownsample)
        } catch let error as ImagingError where error.code == .unsupportedPixelFormat {
            throw CoreImageFailure.make(.unsupportedFormat, error.message)
        } catch {
            throw CoreImageFailure.make(.invalidExtent, "cannot render \(rect.w)×\(rect.h) pixels: \(error)", underlying: error)
        }
    }

    /// Renders `rect` of `image` into memory laid out for `destination`: its top row is
    /// `destination.maxY − 1`, its left column `destination.x`.
    @discardableResult
    func renderRegion(
        _ image: CIImage, rect: PixelRect, destination: PixelRect, layout: PixelLayout, unpremultiply: Bool,
        into base: UnsafeMutableRawPointer, rowBytes: Int
    ) -> RenderInfo {
        RecipeRenderer.render(
            image.recipe, rect: rect, destination: destination, layout: layout, unpremultiply: unpremultiply, into: base,
            rowBytes: rowBytes, highQualityDownsample: highQualityDownsample)
    }
}

extension PixelLayout {
    /// The layout for a Core Video pixel format, or nil when it cannot be rendered to directly.
    init?(cvFormat type: OSType) {
        switch type {
        case kCVPixelFormatType_32BGRA: self = .rgba8(.bgra)
        case kCVPixelFormatType_32ARGB: self = .rgba8(.argb)
        case kCVPixelFormatType_32RGBA: self = .rgba8(.rgba)
        case kCVPixelFormatType_24RGB: self = .rgb8
        case kCVPixelFormatType_OneComponent8: self = .one(.luma, .uint8)
        case kCVPixelFormatType_OneComponent16Half: self = .one(.luma, .half)
        case kCVPixelFormatType_OneComponent32Float: self = .one(.luma, .float)
        case kCVPixelFormatType_DepthFloat16, kCVPixelFormatType_DisparityFloat16: self = .one(.red, .half)
        case kCVPixelFormatType_DepthFloat32, kCVPixelFormatType_DisparityFloat32: self = .one(.red, .float)
        default: return nil
        }
    }
}

/// The errors `CIContext` throws: `NSError`s in domain ``domain`` (Apple's domain and codes for
/// these failures are not documented; file-system failures are `CocoaError`s, as on Apple).
enum CoreImageFailure {
    static let domain = "com.apple.CoreImage"

    enum Code: Int {
        /// The image's extent is infinite or empty (crop it first).
        case invalidExtent = 1
        /// The format or colour space cannot be written.
        case unsupportedFormat = 2
        /// An option's value is invalid or not supported.
        case invalidOption = 3
        /// The encoder failed.
        case encodingFailed = 4
    }

    static func make(_ code: Code, _ message: String, underlying: Error? = nil) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return NSError(domain: domain, code: code.rawValue, userInfo: info)
    }
}

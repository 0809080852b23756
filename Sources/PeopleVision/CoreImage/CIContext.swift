import Foundation
import PVImaging
import PVInference

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
        highQualityDownsample = _boolValue(options?[.highQualityDownsample])
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
        let area = _IRect(integral: bounds)
        guard !area.isEmpty, !area.isInfinite else { return }
        // The buffer covers `area`'s top-left corner.
        let destination = _IRect(x: area.x, y: area.maxY - buffer.height, w: buffer.width, h: buffer.height)
        let target = destination.intersection(area)
        if let layout = _PixelLayout(cvFormat: buffer.pixelFormatType) {
            let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
            let rect = target.intersection(_IRect(covering: image.extent))
            guard !rect.isEmpty else { return }
            buffer.withMutableBytes(plane: 0) { bytes in
                _render(
                    image, rect: rect, destination: destination, layout: layout, unpremultiply: false,
                    into: bytes.baseAddress!, rowBytes: rowBytes)
            }
            return
        }
        guard buffer.layout.isYUV420, var rgba = try? PixelBuffer(width: buffer.width, height: buffer.height, format: .rgba32)
        else { return }
        let rowBytes = rgba.bytesPerRow()
        rgba.withUnsafeMutableBytes { bytes in
            _render(
                image, rect: target, destination: destination, layout: .rgba8(.rgba), unpremultiply: false,
                into: bytes.baseAddress!, rowBytes: rowBytes)
        }
        var converted = buffer.pixelBuffer
        guard (try? rgba.convert(into: &converted)) != nil else { return }
        buffer.replace(with: converted)
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
        let area = _IRect(integral: bounds)
        guard !area.isEmpty, !area.isInfinite, let layout = format.layout else { return }
        _render(image, rect: area, destination: area, layout: layout, unpremultiply: false, into: data, rowBytes: rowBytes)
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
        let area = _IRect(integral: fromRect)
        guard !fromRect.isInfinite, !area.isInfinite, !area.isEmpty, format.isKnown else { return nil }
        let grey = format.isSingleChannel || colorSpace?.model == .monochrome
        let layout: _PixelLayout
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
        let layout: _PixelLayout
        switch format {
        case .rgba32: layout = .rgba8(.rgba)
        case .bgra32: layout = .rgba8(.bgra)
        case .argb32: layout = .rgba8(.argb)
        case .rgb24: layout = .rgb8
        case .oneComponent8: layout = .one(.luma, .uint8)
        case .oneComponent16Half: layout = .one(.luma, .half)
        case .oneComponent32Float: layout = .one(.luma, .float)
        case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange:
            throw _CoreImageError.make(.unsupportedFormat, "cannot render to \(format); render RGBA and convert")
        }
        // A decoded image asked for in its own format and alpha convention is its pixels: share them
        // (copy-on-write) instead of rendering a copy. Not for CVPixelBuffers, whose memory callers may
        // write through a base address.
        if case .source(let source) = image.node, source.premultiplied != straightAlpha, !format.isOneComponent,
            !source.isCVPixelBuffer
        {
            let pixels = source.snapshot
            if pixels.format == format, image.extent == CGRect(x: 0, y: 0, width: pixels.width, height: pixels.height) {
                return pixels
            }
        }
        return try renderPixels(image, rect: exportRect(image), layout: layout, unpremultiply: straightAlpha)
    }

    // MARK: Internals

    /// The integral extent to export, or a thrown error for an infinite or empty extent.
    func exportRect(_ image: CIImage) throws -> _IRect {
        guard !image.extent.isInfinite else {
            throw _CoreImageError.make(
                .invalidExtent, "cannot export an image with an infinite extent; crop it first (cropped(to:))")
        }
        let area = _IRect(integral: image.extent)
        guard !image.extent.isNull, !area.isEmpty, !area.isInfinite else {
            throw _CoreImageError.make(.invalidExtent, "cannot export an image with an empty extent (\(image.extent))")
        }
        return area
    }

    /// Renders `rect` into a new buffer of the layout's natural format.
    func renderPixels(_ image: CIImage, rect: _IRect, layout: _PixelLayout, unpremultiply: Bool) throws -> PixelBuffer {
        let format: PixelFormat
        switch layout {
        case .rgba8(.rgba): format = .rgba32
        case .rgba8(.bgra): format = .bgra32
        case .rgba8(.argb): format = .argb32
        case .rgb8: format = .rgb24
        case .one(_, .uint8): format = .oneComponent8
        case .one(_, .half): format = .oneComponent16Half
        case .one(_, .float): format = .oneComponent32Float
        default: throw _CoreImageError.make(.unsupportedFormat, "cannot render \(layout) into an image buffer")
        }
        var pixels: PixelBuffer
        do {
            // The render writes every pixel of `rect` (clear outside the image's extent).
            pixels = try PixelBuffer(uninitializedWidth: rect.w, height: rect.h, format: format)
        } catch {
            throw _CoreImageError.make(.invalidExtent, "cannot render \(rect.w)×\(rect.h) pixels: \(error)", underlying: error)
        }
        let rowBytes = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { bytes in
            _render(
                image, rect: rect, destination: rect, layout: layout, unpremultiply: unpremultiply,
                into: bytes.baseAddress!, rowBytes: rowBytes)
        }
        return pixels
    }

    /// Renders `rect` of `image` into memory laid out for `destination`: its top row is
    /// `destination.maxY − 1`, its left column `destination.x`.
    func _render(
        _ image: CIImage, rect: _IRect, destination: _IRect, layout: _PixelLayout, unpremultiply: Bool,
        into base: UnsafeMutableRawPointer, rowBytes: Int
    ) {
        let target = rect.intersection(destination)
        guard !target.isEmpty else { return }
        let plan = _Compiler.plan(image, rect: target, highQualityDownsample: highQualityDownsample)
        let bpp = layout.bytesPerPixel
        // A render large enough to use every core first puts the inference workers to sleep: after a Vision
        // request they spin-wait for the next model run and would hold a core the tiles need.
        if ImagingThreads.maximum > 1, target.area >= 1 << 20 { Interpreter.parkWorkers() }
        if case .rgba8(let order) = layout, !unpremultiply, rowBytes % 4 == 0, Int(bitPattern: base) % 4 == 0 {
            // The 8-bit fast path (see _RenderBytes.swift), rendered in place.
            let words = _UncheckedSendable(base.assumingMemoryBound(to: _Word.self))
            let wordsPerRow = rowBytes / 4, top = destination.maxY - 1, left = target.x - destination.x
            _Renderer.runBytes(
                plan, rect: target, destination: { y in words.value + (top - y) * wordsPerRow + left },
                finish: { tile in
                    for y in tile.y..<tile.maxY {
                        _reorderWords(order, words.value + (top - y) * wordsPerRow + (tile.x - destination.x), tile.w)
                    }
                })
            return
        }
        _Renderer.run(plan, rect: target) { tile, pixels, stride in
            for j in 0..<tile.h {
                let row = destination.maxY - 1 - (tile.y + j)
                let out = base + row * rowBytes + (tile.x - destination.x) * bpp
                _writeRow(layout, pixels + j * stride, tile.w, out, unpremultiply: unpremultiply)
            }
        }
    }
}

/// The errors `CIContext` throws: `NSError`s in domain ``domain`` (Apple's domain and codes for
/// these failures are not documented; file-system failures are `CocoaError`s, as on Apple).
enum _CoreImageError {
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

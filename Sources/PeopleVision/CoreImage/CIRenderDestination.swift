import Foundation
import PVImaging
import PVRender

/// How a render destination stores alpha, as Core Image's `CIRenderDestinationAlphaMode` (iOS 11).
public enum CIRenderDestinationAlphaMode: UInt, Sendable {
    /// No alpha: stored as premultiplied colour (the image over black), as ``premultiplied`` stores it.
    case none = 0
    /// Colour multiplied by alpha.
    case premultiplied = 1
    /// Straight colour.
    case unpremultiplied = 2
}

/// Where a render task writes, as Core Image's `CIRenderDestination` (iOS 11 / macOS 10.13).
///
/// A destination is a caller's bitmap or a `CVPixelBuffer`; ``CIContext/startTask(toRender:to:)`` renders into it on
/// a thread of its own. Of Apple's settings, ``alphaMode`` applies to bitmaps; ``colorSpace`` is kept and ignored (no
/// colour management), and there are no Metal, OpenGL or IOSurface destinations.
///
/// ```swift
/// let destination = CIRenderDestination(pixelBuffer: output)
/// let task = try context.startTask(toRender: backdrop, to: destination)
/// // … perform Vision requests meanwhile …
/// _ = try task.waitUntilCompleted()
/// ```
public final class CIRenderDestination: @unchecked Sendable {  // settings are set before a task starts, as on Apple
    enum Target {
        case bitmap(BitmapDestination, CIFormat)
        case pixelBuffer(CVPixelBuffer)
    }

    let target: Target

    /// The destination's width in pixels.
    public let width: Int
    /// The destination's height in pixels.
    public let height: Int
    /// How alpha is stored: premultiplied by default (Apple's default for formats with alpha).
    public var alphaMode: CIRenderDestinationAlphaMode = .premultiplied
    /// The colour space the destination's values are taken to be in; kept, not used (no colour management).
    public var colorSpace: CGColorSpace?

    /// A destination over caller memory, as Core Image's `init(bitmapData:width:height:bytesPerRow:format:)`: `data`
    /// holds `height` rows of `bytesPerRow` bytes, top row first, and must stay valid until the task completes.
    /// A format this library does not render makes the task fail (in ``CIRenderTask/waitUntilCompleted()``).
    public init(bitmapData data: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, format: CIFormat) {
        target = .bitmap(
            BitmapDestination(base: data, width: width, height: height, bytesPerRow: bytesPerRow, layout: format.layout),
            format)
        self.width = width
        self.height = height
        colorSpace = format.isSingleChannel ? CGColorSpaceCreateDeviceGray() : CGColorSpace(name: CGColorSpace.sRGB)
    }

    /// A destination over a pixel buffer, as Core Image's `init(pixelBuffer:)`: a task renders into it as
    /// ``CIContext/render(_:to:bounds:colorSpace:)`` does.
    public init(pixelBuffer: CVPixelBuffer) {
        target = .pixelBuffer(pixelBuffer)
        width = pixelBuffer.width
        height = pixelBuffer.height
        colorSpace = CGColorSpace(name: CGColorSpace.sRGB)
    }
}

/// A render started by ``CIContext/startTask(toRender:to:)``, as Core Image's `CIRenderTask` (iOS 11).
public final class CIRenderTask: Sendable {
    let task: RenderTask

    init(_ task: RenderTask) { self.task = task }

    /// Waits for the render to end, as Core Image's `waitUntilCompleted()`; returns its figures.
    ///
    /// - Throws: the render's error: an `NSError` in domain `"com.apple.CoreImage"` for a destination format that
    ///   cannot be rendered to or a bitmap whose rows cannot hold its width. Every call gives the same outcome.
    public func waitUntilCompleted() throws -> CIRenderInfo {
        CIRenderInfo(try task.waitUntilCompleted())
    }
}

/// What a render task did, as Core Image's `CIRenderInfo` (iOS 11).
public final class CIRenderInfo: Sendable, CustomStringConvertible {
    let info: RenderInfo

    init(_ info: RenderInfo) { self.info = info }

    /// Seconds spent evaluating the image into the destination.
    public var kernelExecutionTime: TimeInterval { info.executionTime }
    /// Seconds spent compiling the image's plan (including the blurs and Lanczos steps it materialises).
    public var kernelCompileTime: TimeInterval { info.compileTime }
    /// The number of passes over the destination: 1 (the plan is evaluated fused), 0 when nothing was drawn.
    public var passCount: Int { info.passCount }
    /// The number of destination pixels written.
    public var pixelsProcessed: Int { info.pixelsProcessed }

    public var description: String {
        "CIRenderInfo(passCount: \(passCount), pixelsProcessed: \(pixelsProcessed), kernelExecutionTime: \(kernelExecutionTime))"
    }
}

extension CIContext {
    /// Starts rendering `image` into `destination` so that point (0, 0) of the image is the destination's lower-left
    /// corner, as Core Image's `startTask(toRender:to:)` (iOS 11); the render runs on a thread of its own.
    ///
    /// A bitmap receives every pixel (clear outside the image's extent), as
    /// ``render(_:toBitmap:rowBytes:bounds:format:colorSpace:)`` writes it; a pixel buffer as
    /// ``render(_:to:bounds:colorSpace:)`` writes it.
    ///
    /// - Throws: nothing here; the render's errors are thrown by ``CIRenderTask/waitUntilCompleted()``.
    public func startTask(toRender image: CIImage, to destination: CIRenderDestination) throws -> CIRenderTask {
        start(image, area: PixelRect(x: 0, y: 0, w: destination.width, h: destination.height), destination)
    }

    /// Starts rendering the `fromRect` part of `image` (as if cropped to it) with its origin at `atPoint` of the
    /// destination, as Core Image's `startTask(toRender:from:to:at:)` (iOS 11). Points are whole pixels (rounded),
    /// lower-left origin.
    ///
    /// - Throws: as ``startTask(toRender:to:)``.
    public func startTask(
        toRender image: CIImage, from fromRect: CGRect, to destination: CIRenderDestination, at atPoint: CGPoint
    ) throws -> CIRenderTask {
        let x = (fromRect.minX - atPoint.x).rounded(), y = (fromRect.minY - atPoint.y).rounded()
        let area = abs(x) < 1e9 && abs(y) < 1e9 ? PixelRect(x: Int(x), y: Int(y), w: destination.width, h: destination.height) : .empty
        return start(image.cropped(to: fromRect), area: area, destination)
    }

    private func start(_ image: CIImage, area: PixelRect, _ destination: CIRenderDestination) -> CIRenderTask {
        let target = destination.target, unpremultiply = destination.alphaMode == .unpremultiplied
        return CIRenderTask(
            RenderTask.start { [self] in
                switch target {
                case .bitmap(let bitmap, let format):
                    do {
                        return try bitmap.render(
                            image.recipe, area: area, unpremultiply: unpremultiply,
                            highQualityDownsample: highQualityDownsample)
                    } catch let error as ImagingError {
                        let code: CoreImageFailure.Code = error.code == .unsupportedPixelFormat ? .unsupportedFormat : .invalidExtent
                        throw CoreImageFailure.make(code, "cannot render to a \(format) bitmap: \(error.message)")
                    }
                case .pixelBuffer(let buffer):
                    return try render(image, toPixelBuffer: buffer, bounds: area.cgRect)
                }
            })
    }
}

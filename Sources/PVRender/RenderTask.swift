// Renders that run beside the caller, on a thread of their own.
import Foundation
import PVCore
import PVImaging
import PVThreads

/// A render running on a thread of its own (started through ``PVThreads/DedicatedThread``), so that the caller can do
/// other work meanwhile: render a backdrop while a Vision request runs, say. The render keeps its inputs alive; the
/// destination memory must stay valid until ``waitUntilCompleted()`` returns.
package final class RenderTask: Sendable {
    private let handoff = Handoff<RenderInfo>(capacity: 1)
    private let outcome = Locked<Result<RenderInfo, any Error>?>(nil)

    private init() {}

    /// Starts `work` on a new thread; what it returns or throws is what ``waitUntilCompleted()`` returns or throws.
    package static func start(named name: String = "render task", _ work: @escaping @Sendable () throws -> RenderInfo)
        -> RenderTask
    {
        let task = RenderTask()
        let handoff = task.handoff
        DedicatedThread.start(named: name) {
            do {
                _ = handoff.put(try work())
                handoff.close(nil)
            } catch {
                handoff.close(error)
            }
        }
        return task
    }

    /// Waits for the render to end; returns its figures or rethrows its error (the same on every call).
    package func waitUntilCompleted() throws -> RenderInfo {
        try outcome.withLock { outcome in
            if outcome == nil {
                do {
                    // The producer puts one item and closes, or closes with an error: nil cannot come.
                    outcome = .success(try handoff.take() ?? RenderInfo())
                } catch {
                    outcome = .failure(error)
                }
            }
            return try outcome!.get()
        }
    }
}

/// Caller memory a render task writes: `height` rows of `bytesPerRow` bytes, top row first, in `layout`.
/// The memory is the caller's: it must stay valid, and untouched by others, until the task completes.
package struct BitmapDestination: @unchecked Sendable {
    /// The first byte of the top row.
    package let base: UnsafeMutableRawPointer
    /// The size in pixels.
    package let width: Int
    package let height: Int
    /// The distance between rows, in bytes.
    package let bytesPerRow: Int
    /// Nil for a format the renderer cannot write (the render then throws).
    package let layout: PixelLayout?

    /// A destination over `height` rows of `bytesPerRow` bytes from `base`.
    package init(base: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, layout: PixelLayout?) {
        self.base = base
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.layout = layout
    }

    /// Renders `image` into every pixel of the destination, which shows `area` of the working space (clear outside
    /// the image's extent).
    ///
    /// - Throws: an `ImagingError`: `unsupportedPixelFormat` for an unknown layout, `invalidArgument` for a size that
    ///   does not match `area` or rows too short.
    package func render(
        _ image: ImageRecipe, area: PixelRect, unpremultiply: Bool, highQualityDownsample: Bool
    ) throws -> RenderInfo {
        guard let layout else { throw ImagingError(.unsupportedPixelFormat, "the destination's format cannot be rendered to") }
        guard width > 0, height > 0, area.w == width, area.h == height, !area.isInfinite else {
            throw ImagingError(.invalidArgument, "a \(width)×\(height) destination cannot show \(area)")
        }
        guard bytesPerRow >= width * layout.bytesPerPixel else {
            throw ImagingError(
                .invalidArgument,
                "\(bytesPerRow) bytes per row cannot hold \(width) pixels of \(layout.bytesPerPixel) bytes")
        }
        return RecipeRenderer.render(
            image, rect: area, destination: area, layout: layout, unpremultiply: unpremultiply, into: base,
            rowBytes: bytesPerRow, highQualityDownsample: highQualityDownsample)
    }
}

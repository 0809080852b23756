// The renderer's entry points: a recipe rendered into memory in one of the destination layouts.
import Foundation
import PVImaging
import PVThreads

/// What one render did: Core Image's `CIRenderInfo` figures.
package struct RenderInfo: Sendable, Equatable {
    /// The pixels written.
    package var pixelsProcessed = 0
    /// The passes over the destination: 1 for a non-empty render (the plan is evaluated fused), else 0.
    package var passCount = 0
    /// Seconds spent compiling the plan (materialised blurs and Lanczos steps included).
    package var compileTime: TimeInterval = 0
    /// Seconds spent evaluating the plan into the destination.
    package var executionTime: TimeInterval = 0

    /// Nothing done yet.
    package init() {}
}

/// Renders ``ImageRecipe``s into memory.
package enum RecipeRenderer {
    /// Renders `rect` of `image` into memory laid out for `destination`: its top row is `destination.maxY − 1`, its
    /// left column `destination.x`, `rowBytes` apart. Only the pixels of `rect ∩ destination` are written.
    @discardableResult
    package static func render(
        _ image: ImageRecipe, rect: PixelRect, destination: PixelRect, layout: PixelLayout, unpremultiply: Bool,
        into base: UnsafeMutableRawPointer, rowBytes: Int, highQualityDownsample: Bool
    ) -> RenderInfo {
        var info = RenderInfo()
        let target = rect.intersection(destination)
        guard !target.isEmpty else { return info }
        // A render large enough to use every core first makes the inference pools quiet: after a model run their
        // threads spin-wait for the next one and would hold a core the bands need.
        if ImagingThreads.maximum > 1, target.area >= 1 << 20 { SpinningPools.quiet(.inference) }
        let start = DispatchTime.now().uptimeNanoseconds
        let plan = PlanCompiler.plan(image, rect: target, highQualityDownsample: highQualityDownsample)
        let compiled = DispatchTime.now().uptimeNanoseconds
        let bpp = layout.bytesPerPixel
        if case .rgba8(let order) = layout, !unpremultiply, rowBytes % 4 == 0, Int(bitPattern: base) % 4 == 0 {
            // The 8-bit fast path (see PixelWords.swift), rendered in place.
            let words = UncheckedSendable(base.assumingMemoryBound(to: PixelWord.self))
            let wordsPerRow = rowBytes / 4, top = destination.maxY - 1, left = target.x - destination.x
            BandRenderer.runBytes(
                plan, rect: target, destination: { y in words.value + (top - y) * wordsPerRow + left },
                finish: { tile in
                    for y in tile.y..<tile.maxY {
                        reorderWords(order, words.value + (top - y) * wordsPerRow + (tile.x - destination.x), tile.w)
                    }
                })
        } else {
            BandRenderer.run(plan, rect: target) { tile, pixels, stride in
                for j in 0..<tile.h {
                    let row = destination.maxY - 1 - (tile.y + j)
                    let out = base + row * rowBytes + (tile.x - destination.x) * bpp
                    writeRow(layout, pixels + j * stride, tile.w, out, unpremultiply: unpremultiply)
                }
            }
        }
        let end = DispatchTime.now().uptimeNanoseconds
        info.pixelsProcessed = target.area
        info.passCount = 1
        info.compileTime = Double(compiled - start) / 1e9
        info.executionTime = Double(end - compiled) / 1e9
        return info
    }

    /// Renders `rect` of `image` into a new buffer of the layout's natural format (see ``PixelLayout/pixelFormat``).
    ///
    /// - Throws: an `ImagingError` for a layout without a buffer format (`unsupportedPixelFormat`) or a size beyond the
    ///   limits.
    package static func renderPixels(
        _ image: ImageRecipe, rect: PixelRect, layout: PixelLayout, unpremultiply: Bool, highQualityDownsample: Bool
    ) throws -> PixelBuffer {
        guard let format = layout.pixelFormat else {
            throw ImagingError(.unsupportedPixelFormat, "cannot render \(layout) into an image buffer")
        }
        // The render writes every pixel of `rect` (clear outside the image's extent).
        var pixels = try PixelBuffer(uninitializedWidth: rect.w, height: rect.h, format: format)
        let rowBytes = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { bytes in
            _ = render(
                image, rect: rect, destination: rect, layout: layout, unpremultiply: unpremultiply,
                into: bytes.baseAddress!, rowBytes: rowBytes, highQualityDownsample: highQualityDownsample)
        }
        return pixels
    }
}

extension PixelLayout {
    /// The layout of an imaging buffer format; nil for 4:2:0 formats (render RGBA and convert).
    package init?(format: PixelFormat) {
        switch format {
        case .rgba32: self = .rgba8(.rgba)
        case .bgra32: self = .rgba8(.bgra)
        case .argb32: self = .rgba8(.argb)
        case .rgb24: self = .rgb8
        case .oneComponent8: self = .one(.luma, .uint8)
        case .oneComponent16Half: self = .one(.luma, .half)
        case .oneComponent32Float: self = .one(.luma, .float)
        case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange: return nil
        }
    }

    /// The imaging buffer format that stores this layout; nil for the four-channel half and float layouts and ABGR.
    package var pixelFormat: PixelFormat? {
        switch self {
        case .rgba8(.rgba): return .rgba32
        case .rgba8(.bgra): return .bgra32
        case .rgba8(.argb): return .argb32
        case .rgb8: return .rgb24
        case .one(_, .uint8): return .oneComponent8
        case .one(_, .half): return .oneComponent16Half
        case .one(_, .float): return .oneComponent32Float
        default: return nil
        }
    }
}

import Foundation
import PVImaging

/// Where a source recipe's pixels come from: a decoded image or a caller's buffer, read when the recipe is rendered.
package protocol RecipeSource: Sendable {
    /// The pixels now (a copy-on-write snapshot of a buffer that may change between renders).
    var pixels: PixelBuffer { get }
    /// Whether four-channel pixels are already premultiplied.
    var premultiplied: Bool { get }
}

/// An image recipe: a source buffer or colour, then transforms, crops, filters and composites, in the working space
/// (pixels, origin at the lower left, y up). Immutable; a ``PlanCompiler`` turns it into a ``RenderPlan`` for one
/// rectangle. A recipe referenced twice in a graph is evaluated once per plan where it must be materialised (blurs,
/// Lanczos scaling): the compiler knows recipes by identity.
package final class ImageRecipe: Sendable {
    /// The rectangle outside which the image is clear.
    package let extent: CGRect
    /// The last step of the recipe.
    package let node: Node

    /// A recipe whose last step is `node`; `extent` is what that step leaves non-clear.
    package init(_ node: Node, extent: CGRect) {
        self.node = node
        self.extent = extent
    }

    /// What a recipe does to its inputs.
    package indirect enum Node: Sendable {
        case empty
        /// Premultiplied RGBA, everywhere.
        case color(FloatPixel)
        case source(any RecipeSource)
        /// Bilinear unless `highQuality` and the transform shrinks the image (then Lanczos).
        case transform(ImageRecipe, AffineMap, highQuality: Bool)
        case crop(ImageRecipe, CGRect)
        case clamp(ImageRecipe)
        case composite(ImageRecipe, over: ImageRecipe)
        /// Channel 0…3 = R, G, B, A of the mask.
        case blend(ImageRecipe, background: ImageRecipe, mask: ImageRecipe, channel: Int)
        case point(ImageRecipe, PointOperation)
        case gaussianBlur(ImageRecipe, sigma: Float)
        /// Lanczos-3 resampling mapping the input's pixel extent onto this recipe's (rounded) extent.
        case lanczos(ImageRecipe)
        /// The input unchanged, sampled by nearest neighbour when a transform resamples it (`samplingNearest()`).
        case nearest(ImageRecipe)

        /// A one-line description of the step (for `description`s).
        package var summary: String {
            switch self {
            case .empty: return "empty"
            case .color: return "color"
            case .source: return "source"
            case .transform(_, let t, _): return "transform \(t)"
            case .crop(_, let r): return "crop \(r)"
            case .clamp: return "clamp"
            case .composite: return "composite"
            case .blend(_, _, _, let c): return "blend channel \(c)"
            case .point(_, let op): return "\(op)"
            case .gaussianBlur(_, let s): return "gaussianBlur sigma \(s)"
            case .lanczos: return "lanczos"
            case .nearest: return "nearest sampling"
            }
        }
    }
}

/// Per-pixel colour operations.
package enum PointOperation: Sendable {
    /// `CIMaximumComponent`: grey = max(r, g, b), alpha kept.
    case maximumComponent
    /// `CIGammaAdjust`: unpremultiplied colour `sign(c)·|c|^power`, alpha kept.
    case gamma(Float)
    /// `CIColorMatrix` on unpremultiplied RGBA: `(r·R, r·G, r·B, r·A) + bias`.
    case colorMatrix(r: SIMD4<Float>, g: SIMD4<Float>, b: SIMD4<Float>, a: SIMD4<Float>, bias: SIMD4<Float>)
    /// `CIColorClamp` on unpremultiplied RGBA: each channel limited to `[min, max]`.
    case colorClamp(min: SIMD4<Float>, max: SIMD4<Float>)
    /// `premultiplyingAlpha()`: the stored colour taken as straight and multiplied by alpha.
    case premultiply
    /// `unpremultiplyingAlpha()`: the colour divided by alpha (0 where alpha is 0).
    case unpremultiply
    /// `settingAlphaOne(in:)`: alpha set to 1, the stored colour kept (the image over black).
    case alphaOne
}

/// A 2D affine map `(x, y) ↦ (a·x + c·y + tx, b·x + d·y + ty)`, in the arithmetic of Core Graphics' transforms.
package struct AffineMap: Sendable, Equatable, CustomStringConvertible {
    /// The coefficients, in Core Graphics order.
    package var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    /// The map with these coefficients.
    package init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    /// A scale about the origin.
    package static func scale(_ sx: Double, _ sy: Double) -> AffineMap { AffineMap(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0) }

    /// `a·d − b·c`: zero for a map that flattens the plane.
    package var determinant: Double { a * d - b * c }

    /// The inverse; a singular map is returned unchanged.
    package func inverted() -> AffineMap {
        let det = determinant
        guard det != 0, det.isFinite else { return self }
        return AffineMap(
            a: d / det, b: -b / det, c: -c / det, d: a / det, tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }

    /// The smallest rectangle holding the four mapped corners of `rect` (standardized).
    package func boundingBox(of rect: CGRect) -> CGRect {
        let r = rect.standardized
        let xs = [r.minX, r.maxX, r.minX, r.maxX].map(Double.init), ys = [r.minY, r.minY, r.maxY, r.maxY].map(Double.init)
        let px = (0..<4).map { a * xs[$0] + c * ys[$0] + tx }, py = (0..<4).map { b * xs[$0] + d * ys[$0] + ty }
        let minX = px.min()!, maxX = px.max()!, minY = py.min()!, maxY = py.max()!
        return CGRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    package var description: String { "CGAffineTransform(a: \(a), b: \(b), c: \(c), d: \(d), tx: \(tx), ty: \(ty))" }
}

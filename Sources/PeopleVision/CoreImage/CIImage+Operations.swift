import Foundation
import PVImaging
import PVRender

extension CIImage {
    /// This image mapped by `matrix`, as Core Image's `transformed(by:)`.
    ///
    /// Output pixels are inverse-mapped into this image and sampled bilinearly; beyond the
    /// edges the image is clear, so edge pixels of a scaled or rotated image are partly
    /// transparent exactly as on Apple platforms (use ``clampedToExtent()`` first, then crop, to
    /// avoid that). Whole-pixel translations copy pixels without resampling. The new extent is
    /// the bounding box of the mapped extent. Consecutive transforms are merged into one.
    ///
    /// ```swift
    /// let scaled = mask.transformed(by: CGAffineTransform(scaleX: 4, y: 4))
    /// ```
    /// - Complexity: O(1) now; O(rendered pixels) when rendered.
    public func transformed(by matrix: CGAffineTransform) -> CIImage {
        transformed(by: matrix, highQualityDownsample: false)
    }

    /// As ``transformed(by:)``; with `highQualityDownsample` an axis-aligned transform that
    /// shrinks the image is resampled with a Lanczos-3 filter instead of bilinear sampling
    /// (Apple's `transformed(by:highQualityDownsample:)`, iOS 10). Rotations stay bilinear.
    public func transformed(by matrix: CGAffineTransform, highQualityDownsample: Bool) -> CIImage {
        if matrix.isIdentity { return self }
        if case .empty = node { return self }
        if case .color = node { return self }
        if case .transform(let inner, let first, let hq) = node, hq == highQualityDownsample {
            let combined = CGAffineTransform(first).concatenating(matrix)
            if combined.isIdentity { return transformInput ?? CIImage(recipe: inner) }
            return CIImage(
                recipe: ImageRecipe(.transform(inner, AffineMap(combined), highQuality: hq), extent: inner.extent.applying(combined)),
                transformInput: transformInput)
        }
        return CIImage(
            recipe: ImageRecipe(
                .transform(recipe, AffineMap(matrix), highQuality: highQualityDownsample), extent: extent.applying(matrix)),
            transformInput: self)
    }

    /// The part of this image inside `rect`, as Core Image's `cropped(to:)`. The extent becomes
    /// the intersection; pixels whose centres lie outside `rect` are clear (Apple antialiases
    /// fractional crop edges instead).
    public func cropped(to rect: CGRect) -> CIImage {
        let clipped = extent.intersection(rect)
        if clipped == extent { return self }
        if clipped.isNull || clipped.isEmpty { return CIImage(node: .empty, extent: .null) }
        if case .crop(let inner, _) = node { return CIImage(node: .crop(inner, clipped), extent: clipped) }
        return CIImage(node: .crop(recipe, clipped), extent: clipped)
    }

    /// This image over `dest` (source-over), as Core Image's `composited(over:)`; same as
    /// `CISourceOverCompositing`. The extent is the union of both extents.
    public func composited(over dest: CIImage) -> CIImage {
        if extent.isNull || extent.isEmpty { return dest }
        if dest.extent.isNull || dest.extent.isEmpty { return self }
        return CIImage(node: .composite(recipe, over: dest.recipe), extent: extent.union(dest.extent))
    }

    /// This image with its edge pixels repeated forever, as Core Image's `clampedToExtent()`.
    /// The extent is infinite.
    public func clampedToExtent() -> CIImage {
        if extent.isInfinite { return self }
        if extent.isNull || extent.isEmpty { return self }
        return CIImage(node: .clamp(recipe), extent: .infinite)
    }

    /// The part inside `rect`, with its edge pixels repeated forever, as Core Image's `clamped(to:)`.
    public func clamped(to rect: CGRect) -> CIImage {
        cropped(to: rect).clampedToExtent()
    }

    /// The transform that ``oriented(_:)`` applies, as Core Image's `orientationTransform(for:)`.
    ///
    /// It maps this image's extent onto `(0, 0, w′, h′)`, where `w′ × h′` is the upright size.
    public func orientationTransform(for orientation: CGImagePropertyOrientation) -> CGAffineTransform {
        guard !extent.isInfinite, !extent.isNull else { return .identity }
        let w = extent.width, h = extent.height
        let uprightHeight = orientation.imaging.swapsDimensions ? w : h
        // Where a point (x, y) of the stored picture lands, both in top-left coordinates: the
        // continuous form of PVImaging's `Orientation.orientedPoint`.
        func upright(_ x: CGFloat, _ y: CGFloat) -> CGPoint {
            switch orientation {
            case .up: return CGPoint(x: x, y: y)
            case .upMirrored: return CGPoint(x: w - x, y: y)
            case .down: return CGPoint(x: w - x, y: h - y)
            case .downMirrored: return CGPoint(x: x, y: h - y)
            case .leftMirrored: return CGPoint(x: y, y: x)
            case .right: return CGPoint(x: h - y, y: x)
            case .rightMirrored: return CGPoint(x: h - y, y: w - x)
            case .left: return CGPoint(x: y, y: w - x)
            }
        }
        // In the lower-left working space (relative to the extent's origin) a point (X, Y) is
        // (X, h − Y) top-down; the upright result (x′, y′) top-down is (x′, h′ − y′) bottom-up.
        func map(_ X: CGFloat, _ Y: CGFloat) -> CGPoint {
            let p = upright(X, h - Y)
            return CGPoint(x: p.x, y: uprightHeight - p.y)
        }
        let origin = map(0, 0), ex = map(1, 0), ey = map(0, 1)
        let local = CGAffineTransform(
            a: ex.x - origin.x, b: ex.y - origin.y, c: ey.x - origin.x, d: ey.y - origin.y, tx: origin.x, ty: origin.y)
        return CGAffineTransform(translationX: -extent.minX, y: -extent.minY).concatenating(local)
    }

    /// This image turned upright for EXIF orientation `orientation`, as Core Image's
    /// `oriented(_:)` (iOS 11): `.right` turns it 90° clockwise, and so on. The extent becomes
    /// `(0, 0, w′, h′)` with the upright size; pixels move without resampling.
    public func oriented(_ orientation: CGImagePropertyOrientation) -> CIImage {
        if orientation == .up, extent.origin == .zero { return self }
        return transformed(by: orientationTransform(for: orientation))
    }

    /// As ``oriented(_:)`` with an EXIF value 1–8 (Apple's `oriented(forExifOrientation:)`);
    /// other values leave the image unchanged.
    public func oriented(forExifOrientation orientation: Int32) -> CIImage {
        guard let o = CGImagePropertyOrientation(rawValue: UInt32(clamping: Int(orientation))) else { return self }
        return oriented(o)
    }

    /// The output of the filter `filterName` with this image as `inputImage` and the other
    /// inputs from `params`, as Core Image's `applyingFilter(_:parameters:)`.
    ///
    /// An unknown filter name, or a filter that produces no output, gives ``empty()`` (Apple
    /// logs and returns nil through a non-optional type).
    public func applyingFilter(_ filterName: String, parameters params: [String: Any]) -> CIImage {
        guard let filter = CIFilter(name: filterName) else { return .empty() }
        for (key, value) in params { filter.setValue(value, forKey: key) }
        filter.setValue(self, forKey: kCIInputImageKey)
        return filter.outputImage ?? .empty()
    }

    /// As ``applyingFilter(_:parameters:)`` with the filter's default parameters.
    public func applyingFilter(_ filterName: String) -> CIImage {
        applyingFilter(filterName, parameters: [:])
    }

    /// A Gaussian blur with standard deviation `sigma` pixels, as Core Image's
    /// `applyingGaussianBlur(sigma:)` (iOS 10). Same as `CIGaussianBlur` with `inputRadius = sigma`.
    ///
    /// Beyond the input's edges the image is clear, so edges fade (clamp first to avoid it); the
    /// extent grows by `ceil(3·sigma)` on every side (infinite stays infinite). The blur is
    /// materialised over the region being rendered; from `sigma` 16 on, on a grid 4 to 64 times coarser (block means,
    /// blurred, upsampled bilinearly): an approximate Gaussian, within about 1/255 of the exact blur.
    /// - Complexity: O(pixels · sigma) when rendered below `sigma` 16, O(pixels) above.
    public func applyingGaussianBlur(sigma: Double) -> CIImage {
        let s = Float(sigma)
        guard s.isFinite, s > 0 else { return self }
        if extent.isNull || extent.isEmpty { return self }
        let margin = CGFloat(gaussianRadius(sigma: s))
        let grown = extent.isInfinite ? CGRect.infinite : extent.insetBy(dx: -margin, dy: -margin)
        return CIImage(node: .gaussianBlur(recipe, sigma: s), extent: grown)
    }

    /// Lanczos-3 scaling by `scaleX × scaleY` (the `CILanczosScaleTransform` filter): the extent
    /// is the scaled extent rounded to whole pixels (at least 1 × 1).
    func lanczosScaled(scaleX: Float, scaleY: Float) -> CIImage {
        guard scaleX.isFinite, scaleY.isFinite, scaleX > 0, scaleY > 0 else { return .empty() }
        if extent.isNull || extent.isEmpty || extent.isInfinite { return self }
        if scaleX == 1, scaleY == 1 { return self }
        let px = PixelRect(covering: extent)
        let x0 = (Double(px.x) * Double(scaleX)).rounded(), y0 = (Double(px.y) * Double(scaleY)).rounded()
        let w = max(1, (Double(px.w) * Double(scaleX)).rounded()), h = max(1, (Double(px.h) * Double(scaleY)).rounded())
        return CIImage(node: .lanczos(recipe), extent: CGRect(x: x0, y: y0, width: w, height: h))
    }
}

extension AffineMap {
    /// The renderer's form of a Core Graphics transform (the same numbers).
    init(_ t: CGAffineTransform) {
        self.init(a: Double(t.a), b: Double(t.b), c: Double(t.c), d: Double(t.d), tx: Double(t.tx), ty: Double(t.ty))
    }
}

extension CGAffineTransform {
    /// A transform from the renderer's form (the same numbers).
    init(_ m: AffineMap) {
        self.init(a: CGFloat(m.a), b: CGFloat(m.b), c: CGFloat(m.c), d: CGFloat(m.d), tx: CGFloat(m.tx), ty: CGFloat(m.ty))
    }
}

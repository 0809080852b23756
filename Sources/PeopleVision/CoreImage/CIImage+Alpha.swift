import Foundation
import PVImaging
import PVRender

extension CIImage {
    /// This image with its colour taken as straight (not premultiplied) and multiplied by alpha, as Core Image's
    /// `premultiplyingAlpha()`. Use it on an image known to hold straight colour.
    public func premultiplyingAlpha() -> CIImage { CIImage(node: .point(recipe, .premultiply), extent: extent) }

    /// This image with its colour divided by alpha (0 where alpha is 0), as Core Image's `unpremultiplyingAlpha()`.
    public func unpremultiplyingAlpha() -> CIImage { CIImage(node: .point(recipe, .unpremultiply), extent: extent) }

    /// This image made opaque inside `extent` and clear outside it, as Core Image's `settingAlphaOne(in:)`: each
    /// pixel keeps its premultiplied colour with alpha 1, i.e. the image over black. The new extent is `extent`.
    public func settingAlphaOne(in extent: CGRect) -> CIImage {
        let rect = extent.standardized
        if rect.isNull || rect.isEmpty { return .empty() }
        return CIImage(node: .point(recipe, .alphaOne), extent: rect)
    }

    /// Whether every pixel inside the extent is known to be opaque, as Core Image's `isOpaque`: true for opaque
    /// colours, grey, RGB and 4:2:0 sources, images made by ``settingAlphaOne(in:)``, and crops and clamps of those;
    /// false otherwise (four-channel sources are not scanned).
    public var isOpaque: Bool { Self.isOpaque(recipe) }

    private static func isOpaque(_ recipe: ImageRecipe) -> Bool {
        switch recipe.node {
        case .color(let c): return c[3] >= 1
        case .source(let s):
            let format = s.pixels.format
            return format.isOneComponent || format == .rgb24 || format.isYUV420
        case .point(_, .alphaOne): return true
        case .crop(let inner, _), .clamp(let inner): return isOpaque(inner)
        default: return false
        }
    }

    /// This image sampled bilinearly by later transforms, as Core Image's `samplingLinear()`: the default, so the
    /// image itself, or the image ``samplingNearest()`` was called on.
    public func samplingLinear() -> CIImage {
        if case .nearest(let inner) = node { return CIImage(recipe: inner, info: info) }
        return self
    }

    /// This image sampled by nearest neighbour when a later transform resamples it, as Core Image's
    /// `samplingNearest()`: each output pixel copies the pixel its centre falls in, so a scaled-up mask keeps hard
    /// edges. Transforms marked for high-quality downsampling sample by nearest neighbour too.
    public func samplingNearest() -> CIImage {
        if case .nearest = node { return self }
        return CIImage(recipe: ImageRecipe(.nearest(recipe), extent: extent), info: info)
    }

    /// This image with `properties` as its ``properties`` (Apple's `settingProperties(_:)`); keys that are not
    /// strings are dropped.
    public func settingProperties(_ properties: [AnyHashable: Any]) -> CIImage {
        var info = self.info
        info.properties = ImageFileInfo.Properties(
            Dictionary(properties.compactMap { key, value in (key.base as? String).map { ($0, value) } }) { a, _ in a })
        return CIImage(recipe: recipe, info: info, transformInput: transformInput)
    }

    /// The file the image was read from by ``init(contentsOf:)``, else nil (Apple's `url`).
    public var url: URL? { info.url }

    /// The transform that turns this image upright from an EXIF orientation 1–8, as Core Image's
    /// `orientationTransform(forExifOrientation:)`; other values give the identity.
    public func orientationTransform(forExifOrientation orientation: Int32) -> CGAffineTransform {
        guard let o = CGImagePropertyOrientation(rawValue: UInt32(clamping: Int(orientation))) else { return .identity }
        return orientationTransform(for: o)
    }
}

import Foundation
import PVImaging

/// Whether a thumbnail is made from the image when the file has none (a Boolean option).
public let kCGImageSourceCreateThumbnailFromImageIfAbsent: CFString = "kCGImageSourceCreateThumbnailFromImageIfAbsent"
/// Whether a thumbnail is always made from the image, ignoring any in the file (a Boolean option).
public let kCGImageSourceCreateThumbnailFromImageAlways: CFString = "kCGImageSourceCreateThumbnailFromImageAlways"
/// The largest width or height of a thumbnail, in pixels (a number option).
public let kCGImageSourceThumbnailMaxPixelSize: CFString = "kCGImageSourceThumbnailMaxPixelSize"
/// Whether a thumbnail is turned upright by the file's orientation (a Boolean option).
public let kCGImageSourceCreateThumbnailWithTransform: CFString = "kCGImageSourceCreateThumbnailWithTransform"
/// Whether decoded images are cached (a Boolean option; accepted, images here are never cached).
public let kCGImageSourceShouldCache: CFString = "kCGImageSourceShouldCache"
/// Whether images are decoded when created rather than when drawn (accepted; decoding is always immediate).
public let kCGImageSourceShouldCacheImmediately: CFString = "kCGImageSourceShouldCacheImmediately"

/// A reduced image of the image at `index`, as ImageIO's `CGImageSourceCreateThumbnailAtIndex`.
///
/// Thumbnails stored in files are not read, so one is made from the image, and only when
/// ``kCGImageSourceCreateThumbnailFromImageIfAbsent`` or ``kCGImageSourceCreateThumbnailFromImageAlways``
/// is true (without either, ImageIO answers nil for a file with no thumbnail, as here). The image is
/// shrunk (area averaging, never enlarged) so that its longer side is at most
/// ``kCGImageSourceThumbnailMaxPixelSize`` (the whole size without it), the shorter side rounded
/// to the nearest pixel; ``kCGImageSourceCreateThumbnailWithTransform`` turns it upright first.
/// JPEGs are decoded at a reduced scale when that still covers the thumbnail.
///
/// ```swift
/// let options = [kCGImageSourceCreateThumbnailFromImageAlways: true, kCGImageSourceThumbnailMaxPixelSize: 512,
///                kCGImageSourceCreateThumbnailWithTransform: true] as CFDictionary
/// let small = CGImageSourceCreateThumbnailAtIndex(source, 0, options)
/// ```
public func CGImageSourceCreateThumbnailAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? {
    let options = cfStringKeyed(options)
    func flag(_ key: CFString) -> Bool { options[key].map(boolOption) ?? false }
    guard let info = isrc.header(at: index),
        flag(kCGImageSourceCreateThumbnailFromImageIfAbsent) || flag(kCGImageSourceCreateThumbnailFromImageAlways)
    else { return nil }
    let upright = flag(kCGImageSourceCreateThumbnailWithTransform)
    let full = upright ? info.orientedSize : (info.width, info.height)
    var limit = max(full.0, full.1)
    if let raw = options[kCGImageSourceThumbnailMaxPixelSize] {
        guard let value = numberValue(raw), value.isFinite, value >= 1 else { return nil }
        limit = min(limit, Int(value))
    }
    let scale = Double(limit) / Double(max(full.0, full.1))
    let size = (width: max(1, Int((Double(full.0) * scale).rounded())), height: max(1, Int((Double(full.1) * scale).rounded())))
    var decoding = ImageDecoder.Options(applyOrientation: upright, keepsGrayscale: true)
    decoding.minimumSize = size
    guard let decoded = try? ImageDecoder.decode(data: isrc.data, options: decoding), var pixels = try? CGImage.storable(decoded.pixels)
    else { return nil }
    if pixels.width != size.width || pixels.height != size.height {
        guard let shrunk = try? pixels.resized(width: size.width, height: size.height, method: .area) else { return nil }
        pixels = shrunk
    }
    return CGImage(buffer: pixels)
}

import Foundation
import PVCore

/// Decodes JPEG, PNG, HEIC and WebP into ``PixelBuffer``s.
///
/// The format is sniffed from the data (never from a file name). The image size is read from
/// the header and checked against ``ImageLimits`` before any pixel memory is allocated, so a
/// decompression bomb costs nothing. EXIF orientation is applied by default, exactly once
/// (HEIC's `irot`/`imir` are applied by libheif and its EXIF tag is not applied again).
///
/// ```swift
/// let image = try ImageDecoder.decode(contentsOf: url)
/// let small = try ImageDecoder.decode(data: jpeg, minimumSize: (256, 256))  // DCT-domain downscale
/// ```
public enum ImageDecoder {
    /// How to decode.
    public struct Options: Sendable {
        /// Size limits, checked from the header before allocating. Default 100 MP.
        public var limits: ImageLimits
        /// The smallest acceptable output size (after orientation). JPEGs are then decoded at
        /// 1/2, 1/4 or 1/8 scale in the DCT domain (libjpeg-turbo) when that still covers it;
        /// other formats ignore it and decode at full size. `nil` decodes at full size.
        public var minimumSize: (width: Int, height: Int)?
        /// Apply the file's EXIF orientation so the pixels are upright (default true). When false
        /// the stored pixels are returned with ``DecodedImage/orientation`` set to the tag.
        public var applyOrientation: Bool
        /// Decode grey sources without alpha to `.oneComponent8` (default true); false gives `.rgba32`.
        public var keepsGrayscale: Bool
        /// Decode 16-bit grey PNG to `.oneComponent32Float` in 0…1 without losing precision
        /// (default false: 8-bit, rounded). Ignored when ``keepsGrayscale`` is false.
        public var keepsSixteenBitGray: Bool

        public init(
            limits: ImageLimits = .default, minimumSize: (width: Int, height: Int)? = nil,
            applyOrientation: Bool = true, keepsGrayscale: Bool = true, keepsSixteenBitGray: Bool = false
        ) {
            self.limits = limits
            self.minimumSize = minimumSize
            self.applyOrientation = applyOrientation
            self.keepsGrayscale = keepsGrayscale
            self.keepsSixteenBitGray = keepsSixteenBitGray
        }
    }

    /// Decodes an image in memory.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - limits: Refuse larger images (checked before allocating).
    ///   - minimumSize: Smallest acceptable output size; lets JPEG decode at reduced scale.
    ///   - applyOrientation: Return upright pixels (default) or the stored ones.
    /// - Throws: ``ImagingError``: `.truncatedData`, `.corruptData`, `.unsupportedFormat`,
    ///   `.invalidDimensions` (a zero side), `.tooLarge` (over `limits`), `.invalidArgument`.
    /// - Complexity: O(pixels); JPEG at scale 1/n decodes roughly n² times fewer pixels.
    public static func decode(
        data: Data, limits: ImageLimits = .default, minimumSize: (width: Int, height: Int)? = nil,
        applyOrientation: Bool = true
    ) throws -> DecodedImage {
        try decode(
            data: data, options: Options(limits: limits, minimumSize: minimumSize, applyOrientation: applyOrientation))
    }

    /// Decodes an image in memory with full ``Options``.
    public static func decode(data: Data, options: Options) throws -> DecodedImage {
        if let minimum = options.minimumSize, minimum.width < 0 || minimum.height < 0 {
            throw ImagingError(.invalidArgument, "minimumSize \(minimum) must not be negative")
        }
        return try data.withUnsafeBytes { bytes in
            let format = try ImageFormat.sniff(bytes)
            var image: DecodedImage
            switch format {
            case .jpeg: image = try JPEGCodec.decode(bytes, options: options)
            case .png: image = try PNGCodec.decode(bytes, options: options)
            case .webp: image = try WebPCodec.decode(bytes, options: options)
            case .heic: image = try HEICCodec.decode(bytes, options: options)
            }
            if options.applyOrientation, image.orientation != .up {
                image.pixels = try image.pixels.applying(image.orientation)
                image.orientation = .up
            }
            return image
        }
    }

    /// Reads and decodes a file.
    ///
    /// - Throws: ``ImagingError`` `.ioError` when the file cannot be read, otherwise as
    ///   ``decode(data:options:)``.
    public static func decode(contentsOf url: URL, options: Options = Options()) throws -> DecodedImage {
        try decode(data: readFile(url), options: options)
    }

    /// Reads the header only: format, stored size, orientation, alpha, grey.
    ///
    /// - Throws: as ``decode(data:options:)``, except that limits are not applied.
    public static func info(data: Data) throws -> ImageInfo {
        try data.withUnsafeBytes { bytes in
            switch try ImageFormat.sniff(bytes) {
            case .jpeg: return try JPEGCodec.info(bytes)
            case .png: return try PNGCodec.info(bytes)
            case .webp: return try WebPCodec.info(bytes)
            case .heic: return try HEICCodec.info(bytes)
            }
        }
    }

    /// Reads a file's header (the whole file is read; only the header is parsed).
    public static func info(contentsOf url: URL) throws -> ImageInfo {
        try info(data: readFile(url))
    }

    package static func readFile(_ url: URL) throws -> Data {
        if let reason = unreadableReason(url) { throw ImagingError(.ioError, "cannot read \(url.path): \(reason)") }
        do {
            return try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw ImagingError(.ioError, "cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    /// Why `url` cannot be read as a file (no such file, a directory, no permission); `nil` when nothing stands in the
    /// way of opening it.
    package static func unreadableReason(_ url: URL) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return "no such file" }
        if isDirectory.boolValue { return "it is a directory, not a file" }
        return FileManager.default.isReadableFile(atPath: url.path) ? nil : "permission denied"
    }

    /// The largest DCT scale denominator (8, 4, 2, else 1) whose output still covers `minimum`.
    static func scaleDenominator(width: Int, height: Int, minimum: (width: Int, height: Int)?) -> Int {
        guard let minimum else { return 1 }
        for denominator in [8, 4, 2]
        where (width + denominator - 1) / denominator >= minimum.width
            && (height + denominator - 1) / denominator >= minimum.height
        {
            return denominator
        }
        return 1
    }
}

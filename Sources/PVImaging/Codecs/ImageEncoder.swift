import Foundation
import PVCore

/// Encodes ``PixelBuffer``s as JPEG, PNG, WebP or HEIC.
///
/// Accepted pixel formats: the 8-bit ones (`.oneComponent8`, `.rgb24`, `.rgba32`, `.bgra32`,
/// `.argb32`) everywhere, and one-component half/float in 0…1 (values outside, or NaN, are an
/// error, never clamped) — which PNG stores as 16-bit grey and the others quantize to 8 bits.
/// Bi-planar YUV must be converted first.
///
/// | format | stores |
/// |---|---|
/// | JPEG | grey or RGB (alpha dropped), 4:2:0 chroma below quality 95, 4:4:4 from 95 (libjpeg's default Huffman tables) |
/// | PNG | 8-bit grey, RGB, RGBA; 16-bit grey from float/half |
/// | WebP | RGB(A); grey becomes RGB |
/// | HEIC | RGB, RGBA (alpha as libheif's alpha auxiliary image), monochrome |
///
/// ```swift
/// let data = try ImageEncoder.encode(mask, as: .png)
/// try ImageEncoder.write(photo, to: url, as: .jpeg(quality: 85))   // temp file + rename
/// ```
public enum ImageEncoder {
    /// An output format and its settings.
    public enum Format: Sendable, Equatable {
        /// JPEG, quality 1…100.
        case jpeg(quality: Int = 90)
        /// Lossless PNG.
        case png
        /// Lossy WebP, quality 0…100.
        case webp(quality: Float = 80)
        /// Lossless WebP (exact: RGB under transparent pixels is kept too).
        case webpLossless
        /// HEIC (HEVC), quality 0…100.
        case heic(quality: Int = 80)

        /// The container format this writes.
        public var imageFormat: ImageFormat {
            switch self {
            case .jpeg: return .jpeg
            case .png: return .png
            case .webp, .webpLossless: return .webp
            case .heic: return .heic
            }
        }
    }

    /// Encodes `image` in memory.
    ///
    /// - Throws: ``ImagingError`` `.invalidArgument` (quality out of range, float samples outside
    ///   0…1, a side too large for the format), `.unsupportedPixelFormat`, `.encodingFailed`.
    public static func encode(_ image: PixelBuffer, as format: Format) throws -> Data {
        switch format {
        case .jpeg(let quality): return try JPEGCodec.encode(image, quality: quality)
        case .png: return try PNGCodec.encode(image)
        case .webp(let quality): return try WebPCodec.encode(image, lossless: false, quality: quality)
        case .webpLossless: return try WebPCodec.encode(image, lossless: true, quality: 100)
        case .heic(let quality): return try encodeHEIC(image, quality: quality)
        }
    }

    /// Encodes `image` and records that its pixels are stored in `orientation`, for viewers to turn
    /// them upright: an EXIF orientation tag in JPEG and PNG (read back by ``ImageDecoder`` as the
    /// file's orientation), `irot`/`imir` properties in HEIC (which decoders, this one included,
    /// apply to the pixels). WebP stores no orientation: anything but `.up` is
    /// ``ImagingError`` `.invalidArgument` there.
    public static func encode(_ image: PixelBuffer, as format: Format, orientation: Orientation) throws -> Data {
        guard orientation != .up else { return try encode(image, as: format) }
        switch format {
        case .jpeg(let quality): return try JPEGCodec.encode(image, quality: quality, exif: EXIF.orientationBlock(orientation))
        case .png: return try PNGCodec.encode(image, exif: EXIF.orientationBlock(orientation))
        case .heic(let quality): return try encodeHEIC(image, quality: quality, orientation: orientation)
        case .webp, .webpLossless: throw ImagingError(.invalidArgument, "WebP files here carry no orientation")
        }
    }

    /// Encodes `image` and writes it to `url` atomically (temporary file, then rename), so a
    /// failure never leaves a partial file. The format comes from `format`, not the extension.
    public static func write(_ image: PixelBuffer, to url: URL, as format: Format) throws {
        try writeAtomically(encode(image, as: format), to: url)
    }

    /// Encodes a HEIC whose primary image carries auxiliary images (mattes) and a depth map.
    ///
    /// libheif 1.15 cannot write auxiliary images, so each one is encoded by libheif as its own
    /// monochrome HEIC and then grafted into the primary file (ISOBMFFMerge.swift): a new item
    /// with an `auxC` property naming its type and an `auxl` reference to the primary image —
    /// the layout iPhones write and libheif, ImageIO and Core Image read.
    ///
    /// - Parameters:
    ///   - image: The primary image.
    ///   - quality: 0…100, used for every image in the file.
    ///   - auxiliaryImages: Mattes and other grey images, any size, 8-bit.
    ///   - depth: A depth or disparity map, stored losslessly as a 12-bit ``AuxiliaryImageType/depth`` image
    ///     with its range in XMP (see ``HEICDepthMap``), whatever `quality` says.
    ///   - orientation: How the primary image's pixels are stored (`irot`/`imir`, applied by readers).
    /// - Throws: ``ImagingError`` `.invalidArgument` for alpha-typed auxiliary images, NaN or
    ///   infinite depth, or depth outside its given range; as ``encode(_:as:)`` otherwise.
    public static func encodeHEIC(
        _ image: PixelBuffer, quality: Int = 80, auxiliaryImages: [HEICAuxiliaryImage] = [],
        depth: HEICDepthMap? = nil, orientation: Orientation = .up
    ) throws -> Data {
        let primary: HEICCodec.Source
        if image.format == .oneComponent8 || image.format == .oneComponent16Half || image.format == .oneComponent32Float {
            primary = .gray(try codecEightBit(image, accepted: [.oneComponent8], what: "HEIC"))
        } else {
            primary = .color(try codecEightBit(image, accepted: [.rgba32], what: "HEIC"))
        }
        let file = try HEICCodec.encode(primary, quality: quality, orientation: orientation)
        guard !auxiliaryImages.isEmpty || depth != nil else { return Data(file) }
        var auxiliaries: [HEIFAuxiliaryWriter.Auxiliary] = []
        for auxiliary in auxiliaryImages {
            guard !auxiliary.type.isAlpha else {
                throw ImagingError(.invalidArgument, "give the primary image an alpha channel instead of an alpha auxiliary image")
            }
            guard !auxiliary.type.rawValue.isEmpty, !auxiliary.type.rawValue.utf8.contains(0) else {
                throw ImagingError(.invalidArgument, "auxiliary image type '\(auxiliary.type)' is not a valid URN")
            }
            let pixels = try codecEightBit(auxiliary.pixels, accepted: [.oneComponent8], what: "HEIC auxiliary image")
            auxiliaries.append(.init(file: try HEICCodec.encode(.gray(pixels), quality: quality), type: auxiliary.type.rawValue))
        }
        if let depth {
            let (samples, xmp) = try depthSamples(depth)
            let coded = try HEICCodec.encode(
                .grayDeep(samples: samples, width: depth.values.width, height: depth.values.height, bits: HEICDepthMap.bits),
                quality: quality, xmp: [xmp.packet] + depth.metadata, lossless: true)
            auxiliaries.append(.init(file: coded, type: AuxiliaryImageType.depth.rawValue))
        }
        return Data(try HEIFAuxiliaryWriter.merge(primary: file, auxiliaries: auxiliaries))
    }

    /// Maps depth values onto ``HEICDepthMap/bits``-bit codes over their range.
    private static func depthSamples(_ depth: HEICDepthMap) throws -> ([UInt16], DepthXMP) {
        let values = depth.values
        guard values.format == .oneComponent32Float || values.format == .oneComponent16Half else {
            throw ImagingError(.unsupportedPixelFormat, "a depth map must be .oneComponent32Float or 16Half, not \(values.format)")
        }
        var floats = [Float](repeating: 0, count: values.width * values.height)
        let row = values.bytesPerRow()
        try values.withUnsafeBytes { bytes in
            for y in 0..<values.height {
                for x in 0..<values.width {
                    let value =
                        values.format == .oneComponent32Float
                        ? bytes.load(fromByteOffset: y * row + 4 * x, as: Float.self)
                        : codecHalfToFloat(bytes.load(fromByteOffset: y * row + 2 * x, as: UInt16.self))
                    guard value.isFinite else {
                        throw ImagingError(.invalidArgument, "depth value at (\(x), \(y)) is \(value); depth must be finite")
                    }
                    floats[y * values.width + x] = value
                }
            }
        }
        let range = depth.range ?? (floats.min()!...floats.max()!)
        guard range.lowerBound.isFinite, range.upperBound.isFinite else {
            throw ImagingError(.invalidArgument, "depth range \(range) must be finite")
        }
        if let outside = floats.first(where: { !range.contains($0) }) {
            throw ImagingError(.invalidArgument, "depth value \(outside) is outside the given range \(range)")
        }
        let span = range.upperBound - range.lowerBound
        let top = Float((1 << HEICDepthMap.bits) - 1)
        let samples = floats.map { span > 0 ? UInt16((($0 - range.lowerBound) / span * top).rounded()) : 0 }
        return (samples, DepthXMP(range: range, kind: depth.kind))
    }
}

import Foundation
import PVImaging

/// Where reading an image source stands, as ImageIO's `CGImageSourceStatus`.
public enum CGImageSourceStatus: Int32, Sendable {
    /// The data ended early.
    case statusUnexpectedEOF = -5
    /// The data is damaged.
    case statusInvalidData = -4
    /// The data is not an image format this library reads.
    case statusUnknownType = -3
    /// The header is being read.
    case statusReadingHeader = -2
    /// Not all the data has arrived.
    case statusIncomplete = -1
    /// The image can be read.
    case statusComplete = 0
}

/// Encoded image data to read images and their properties from, as ImageIO's `CGImageSource`.
///
/// Reads JPEG, PNG, HEIC and WebP through the package's decoders. Each source holds one image
/// (HEIC's primary image). As in ImageIO, ``CGImageSourceCreateImageAtIndex(_:_:_:)`` returns the
/// pixels as stored and the orientation is a property (``kCGImagePropertyOrientation``), except
/// for HEIC, whose decoder applies the file's rotation and mirroring: its pixels come upright and
/// it reports no orientation.
///
/// ```swift
/// guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
///       let image = CGImageSourceCreateImageAtIndex(source, 0, nil) else { return }
/// let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any]
/// let orientation = (properties?[kCGImagePropertyOrientation] as? UInt32).flatMap(CGImagePropertyOrientation.init) ?? .up
/// ```
public final class CGImageSource: Sendable {
    let data: Data
    /// The header, or why there is none.
    let info: Result<ImageInfo, ImagingError>

    init(data: Data) {
        self.data = data
        do {
            info = .success(try ImageDecoder.info(data: data))
        } catch let error as ImagingError {
            info = .failure(error)
        } catch {
            info = .failure(ImagingError(.corruptData, "\(error)"))
        }
    }

    /// The header when the data is a readable image and `index` is 0.
    func header(at index: Int) -> ImageInfo? {
        guard index == 0, case .success(let info) = info else { return nil }
        return info
    }
}

/// A source reading a file, or nil when the URL is not a readable file, as ImageIO's `CGImageSourceCreateWithURL`.
public func CGImageSourceCreateWithURL(_ url: CFURL, _ options: CFDictionary?) -> CGImageSource? {
    guard url.isFileURL, let data = try? Data(contentsOf: url, options: .mappedIfSafe) else { return nil }
    return CGImageSource(data: data)
}

/// A source reading data, as ImageIO's `CGImageSourceCreateWithData`. Data that is not an image
/// still makes a source, as in ImageIO: one with no images and a failed ``CGImageSourceGetStatus(_:)``.
public func CGImageSourceCreateWithData(_ data: CFData, _ options: CFDictionary?) -> CGImageSource? {
    CGImageSource(data: data)
}

/// The number of images: 1 for readable image data, else 0, as ImageIO's `CGImageSourceGetCount`.
public func CGImageSourceGetCount(_ isrc: CGImageSource) -> Int { isrc.header(at: 0) == nil ? 0 : 1 }

/// Whether the source can be read, as ImageIO's `CGImageSourceGetStatus`.
public func CGImageSourceGetStatus(_ isrc: CGImageSource) -> CGImageSourceStatus {
    switch isrc.info {
    case .success: return .statusComplete
    case .failure(let error):
        if isrc.data.isEmpty { return .statusReadingHeader }
        if (try? ImageFormat(sniffing: isrc.data)) == nil || error.code == .unsupportedFormat { return .statusUnknownType }
        return error.code == .truncatedData ? .statusUnexpectedEOF : .statusInvalidData
    }
}

/// The data's uniform type identifier (`public.jpeg`, `public.png`, `public.heic`,
/// `org.webmproject.webp`), or nil when it is not an image, as ImageIO's `CGImageSourceGetType`.
public func CGImageSourceGetType(_ isrc: CGImageSource) -> CFString? {
    guard let info = isrc.header(at: 0) else { return nil }
    return ImageIOType(info.format).identifier
}

/// The image at `index` (0), its pixels as stored, or nil when it cannot be decoded, as ImageIO's
/// `CGImageSourceCreateImageAtIndex`. Options are accepted and not needed (decoding is eager and
/// uncached).
public func CGImageSourceCreateImageAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? {
    guard isrc.header(at: index) != nil,
        let decoded = try? ImageDecoder.decode(data: isrc.data, options: ImageDecoder.Options(applyOrientation: false, keepsGrayscale: true)),
        let pixels = try? CGImage.storable(decoded.pixels)
    else { return nil }
    return CGImage(buffer: pixels)
}

/// The properties of the image at `index`, or nil, as ImageIO's `CGImageSourceCopyPropertiesAtIndex`.
///
/// Keys: ``kCGImagePropertyPixelWidth`` and ``kCGImagePropertyPixelHeight`` (as stored, before any
/// orientation), ``kCGImagePropertyOrientation`` (when the file has one other than up; also in
/// the ``kCGImagePropertyTIFFDictionary``), ``kCGImagePropertyHasAlpha``,
/// ``kCGImagePropertyDepth`` (8, the depth images are decoded to here, whatever the file stores) and
/// ``kCGImagePropertyColorModel``. Numbers are
/// `NSNumber`s, so `as? UInt32`, `as? Int` and `as? NSNumber` all read them.
public func CGImageSourceCopyPropertiesAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CFDictionary? {
    guard let info = isrc.header(at: index) else { return nil }
    var properties: [CFString: Any] = [
        kCGImagePropertyPixelWidth: NSNumber(value: info.width), kCGImagePropertyPixelHeight: NSNumber(value: info.height),
        kCGImagePropertyHasAlpha: NSNumber(value: info.hasAlpha), kCGImagePropertyDepth: NSNumber(value: 8),
        kCGImagePropertyColorModel: info.isGray ? kCGImagePropertyColorModelGray : kCGImagePropertyColorModelRGB,
    ]
    if info.orientation != .up {
        let value = NSNumber(value: info.orientation.rawValue)
        properties[kCGImagePropertyOrientation] = value
        properties[kCGImagePropertyTIFFDictionary] = [kCGImagePropertyTIFFOrientation: value] as [CFString: Any]
    }
    return properties
}

/// The source's properties as a container, as ImageIO's `CGImageSourceCopyProperties` (the file
/// size, ``kCGImagePropertyFileSize``).
public func CGImageSourceCopyProperties(_ isrc: CGImageSource, _ options: CFDictionary?) -> CFDictionary? {
    [kCGImagePropertyFileSize: NSNumber(value: isrc.data.count)]
}

/// An auxiliary image (a matte, depth or disparity) of the image at `index`, as ImageIO's
/// `CGImageSourceCopyAuxiliaryDataInfoAtIndex`, or nil when the file has none (mattes are read from HEIC files,
/// depth and disparity from HEIC files and from portrait JPEGs in Apple's multi-picture layout).
///
/// The dictionary holds ``kCGImageAuxiliaryDataInfoData`` (the pixels, rows packed without padding)
/// and ``kCGImageAuxiliaryDataInfoDataDescription`` (``kCGImagePropertyWidth``, ``kCGImagePropertyHeight``,
/// ``kCGImagePropertyBytesPerRow`` and ``kCGImagePropertyPixelFormat``: `kCVPixelFormatType_OneComponent8` for
/// mattes, `kCVPixelFormatType_DepthFloat32` or `kCVPixelFormatType_DisparityFloat32` for depth, converted `1/x`
/// when the file stores the other). Depth and disparity also carry ``kCGImageAuxiliaryDataInfoMetadata``, their
/// description (a ``CGImageMetadata``) that ``AVDepthData/init(fromDictionaryRepresentation:)`` reads.
public func CGImageSourceCopyAuxiliaryDataInfoAtIndex(_ isrc: CGImageSource, _ index: Int, _ auxiliaryImageDataType: CFString)
    -> CFDictionary?
{
    guard let info = isrc.header(at: index), info.format == .heic || info.format == .jpeg else { return nil }
    if auxiliaryImageDataType == kCGImageAuxiliaryDataTypeDepth || auxiliaryImageDataType == kCGImageAuxiliaryDataTypeDisparity {
        guard let depth = try? AVDepthData.read(fromFile: isrc.data) else { return nil }
        let wantsDepth = auxiliaryImageDataType == kCGImageAuxiliaryDataTypeDepth
        return depth.converting(toDepthDataType: wantsDepth ? kCVPixelFormatType_DepthFloat32 : kCVPixelFormatType_DisparityFloat32)
            .dictionaryRepresentation(forAuxiliaryDataType: nil)
    }
    guard info.format == .heic, let reader = try? HEICReader(data: isrc.data), let matte = AuxiliaryData.mattes[auxiliaryImageDataType],
        let read = try? reader.auxiliaryImage(matte),
        let pixels = try? read.converted(to: .oneComponent8)
    else { return nil }
    let rowLength = pixels.width, stride = pixels.bytesPerRow()
    var bytes = Data(count: rowLength * pixels.height)
    bytes.withUnsafeMutableBytes { out in
        pixels.withUnsafeBytes { source in
            for y in 0..<pixels.height {
                (out.baseAddress! + y * rowLength).copyMemory(from: source.baseAddress! + y * stride, byteCount: rowLength)
            }
        }
    }
    let description: [CFString: Any] = [
        kCGImagePropertyWidth: NSNumber(value: pixels.width), kCGImagePropertyHeight: NSNumber(value: pixels.height),
        kCGImagePropertyBytesPerRow: NSNumber(value: rowLength),
        kCGImagePropertyPixelFormat: NSNumber(value: kCVPixelFormatType_OneComponent8),
    ]
    return [kCGImageAuxiliaryDataInfoData: bytes, kCGImageAuxiliaryDataInfoDataDescription: description] as [CFString: Any]
}

/// The auxiliary image types of ImageIO and the HEIC types they are stored as.
enum AuxiliaryData {
    static let mattes: [CFString: AuxiliaryImageType] = [
        kCGImageAuxiliaryDataTypePortraitEffectsMatte: .portraitEffectsMatte,
        kCGImageAuxiliaryDataTypeSemanticSegmentationSkinMatte: .skinMatte,
        kCGImageAuxiliaryDataTypeSemanticSegmentationHairMatte: .hairMatte,
        kCGImageAuxiliaryDataTypeSemanticSegmentationTeethMatte: .teethMatte,
        kCGImageAuxiliaryDataTypeSemanticSegmentationGlassesMatte: .glassesMatte,
        kCGImageAuxiliaryDataTypeSemanticSegmentationSkyMatte: .skyMatte,
    ]
}

extension CGImage {
    /// Pixels in a layout a `CGImage` holds (`.rgba32` straight alpha or `.oneComponent8`).
    static func storable(_ pixels: PixelBuffer) throws -> PixelBuffer {
        switch pixels.format {
        case .rgba32, .oneComponent8: return pixels
        case .oneComponent16Half, .oneComponent32Float: return try pixels.converted(to: .oneComponent8)
        default: return try pixels.converted(to: .rgba32)
        }
    }
}

import Foundation
import PVImaging

/// Writes an image file or data, as ImageIO's `CGImageDestination`.
///
/// Writes one image per destination as JPEG (`public.jpeg`), PNG (`public.png`), HEIC
/// (`public.heic`) or WebP (`org.webmproject.webp`, lossless at quality 1, else lossy) through the
/// package's encoders. Properties given with the image may hold
/// ``kCGImageDestinationLossyCompressionQuality`` (0…1; defaults 0.9 for JPEG, 0.8 for HEIC and
/// WebP) and ``kCGImagePropertyOrientation`` (1–8), which is written as the file's EXIF
/// orientation in JPEG and PNG and as rotation and mirroring properties in HEIC; WebP cannot
/// record one (``CGImageDestinationFinalize(_:)`` then fails).
///
/// ```swift
/// let data = NSMutableData()
/// let destination = CGImageDestinationCreateWithData(data as CFMutableData, "public.jpeg" as CFString, 1, nil)!
/// CGImageDestinationAddImage(destination, image, [kCGImagePropertyOrientation: 6] as CFDictionary)
/// let ok = CGImageDestinationFinalize(destination)
/// ```
public final class CGImageDestination: @unchecked Sendable {
    enum Target {
        case url(URL)
        case data(NSMutableData)
    }

    private let lock = NSLock()
    let target: Target
    let type: ImageIOType
    private var image: (CGImage, [String: Any])?
    private var properties: [String: Any]
    private var finalized = false
    /// Auxiliary data to store with the image, by ImageIO type (``CGImageDestinationAddAuxiliaryDataInfo(_:_:_:)``).
    private var auxiliary: [(type: String, info: [AnyHashable: Any])] = []

    init(target: Target, type: ImageIOType, options: [String: Any]) {
        self.target = target
        self.type = type
        properties = options
    }

    func add(_ image: CGImage, _ given: [String: Any]) {
        lock.withLock { if !finalized, self.image == nil { self.image = (image, given) } }
    }

    func set(_ given: [String: Any]) { lock.withLock { properties.merge(given) { $1 } } }

    func addAuxiliary(_ type: String, _ info: [AnyHashable: Any]) {
        lock.withLock {
            guard !finalized else { return }
            auxiliary.removeAll { $0.type == type }
            auxiliary.append((type, info))
        }
    }

    /// Encodes and writes once; false when there is no image, it was already finalized, or writing fails.
    func finalize() -> Bool {
        let pending: (CGImage, [String: Any], [(type: String, info: [AnyHashable: Any])])? = lock.withLock {
            guard !finalized else { return nil }
            finalized = true
            return image.map { ($0.0, properties.merging($0.1) { $1 }, auxiliary) }
        }
        guard let (image, properties, auxiliary) = pending, let encoded = try? encode(image.buffer, properties, auxiliary)
        else { return false }
        switch target {
        case .url(let url):
            return (try? writeAtomically(encoded, to: url)) != nil
        case .data(let data):
            data.setData(encoded)
            return true
        }
    }

    private func encode(
        _ pixels: PixelBuffer, _ properties: [String: Any], _ auxiliary: [(type: String, info: [AnyHashable: Any])]
    ) throws -> Data {
        var quality: Double?
        if let raw = properties[kCGImageDestinationLossyCompressionQuality.rawValue] {
            guard let q = numberValue(raw), (0...1).contains(q) else {
                throw ImagingError(.invalidArgument, "kCGImageDestinationLossyCompressionQuality must be in 0…1")
            }
            quality = q
        }
        var orientation = Orientation.up
        if let raw = properties[kCGImagePropertyOrientation] {
            guard let value = integerValue(raw), let o = UInt32(exactly: value).flatMap(Orientation.init(rawValue:)) else {
                throw ImagingError(.invalidArgument, "kCGImagePropertyOrientation must be 1…8")
            }
            orientation = o
        }
        if !auxiliary.isEmpty {
            guard type.format == .heic else {
                throw ImagingError(.invalidArgument, "auxiliary data is written in HEIC files only here")
            }
            let (mattes, depth) = try AuxiliaryData.heicImages(auxiliary)
            return try ImageEncoder.encodeHEIC(
                pixels, quality: Int(((quality ?? 0.8) * 100).rounded()), auxiliaryImages: mattes, depth: depth,
                orientation: orientation)
        }
        let format: ImageEncoder.Format
        switch type.format {
        case .jpeg: format = .jpeg(quality: max(1, Int(((quality ?? 0.9) * 100).rounded())))
        case .png: format = .png
        case .heic: format = .heic(quality: Int(((quality ?? 0.8) * 100).rounded()))
        case .webp: format = quality == 1 ? .webpLossless : .webp(quality: Float((quality ?? 0.8) * 100))
        }
        return try ImageEncoder.encode(pixels, as: format, orientation: orientation)
    }
}

/// A destination writing a file, as ImageIO's `CGImageDestinationCreateWithURL`; nil for a type
/// this library does not write, a URL that is not a file URL, or a `count` other than 1.
public func CGImageDestinationCreateWithURL(_ url: CFURL, _ type: CFString, _ count: Int, _ options: CFDictionary?)
    -> CGImageDestination?
{
    guard url.isFileURL, count == 1, let format = ImageIOType(identifier: type) else { return nil }
    return CGImageDestination(target: .url(url), type: format, options: cfStringKeyed(options))
}

/// A destination writing into `data` (replacing its bytes at finalize), as ImageIO's
/// `CGImageDestinationCreateWithData`; nil for a type this library does not write or a `count` other than 1.
public func CGImageDestinationCreateWithData(_ data: CFMutableData, _ type: CFString, _ count: Int, _ options: CFDictionary?)
    -> CGImageDestination?
{
    guard count == 1, let format = ImageIOType(identifier: type) else { return nil }
    return CGImageDestination(target: .data(data), type: format, options: cfStringKeyed(options))
}

/// Adds the image to write, with its properties, as ImageIO's `CGImageDestinationAddImage` (an image
/// added after the first, or after finalizing, is ignored: a destination holds one image).
public func CGImageDestinationAddImage(_ idst: CGImageDestination, _ image: CGImage, _ properties: CFDictionary?) {
    idst.add(image, cfStringKeyed(properties))
}

/// Sets properties for the whole file (merged under each image's own), as ImageIO's `CGImageDestinationSetProperties`.
public func CGImageDestinationSetProperties(_ idst: CGImageDestination, _ properties: CFDictionary?) {
    idst.set(cfStringKeyed(properties))
}

/// Adds auxiliary data to store with the image, as ImageIO's `CGImageDestinationAddAuxiliaryDataInfo`: a depth or
/// disparity map (``kCGImageAuxiliaryDataTypeDepth``, ``kCGImageAuxiliaryDataTypeDisparity``; the dictionary
/// ``AVDepthData/dictionaryRepresentation(forAuxiliaryDataType:)`` returns, or one built as it is, its
/// ``kCGImageAuxiliaryDataInfoMetadata`` stored beside it) or a matte (`kCVPixelFormatType_OneComponent8` data).
/// Written in HEIC files only (finalizing another type fails); a second dictionary of one type replaces the first.
/// A malformed dictionary makes ``CGImageDestinationFinalize(_:)`` fail.
public func CGImageDestinationAddAuxiliaryDataInfo(
    _ idst: CGImageDestination, _ auxiliaryImageDataType: CFString, _ auxiliaryDataInfoDictionary: CFDictionary
) {
    idst.addAuxiliary(auxiliaryImageDataType, auxiliaryDataInfoDictionary)
}

/// Encodes and writes the image, as ImageIO's `CGImageDestinationFinalize`.
///
/// Returns false when no image was added, the destination was already finalized, a property is
/// invalid (quality outside 0…1, orientation outside 1…8, an orientation for WebP), auxiliary data is
/// malformed or given for a type other than HEIC, or the file cannot be written; a file is written atomically, so a failure never leaves part of one.
public func CGImageDestinationFinalize(_ idst: CGImageDestination) -> Bool { idst.finalize() }

/// The type identifiers a destination can write, as ImageIO's `CGImageDestinationCopyTypeIdentifiers`.
public func CGImageDestinationCopyTypeIdentifiers() -> CFArray {
    NSArray(array: ImageFormat.allCases.map { ImageIOType($0).identifier })
}

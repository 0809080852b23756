import Foundation
import PVCore

/// The image container formats the codecs read and write.
///
/// A format is always recognised from the file's first bytes, never from its name, so a PNG
/// saved as `photo.jpg` still decodes as PNG.
///
/// ```swift
/// let format = try ImageFormat(sniffing: data)   // .png, whatever the extension said
/// ```
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// JPEG/JFIF/EXIF (libjpeg-turbo).
    case jpeg
    /// PNG (libpng).
    case png
    /// HEIF with HEVC-coded images, as iPhones write (libheif).
    case heic
    /// WebP, lossy or lossless (libwebp).
    case webp

    /// The conventional file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .heic: return "heic"
        case .webp: return "webp"
        }
    }

    /// The MIME type.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .heic: return "image/heic"
        case .webp: return "image/webp"
        }
    }

    public var description: String {
        switch self {
        case .jpeg: return "JPEG"
        case .png: return "PNG"
        case .heic: return "HEIC"
        case .webp: return "WebP"
        }
    }

    /// Recognises the format from the leading bytes.
    ///
    /// - Throws: ``ImagingError`` `.truncatedData` when `data` is empty or ends inside a known
    ///   signature, `.unsupportedFormat` for anything else (naming GIF, BMP, TIFF and AVIF when
    ///   it sees them).
    public init(sniffing data: Data) throws {
        self = try data.withUnsafeBytes { try ImageFormat.sniff($0) }
    }

    static func sniff(_ bytes: UnsafeRawBufferPointer) throws -> ImageFormat {
        guard !bytes.isEmpty else { throw ImagingError(.truncatedData, "the image data is empty (0 bytes)") }
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + prefix.count else { return false }
            return zip(prefix.indices, prefix).allSatisfy { bytes[offset + $0] == $1 }
        }
        func isTruncatedPrefix(of signature: [UInt8], at offset: Int = 0) -> Bool {
            let available = bytes.count - offset
            guard available > 0, available < signature.count else { return false }
            return (0..<available).allSatisfy { bytes[offset + $0] == signature[$0] }
        }
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let riff = Array("RIFF".utf8), webp = Array("WEBP".utf8), ftyp = Array("ftyp".utf8)
        if starts(with: jpeg) { return .jpeg }
        if starts(with: png) { return .png }
        if starts(with: riff) {
            if starts(with: webp, at: 8) { return .webp }
            if bytes.count < 12 && (bytes.count <= 8 || isTruncatedPrefix(of: webp, at: 8)) {
                throw ImagingError(.truncatedData, "the data ends inside a RIFF header (\(bytes.count) bytes)")
            }
        }
        if starts(with: ftyp, at: 4) {
            return try sniffHEIF(bytes)
        }
        if isTruncatedPrefix(of: jpeg) || isTruncatedPrefix(of: png) || isTruncatedPrefix(of: riff)
            || (bytes.count < 8 && bytes.count > 4 && isTruncatedPrefix(of: ftyp, at: 4))
        {
            throw ImagingError(.truncatedData, "the data ends inside the file signature (\(bytes.count) bytes)")
        }
        let known: [(String, [UInt8])] = [
            ("GIF", Array("GIF8".utf8)), ("BMP", Array("BM".utf8)), ("TIFF", [0x49, 0x49, 0x2A, 0x00]),
            ("TIFF", [0x4D, 0x4D, 0x00, 0x2A]),
        ]
        if let name = known.first(where: { starts(with: $0.1) })?.0 {
            throw ImagingError(.unsupportedFormat, "\(name) images are not supported; use JPEG, PNG, HEIC or WebP")
        }
        throw ImagingError(.unsupportedFormat, "the data is not a JPEG, PNG, HEIC or WebP image")
    }

    /// An ISOBMFF file: HEIC when the `ftyp` box names an HEVC-in-HEIF brand.
    private static func sniffHEIF(_ bytes: UnsafeRawBufferPointer) throws -> ImageFormat {
        guard bytes.count >= 12 else {
            throw ImagingError(.truncatedData, "the data ends inside the ftyp box (\(bytes.count) bytes)")
        }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        var brands: [String] = []
        func brand(at offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
        brands.append(brand(at: 8))
        var offset = 16
        while offset + 4 <= min(size, bytes.count, 4096) {
            brands.append(brand(at: offset))
            offset += 4
        }
        let hevc: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx", "heif"]
        if brands.contains(where: hevc.contains) { return .heic }
        if brands.contains("avif") || brands.contains("avis") {
            throw ImagingError(.unsupportedFormat, "AVIF images are not supported; use JPEG, PNG, HEIC or WebP")
        }
        if brands.contains("mif1") || brands.contains("msf1") { return .heic }
        throw ImagingError(
            .unsupportedFormat, "the ISO media file (brand '\(brands[0])') is not a HEIC image; video files are not images")
    }
}

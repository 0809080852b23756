import ArgumentParser
import Foundation
import PeopleVision
import PVImaging

/// `--quality fast|balanced|accurate`.
enum QualityOption: String, ExpressibleByArgument, CaseIterable {
    case fast, balanced, accurate

    var level: VNGeneratePersonSegmentationRequest.QualityLevel {
        switch self {
        case .fast: return .fast
        case .balanced: return .balanced
        case .accurate: return .accurate
        }
    }
}

/// Output file formats chosen from the file extension.
enum OutputKind {
    case png, jpeg, heif, webp

    init(url: URL) throws {
        switch url.pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        case "heic", "heif": self = .heif
        case "webp": self = .webp
        default: throw ValidationError("unsupported output extension '.\(url.pathExtension)': use .png, .jpg, .heic or .webp")
        }
    }
}

/// A failure of the run, not of the command line (an input file that cannot be used, a step that produced nothing):
/// exit status 1 and the message alone, with no usage text after it.
struct CommandFailure: Error, CustomNSError {
    let message: String
    init(_ message: String) { self.message = message }
    var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
}

/// Reads an image argument into a CIImage, with a clear error.
func loadImage(_ path: String) throws -> (url: URL, image: CIImage) {
    let url = URL(fileURLWithPath: path)
    if let reason = ImageDecoder.unreadableReason(url) { throw CommandFailure("cannot read \(path): \(reason)") }
    guard let image = CIImage(contentsOf: url) else {
        // Core Image's initializer only says no; the decoder says why.
        var why = ""
        do { _ = try ImageDecoder.decode(contentsOf: url) } catch let error as ImagingError { why = ": \(error.message)" } catch {}
        throw CommandFailure("\(path) is not an image PeopleVision can decode (JPEG, PNG, HEIC, WebP)\(why)")
    }
    return (url, image)
}

/// An image file's bytes as a CIImage; when Core Image cannot read them, the decoder's `ImagingError` says why.
func decodedImage(_ data: Data) throws -> CIImage {
    if let image = CIImage(data: data) { return image }
    _ = try ImageDecoder.decode(data: data)
    throw CommandFailure("the image is not one PeopleVision can decode (JPEG, PNG, HEIC, WebP)")
}

/// Writes a rendered image in the format the extension names (atomically: no partial file on failure).
func write(_ image: CIImage, to url: URL, context: CIContext = CIContext()) throws {
    let srgb = CGColorSpace(name: CGColorSpace.sRGB)!
    switch try OutputKind(url: url) {
    case .png: try context.writePNGRepresentation(of: image, to: url, format: .RGBA8, colorSpace: srgb)
    case .jpeg:
        try context.writeJPEGRepresentation(
            of: image, to: url, colorSpace: srgb, options: [kCGImageDestinationLossyCompressionQuality: 0.9])
    case .heif: try context.writeHEIFRepresentation(of: image, to: url, format: .RGBA8, colorSpace: srgb)
    case .webp:
        // Core Image has no WebP writer; render the pixels and encode them with PVImaging.
        try ImageEncoder.write(try context.renderPixels(image, format: .rgba32), to: url, as: .webp(quality: 90))
    }
}

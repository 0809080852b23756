import ArgumentParser
import Foundation
import PeopleVision

/// `peoplevision segment IMAGE -o MASK.png`: the person mask, as Vision's person-segmentation request makes it.
struct SegmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "segment",
        abstract: "Write the person mask of an image (white = person).",
        discussion: """
            The mask has the size the quality level produces (fast 256×144, balanced 256×256, accurate: the \
            image's size). u8 writes an 8-bit grey PNG; f16 and f32 write a 16-bit grey PNG of the 0…1 values.
            """)

    enum MaskFormat: String, ExpressibleByArgument, CaseIterable { case u8, f16, f32 }

    @Argument(help: "The input image (JPEG, PNG, HEIC, WebP).") var image: String
    @Option(name: .shortAndLong, help: "Where to write the mask (.png).") var output: String
    @Option(help: "fast, balanced or accurate.") var quality: QualityOption = .accurate
    @Option(help: "Mask pixel format: u8, f16 or f32.") var format: MaskFormat = .u8

    func validate() throws {
        guard URL(fileURLWithPath: output).pathExtension.lowercased() == "png" else {
            throw ValidationError("the mask is written as PNG: give an output path ending in .png")
        }
    }

    func run() throws {
        let mask = try Self.mask(VNImageRequestHandler(url: URL(fileURLWithPath: image)), quality: quality, format: format)
        try writeMaskPNG(mask, to: URL(fileURLWithPath: output))
        print("\(output): \(CVPixelBufferGetWidth(mask))×\(CVPixelBufferGetHeight(mask)) mask, \(format.rawValue)")
    }

    /// The person mask of the image `handler` reads (shared with the HTTP service's `/v1/segment`).
    static func mask(_ handler: VNImageRequestHandler, quality: QualityOption, format: MaskFormat) throws -> CVPixelBuffer {
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = quality.level
        switch format {
        case .u8: request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        case .f16: request.outputPixelFormat = kCVPixelFormatType_OneComponent16Half
        case .f32: request.outputPixelFormat = kCVPixelFormatType_OneComponent32Float
        }
        try handler.perform([request])
        guard let mask = request.results?.first?.pixelBuffer else { throw CommandFailure("no mask was produced") }
        return mask
    }
}

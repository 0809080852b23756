import Foundation
import PeopleVision
import PVImaging

/// What an analysis step knows about the image it is writing results for.
struct AnalyzeContext {
    /// The image's width in pixels (as analysed, after orientation).
    let imageWidth: Int
    /// The image's height in pixels (as analysed, after orientation).
    let imageHeight: Int
    /// Where the image's JSON record goes, if it goes to a file; side files (mask PNGs) go beside it.
    let jsonURL: URL?
    /// Without `jsonURL`: whether masks go into the record as `data:image/png;base64,…` URLs (the HTTP service) or
    /// are only named by a placeholder (`analyze` printing to standard output).
    var inlineMasks = false

    /// The record's value for a mask: the PNG's file name beside the JSON (written there), its `data:` URL, or a
    /// placeholder naming what is missing.
    func maskValue(_ mask: PixelBuffer, suffix: String, placeholder: String) throws -> String {
        guard let out = jsonURL else {
            guard inlineMasks else { return placeholder }
            return "data:image/png;base64," + (try ImageEncoder.encode(mask, as: .png)).base64EncodedString()
        }
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let name = out.deletingPathExtension().lastPathComponent + suffix
        try ImageEncoder.write(mask, to: out.deletingLastPathComponent().appendingPathComponent(name), as: .png)
        return name
    }
}

/// One analysis of `peoplevision analyze`: the Vision requests it runs, the keys it adds to the
/// prediction record (the evaluation harness's format: normalized coordinates, lower-left origin,
/// Vision's names) and what it draws on the overlay picture.
protocol AnalyzeStep: AnyObject {
    /// Runs the step's requests. All steps share one handler, which decodes the image once.
    func perform(on handler: VNImageRequestHandler) throws
    /// Adds the step's results to the image's record.
    func write(into record: inout [String: Any], context: AnalyzeContext) throws
    /// Draws the step's results on the overlay picture.
    func draw(on canvas: inout Canvas, context: AnalyzeContext) throws
}

/// Person segmentation: an 8-bit mask PNG beside the JSON (`segmentation` key).
final class SegmentationStep: AnalyzeStep {
    let request = VNGeneratePersonSegmentationRequest()

    init(quality: QualityOption) {
        request.qualityLevel = quality.level
    }

    func perform(on handler: VNImageRequestHandler) throws {
        try handler.perform([request])
    }

    func write(into record: inout [String: Any], context: AnalyzeContext) throws {
        guard let mask = request.results?.first?.pixelBuffer else { return }
        record["segmentation"] = try context.maskValue(
            mask.pixelBuffer, suffix: ".seg.png", placeholder: "(mask not written without --json DIR)")
    }

    func draw(on canvas: inout Canvas, context: AnalyzeContext) throws {
        guard let mask = request.results?.first?.pixelBuffer else { return }
        try canvas.tint(mask: mask.pixelBuffer, color: .magenta, opacity: 0.55)
    }
}

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
        guard let out = context.jsonURL else {
            record["segmentation"] = "(mask not written without --json DIR)"
            return
        }
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        let name = out.deletingPathExtension().lastPathComponent + ".seg.png"
        try ImageEncoder.write(mask.pixelBuffer, to: out.deletingLastPathComponent().appendingPathComponent(name), as: .png)
        record["segmentation"] = name
    }

    func draw(on canvas: inout Canvas, context: AnalyzeContext) throws {
        guard let mask = request.results?.first?.pixelBuffer else { return }
        try canvas.tint(mask: mask.pixelBuffer, color: .magenta, opacity: 0.55)
    }
}

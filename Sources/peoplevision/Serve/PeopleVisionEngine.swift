#if Serve
import Foundation
import PeopleVision
import PVImaging
import PVServe

/// The HTTP service's engine: the commands' own code (``AnalyzeCommand/record(of:named:steps:jsonURL:inlineMasks:beforeEachStep:)``,
/// ``SegmentCommand/mask(_:quality:format:)``, ``Greeting/composite(info:backdrop:quality:loadPhoto:)``, the instance
/// records) run on uploaded bytes, so each endpoint answers what the matching command writes.
///
/// Cancellation: the service runs each job under its cancellation flag, which the engine checks before each model run
/// (PVThreads' `Cancellation`); a job given up stops there, and also between the analyses of `/v1/analyze` and before
/// encoding the picture of the other operations. A model run already under way finishes first.
struct PeopleVisionEngine: ServeEngine {
    var analysisNames: [String] { AnalyzeCommand.Analysis.allCases.map(\.rawValue) }

    func warmUp() throws {
        // A small blank picture through every analysis and segmentation level loads every model once.
        let blank = try ImageEncoder.encode(try PixelBuffer(width: 96, height: 96, format: .rgba32), as: .png)
        _ = try? run(EngineJob(image: blank, operation: .analyze(requests: analysisNames)))
        for quality in EngineJob.Quality.allCases {
            _ = try? run(EngineJob(image: blank, operation: .segment(quality: quality, format: .u8)))
        }
    }

    func run(_ job: EngineJob) throws -> EngineOutput {
        do {
            return try perform(job)
        } catch let error as ServeError {
            throw error
        } catch {
            throw Self.serveError(error)
        }
    }

    /// An engine failure as the service's answer: the decoder's complaints about the upload as 4xx, anything else as
    /// 422 (the image was readable but could not be analysed).
    static func serveError(_ error: Error) -> ServeError {
        let underlying = (error as? EngineError) ?? ((error as NSError).userInfo[NSUnderlyingErrorKey] as? EngineError)
        if let underlying, [.truncatedData, .corruptData, .unsupportedFormat, .tooLarge, .invalidDimensions].contains(underlying.code) {
            return ServeError.image(underlying)
        }
        return ServeError.unprocessable("analysis_failed", "the image could not be analysed: \(errorMessage(error))")
    }

    private func perform(_ job: EngineJob) throws -> EngineOutput {
        switch job.operation {
        case .analyze(let names):
            let analyses: [AnalyzeCommand.Analysis]
            do {
                analyses = try AnalyzeCommand.Analysis.parse(names)
            } catch {
                throw ServeError.badRequest("unknown_request", error.message)
            }
            let steps = AnalyzeCommand.Analysis.allCases.filter(analyses.contains).map { $0.makeStep(quality: .accurate) }
            let (record, _) = try AnalyzeCommand.record(
                of: VNImageRequestHandler(data: job.image), named: job.name, steps: steps, jsonURL: nil, inlineMasks: true,
                beforeEachStep: job.checkCancelled)
            return EngineOutput(body: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), contentType: "application/json")
        case .segment(let quality, let format):
            let mask = try SegmentCommand.mask(VNImageRequestHandler(data: job.image), quality: quality.option, format: format.option)
            return png(try ImageEncoder.encode(mask.pixelBuffer, as: .png))
        case .greet(let background, let quality, let format):
            return try greet(job, background: background, quality: quality, format: format)
        case .cutout(let quality):
            return png(try ImageEncoder.encode(try Cutout.people(job, quality: quality.option, background: nil), as: .png))
        case .instances(let output):
            return png(try ImageEncoder.encode(try Cutout.instances(job, output: output), as: .png))
        case .remove(let maskOnly, let background):
            if maskOnly {
                let handler = VNImageRequestHandler(data: job.image)
                let mask = try SegmentCommand.mask(handler, quality: .accurate, format: .u8).pixelBuffer
                let size = try handler.imageSize()
                return png(try ImageEncoder.encode(try mask.resized(width: size.width, height: size.height, method: .bilinear), as: .png))
            }
            return png(try ImageEncoder.encode(try Cutout.people(job, quality: .accurate, background: background), as: .png))
        }
    }

    private func greet(_ job: EngineJob, background: EngineJob.Background, quality: EngineJob.Quality, format: EngineJob.PictureFormat) throws -> EngineOutput {
        let backdrop: Greeting.Backdrop
        switch background {
        case .blur: backdrop = .blur
        case .image(let data): backdrop = .encoded(data)
        case .color(let c):
            backdrop = .color(CIColor(red: CGFloat(c.red) / 255, green: CGFloat(c.green) / 255, blue: CGFloat(c.blue) / 255))
        }
        let composite = try Greeting.composite(info: try? ImageDecoder.info(data: job.image), backdrop: backdrop, quality: quality.option) {
            try decodedImage(job.image)
        }
        try job.checkCancelled()
        guard let srgb = CGColorSpace(name: CGColorSpace.sRGB) else { throw ServeError.unprocessable("analysis_failed", "no sRGB colour space") }
        let context = CIContext()
        let data = switch format {
        case .png: context.pngRepresentation(of: composite, format: .RGBA8, colorSpace: srgb)
        case .jpeg: context.jpegRepresentation(of: composite, colorSpace: srgb, options: [kCGImageDestinationLossyCompressionQuality: 0.9])
        }
        guard let data else { throw ServeError.unprocessable("analysis_failed", "the greeting could not be encoded") }
        return EngineOutput(body: data, contentType: format == .png ? "image/png" : "image/jpeg")
    }

    private func png(_ data: Data) -> EngineOutput { EngineOutput(body: data, contentType: "image/png") }
}

extension EngineJob.Quality {
    var option: QualityOption {
        switch self {
        case .fast: .fast
        case .balanced: .balanced
        case .accurate: .accurate
        }
    }
}

extension EngineJob.MaskFormat {
    var option: SegmentCommand.MaskFormat {
        switch self {
        case .u8: .u8
        case .f16: .f16
        case .f32: .f32
        }
    }
}
#endif

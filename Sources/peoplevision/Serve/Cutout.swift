#if Serve
import Foundation
import PeopleVision
import PVImaging
import PVServe

/// The service's pictures of people: the photo with the person mask as its alpha (optionally over a colour), and the
/// instance label map or the cut-out of chosen instances (as `peoplevision instances -o` / `--cutout` make them).
enum Cutout {
    /// The photo's people on transparency (straight-alpha RGBA, the person mask times the photo's own alpha), or over
    /// `background` (composited as "over", so a translucent colour stays translucent where there is no person).
    static func people(_ job: EngineJob, quality: QualityOption, background: EngineJob.RGBA?) throws -> PixelBuffer {
        let handler = VNImageRequestHandler(data: job.image)
        let mask = try SegmentCommand.mask(handler, quality: quality, format: .u8).pixelBuffer
        try job.checkCancelled()
        var photo = try handler.uprightImage().converted(to: .rgba32)
        let alpha = try mask.converted(to: .oneComponent8).resized(width: photo.width, height: photo.height, method: .bilinear)
        let ps = photo.bytesPerRow(), ms = alpha.bytesPerRow(), w = photo.width, h = photo.height
        let bg = background.map { (Float($0.red), Float($0.green), Float($0.blue), Float($0.alpha) / 255) }
        alpha.withUnsafeBytes { m in
            photo.withUnsafeMutableBytes { p in
                for y in 0..<h {
                    for x in 0..<w {
                        let o = y * ps + 4 * x
                        let a = Float(m[y * ms + x]) / 255 * Float(p[o + 3]) / 255
                        guard let (br, bgreen, bb, ba) = bg else {
                            p[o + 3] = UInt8((a * 255).rounded())
                            continue
                        }
                        let out = a + ba * (1 - a)
                        guard out > 0 else {
                            (p[o], p[o + 1], p[o + 2], p[o + 3]) = (0, 0, 0, 0)
                            continue
                        }
                        for (c, b) in [(0, br), (1, bgreen), (2, bb)] {
                            p[o + c] = UInt8(min(255, ((Float(p[o + c]) * a + b * ba * (1 - a)) / out).rounded()))
                        }
                        p[o + 3] = UInt8((out * 255).rounded())
                    }
                }
            }
        }
        return photo
    }

    /// The instance label map (8-bit: 0 background, 1… the people, largest first) or the chosen instances' cut-out.
    static func instances(_ job: EngineJob, output: EngineJob.InstancesOutput) throws -> PixelBuffer {
        let handler = VNImageRequestHandler(data: job.image)
        let request = VNGeneratePersonInstanceMaskRequest()
        try handler.perform([request])
        guard let result = request.results?.first else {
            throw ServeError.unprocessable("analysis_failed", "the instance request returned no observation")
        }
        try job.checkCancelled()
        switch output {
        case .labels:
            return try InstanceRecords.labels(result, handler: handler)
        case .cutout(let select, let crop):
            let chosen = select.map { IndexSet($0) } ?? result.allInstances
            if let bad = chosen.first(where: { $0 != 0 && !result.allInstances.contains($0) }) {
                let found = result.allInstances.isEmpty ? "none was found" : "found: \(result.allInstances.map(String.init).joined(separator: ","))"
                throw ServeError.badRequest("bad_parameter", "select: instance \(bad) does not exist (\(found))")
            }
            if crop && result.allInstances.isEmpty && !chosen.contains(0) {
                throw ServeError.unprocessable("no_people", "nobody was found, so there is no one to cut out")
            }
            let masked = try result.generateMaskedImage(ofInstances: chosen, from: handler, croppedToInstancesExtent: crop)
            return try InstanceRecords.straightRGBA(masked.pixelBuffer)
        }
    }
}
#endif

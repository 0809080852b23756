import Foundation
import PeopleVision
import PVImaging

/// The video greeting: Apple's photo-greeting recipe on every frame, with one segmentation request reused through a
/// `VNSequenceRequestHandler` (the request smooths its mask across frames), written as H.264.
///
/// Three stages overlap: the reader's thread decodes the next frames, the calling thread segments and composites, and
/// the writer's thread encodes the finished ones (two frames may wait between stages). The models leave a core idle
/// part of each frame (the accurate level's pose chain runs on one), which the decoder and the encoder then use.
enum VideoGreeting {
    /// Input extensions read as video.
    static let inputExtensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "webm", "avi"]

    /// Whether `path` names a video (by its extension) rather than an image.
    static func isVideo(_ path: String) -> Bool { inputExtensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased()) }

    /// Greets every frame of `video` into `output`, copies its audio in (as it is), and returns the frame size and
    /// count and what became of the audio. Progress (every second of work) goes to standard error. Nothing is written
    /// unless every frame was greeted. With `tracking`, the accurate mask's people are followed from frame to frame
    /// (`VNSequenceRequestHandler.tracksPeople`); the other levels find no people with the pose models to follow.
    @discardableResult
    static func make(video: URL, backdrop: Greeting.Backdrop, quality: QualityOption, tracking: Bool = false, output: URL) throws
        -> (width: Int, height: Int, frames: Int, audio: VideoWriter.AudioCopy)
    {
        // The reader decodes ahead and the writer encodes behind, each on a thread of its own, two frames each.
        let reader: VideoReader
        do { reader = try VideoReader(url: video, readAhead: 2) } catch let e as ImagingError { throw CommandFailure(e.message) }
        let extent = CGRect(x: 0, y: 0, width: reader.width, height: reader.height)
        let writer = try VideoWriter(
            url: output, width: reader.width, height: reader.height, framesPerSecond: reader.framesPerSecond, encodeBehind: 2)
        // A picture or a colour is the same for every frame: prepared once, as 8-bit pixels.
        let fixed: CIImage?
        switch backdrop {
        case .image, .encoded, .color: fixed = try Greeting.background(backdrop, extent: extent, photo: nil)
        case .blur, .pose: fixed = nil
        }
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = quality.level
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        let sequence = VNSequenceRequestHandler()
        sequence.tracksPeople = tracking
        let context = CIContext()
        let total = reader.announcedFrameCount
        let step = reader.framesPerSecond > 0 ? 1 / reader.framesPerSecond : 1.0 / 30

        func next() throws -> (PixelBuffer, Double)? {
            do { return try reader.nextFrame() } catch let e as ImagingError { throw CommandFailure(e.message) }
        }
        var frames = 0, last = -Double.infinity
        var reported = DispatchTime.now().uptimeNanoseconds
        while let (pixels, time) = try next() {
            let buffer = CVPixelBuffer(pixels)
            try sequence.perform([request], on: buffer)
            guard let maskBuffer = request.results?.first?.pixelBuffer else {
                throw CommandFailure("no mask was produced for frame \(frames + 1)")
            }
            let photo = CIImage(cvPixelBuffer: buffer)
            let mask = CIImage(cvPixelBuffer: maskBuffer)
            let scaledMask = mask.transformed(by: __CGAffineTransformMake(
                extent.width / mask.extent.width, 0, 0, extent.height / mask.extent.height, 0, 0))
            let blend = CIFilter.blendWithRedMask()
            blend.inputImage = photo
            blend.backgroundImage = try fixed ?? Greeting.background(backdrop, extent: extent, photo: photo)
            blend.maskImage = scaledMask
            guard let composite = blend.outputImage else { throw CommandFailure("the blend produced no image") }
            // Frame times must increase: a repeated time (some files have them) moves a frame's length on.
            let seconds = time > last ? time : last + step
            // Opaque frames: no unpremultiply pass.
            let rendered = try context.renderPixels(composite.cropped(to: extent), format: .bgra32, straightAlpha: false)
            try writer.append(rendered, at: seconds)
            last = seconds
            frames += 1
            let now = DispatchTime.now().uptimeNanoseconds
            if now - reported >= 1_000_000_000 {
                reported = now
                let of = total > 0 ? " of about \(total) (\(min(100, 100 * frames / total)) %)" : ""
                FileHandle.standardError.write(Data("greet: \(frames) frames\(of)\n".utf8))
            }
        }
        // On any failure above, the reader and the writer stop their threads as they go, and the writer leaves no file.
        guard frames > 0 else { throw CommandFailure("\(video.path) has no frames") }
        let audio = try writer.finish(copyingAudioFrom: video)
        if case .dropped(let reason) = audio {
            FileHandle.standardError.write(Data("greet: the greeting has no sound: the audio could not be copied (\(reason))\n".utf8))
        }
        return (reader.width, reader.height, frames, audio)
    }
}

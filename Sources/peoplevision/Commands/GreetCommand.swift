import ArgumentParser
import Foundation
import PeopleVision
import PVImaging
import PVThreads

/// `peoplevision greet IMAGE --background …`: the photo greeting — the people of one image over a new background.
struct GreetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "greet",
        abstract: "Put the people of a photo or video in front of a new background (an image, a colour, or the picture blurred).",
        discussion: """
            Built exactly like Apple's sample: a person-segmentation request, then Core Image's blendWithRedMask. \
            A video (.mp4, .m4v, .mov, .mkv, .webm, .avi) is greeted frame by frame with one request reused through a \
            VNSequenceRequestHandler, so the mask is smoothed over time, and written as H.264 (.mp4, .m4v, .mov or \
            .mkv) with the input's frame times and its audio copied as it is; progress goes to standard error. \
            With --tracking (accurate quality), the people are followed from frame to frame instead of detected on \
            every frame.

            With --jsonl, greet many photos in one process (models loaded once, one photo per core): jobs from \
            standard input, one per line (a photo's path, written to --output-dir as NAME.jpg or --format; or \
            {"image": PATH, "out": PATH, "background": …, "id": …}), one JSON line per job on standard output in \
            input order ({"line", "image", "output", "width", "height"}, or {"line", "image", "error"} and the \
            stream goes on).
            """)

    @Argument(help: "The photo or video with people (none with --jsonl).") var image: String?
    @Option(help: "A background image, a colour #RRGGBB, 'blur', or 'pose' (a colour from the head pose; photos only).")
    var background: String
    @Option(name: .shortAndLong, help: "Output image (.jpg, .png, .heic, .webp) or, for a video, .mp4, .m4v, .mov or .mkv.")
    var output: String?
    @Option(help: "fast, balanced or accurate.") var quality: QualityOption = .accurate
    @ArgumentParser.Flag(help: "For a video at accurate quality: follow the people from frame to frame instead of running the pose detector on every frame.")
    var tracking = false
    @ArgumentParser.Flag(help: "Read photos to greet from standard input, one per line; write one JSON line per photo.")
    var jsonl = false
    @Option(help: "With --jsonl: the folder for the greetings of job lines that name no output.")
    var outputDir: String?
    @Option(help: "With --jsonl and --output-dir: the greetings' format (jpg, png, heic or webp).")
    var format = "jpg"

    /// Whether the input is a video (by its extension).
    var isVideo: Bool { image.map(VideoGreeting.isVideo) ?? false }

    func validate() throws {
        if jsonl {
            guard image == nil, output == nil else {
                throw ValidationError("--jsonl reads its photos from standard input: give no photo and no --output")
            }
            guard !tracking else { throw ValidationError("--tracking is for a video") }
            _ = try OutputKind(url: URL(fileURLWithPath: "greeting").appendingPathExtension(format))
        } else {
            guard image != nil else { throw ValidationError("give the photo or video to greet (or --jsonl)") }
            guard output != nil else { throw ValidationError("give the output file with --output") }
            guard outputDir == nil else { throw ValidationError("--output-dir is for --jsonl; give one output with --output") }
        }
        if let problem = Self.colourProblem(background) { throw ValidationError(problem) }
        guard !jsonl, let output else { return }
        if isVideo {
            let ext = URL(fileURLWithPath: output).pathExtension.lowercased()
            guard VideoWriter.fileExtensions.contains(ext) else {
                throw ValidationError("a video greeting is written as .mp4, .m4v, .mov or .mkv, not '.\(ext)'")
            }
            guard background != "pose" else { throw ValidationError("the pose background is for photos; give an image, a colour or blur") }
        } else if tracking {
            throw ValidationError("--tracking is for a video")
        } else {
            _ = try OutputKind(url: URL(fileURLWithPath: output))
        }
    }

    func run() throws {
        if jsonl { return try runJSONLines() }
        guard let image, let output else { throw CommandFailure("give the photo and the output") }
        let backdrop = Self.backdrop(background)
        if isVideo {
            let done = try VideoGreeting.make(
                video: URL(fileURLWithPath: image), backdrop: backdrop, quality: quality, tracking: tracking,
                output: URL(fileURLWithPath: output))
            let sound = done.audio == .copied ? ", sound copied" : ""
            print("\(output): \(done.width)×\(done.height), \(done.frames) frames, \(quality.rawValue) mask\(sound)")
            return
        }
        let size = try Greeting.make(photo: URL(fileURLWithPath: image), backdrop: backdrop, quality: quality,
                                     output: URL(fileURLWithPath: output))
        print("\(output): \(size.width)×\(size.height), \(quality.rawValue) mask")
    }

    /// Why a background that starts with `#` is not a colour, or nil.
    static func colourProblem(_ text: String) -> String? {
        text.hasPrefix("#") && PeopleVisionCLI.parseColor(text) == nil ? "background colour '\(text)' is not #RRGGBB" : nil
    }

    /// The backdrop `--background` (or a job's `background`) names.
    static func backdrop(_ text: String) -> Greeting.Backdrop {
        if text == "blur" { return .blur }
        if text == "pose" { return .pose }
        if let color = PeopleVisionCLI.parseColor(text) { return .color(color) }
        return .image(URL(fileURLWithPath: text))
    }
}

enum PeopleVisionCLI {
    /// `#RRGGBB` → a colour.
    static func parseColor(_ text: String) -> CIColor? {
        guard text.hasPrefix("#"), text.count == 7, let v = UInt32(text.dropFirst(), radix: 16) else { return nil }
        return CIColor(red: CGFloat((v >> 16) & 0xFF) / 255, green: CGFloat((v >> 8) & 0xFF) / 255, blue: CGFloat(v & 0xFF) / 255)
    }
}

/// The photo greeting, as Apple's sample builds it: a person-segmentation request, the mask and the
/// background scaled to the photo's extent, Core Image's `blendWithRedMask`, a `CIContext` write.
enum Greeting {
    enum Backdrop {
        case image(URL)
        /// An image file's bytes (an upload).
        case encoded(Data)
        case color(CIColor)
        case blur
        /// A colour from the head pose of the largest face (``FacePoseColor``).
        case pose

        /// Whether the backdrop is a picture of its own (it needs the photo's size only, not its pixels).
        var isPicture: Bool {
            switch self {
            case .image, .encoded: true
            case .color, .blur, .pose: false
            }
        }
    }

    /// Writes the greeting of `photo` to `output` (format from the extension) and returns its size.
    @discardableResult
    static func make(photo path: URL, backdrop: Backdrop, quality: QualityOption, output: URL) throws -> (width: Int, height: Int) {
        let composite = try composite(info: try? ImageDecoder.info(contentsOf: path), backdrop: backdrop, quality: quality) {
            try loadImage(path.path).image
        }
        try write(composite, to: output)
        return (Int(composite.extent.width), Int(composite.extent.height))
    }

    /// The greeting of the photo `loadPhoto` decodes, whose header `info` describes (nil: unknown), over its extent.
    /// Shared by `greet` and the HTTP service's `/v1/greet`.
    static func composite(info: ImageInfo?, backdrop: Backdrop, quality: QualityOption, loadPhoto: () throws -> CIImage) throws -> CIImage {
        // The backdrop is prepared on another thread and rendered there to 8-bit pixels, so the final blend
        // reads plain pixels instead of resampling. A backdrop image needs only the photo's size, which the
        // file's header gives: it starts while the photo decodes, unless that decode keeps every core busy (a
        // JPEG decoded in bands). Otherwise it starts, as blur and pose (which need the photo's pixels) do, with
        // the segmentation, whose two model branches leave a core idle part of the time.
        var early: BackdropTask?
        if backdrop.isPicture, let info, !info.decodesInBands {
            let size = info.orientedSize
            early = BackdropTask(backdrop, extent: CGRect(x: 0, y: 0, width: size.width, height: size.height), photo: nil)
        }
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = quality.level
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        let photo = try loadPhoto()
        // The header's size is the decoded extent except for files the decoder turns (HEIC): then start over.
        let prepared = early.flatMap { $0.extent == photo.extent ? $0 : nil }
            ?? BackdropTask(backdrop, extent: photo.extent, photo: photo)
        // The photo is decoded once, for Core Image; Vision analyses the same pixels. (Letting Vision read the
        // file itself, decoded smaller for the fast level, beside the full decode was measured slower: 26–31 vs
        // 24–25 ms at 1080p, the two decodes and the two model branches contending for two cores.)
        let segmented = Result { try VNImageRequestHandler(ciImage: photo).perform([request]) }
        let background = try prepared.wait()
        try segmented.get()
        guard let maskBuffer = request.results?.first?.pixelBuffer else { throw CommandFailure("no mask was produced") }
        let mask = CIImage(cvPixelBuffer: maskBuffer)
        let scaledMask = mask.transformed(by: __CGAffineTransformMake(
            photo.extent.width / mask.extent.width, 0, 0, photo.extent.height / mask.extent.height, 0, 0))
        let blend = CIFilter.blendWithRedMask()
        blend.inputImage = photo
        blend.backgroundImage = background
        blend.maskImage = scaledMask
        guard let composite = blend.outputImage else { throw CommandFailure("the blend produced no image") }
        return composite.cropped(to: photo.extent)
    }
}

extension Greeting {
    /// The greeting's background over `extent`, the photo's; `photo` is needed for `.blur` and `.pose` only.
    static func background(_ backdrop: Backdrop, extent: CGRect, photo: CIImage?) throws -> CIImage {
        switch backdrop {
        case .blur, .pose:
            guard let photo else { throw CommandFailure("the \(backdrop) backdrop needs the photo") }
            if case .pose = backdrop { return CIImage(color: try FacePoseColor.color(of: photo)).cropped(to: extent) }
            return photo.clampedToExtent().applyingGaussianBlur(sigma: max(extent.width, extent.height) / 60)
                .cropped(to: extent)
        case .color(let color):
            return CIImage(color: color).cropped(to: extent)
        case .image, .encoded:
            // Stretched by the imaging layer's bilinear resize (edges clamped), several times cheaper than a Core Image
            // render of the transform (which also fades the border into the clear outside). Opaque, so premultiplied.
            let scene: CIImage
            switch backdrop {
            case .image(let file): scene = try loadImage(file.path).image
            case .encoded(let data): scene = try decodedImage(data)
            default: throw CommandFailure("not a picture backdrop")
            }
            let pixels = try CIContext().renderPixels(scene, format: .rgba32)
                .resized(width: Int(extent.width), height: Int(extent.height), method: .bilinear)
            return CIImage(pixels: pixels, premultiplied: true)
        }
    }

    /// ``background(_:extent:photo:)`` computed on another thread as 8-bit pixels (a plain colour stays a constant).
    final class BackdropTask: @unchecked Sendable {
        // Written once by the worker before `done` is signalled, read only after `wait()` returns.
        private var result: Result<CIImage, Error> = .failure(CommandFailure("the backdrop was not prepared"))
        private let done = DispatchSemaphore(value: 0)

        /// The extent the background covers.
        let extent: CGRect

        init(_ backdrop: Backdrop, extent: CGRect, photo: CIImage?) {
            self.extent = extent
            let inputs = UncheckedInputs(backdrop: backdrop, photo: photo)
            DedicatedThread.start(named: "greet-backdrop") { [self] in
                result = Result {
                    let image = try Greeting.background(inputs.backdrop, extent: extent, photo: inputs.photo)
                    switch inputs.backdrop {
                    case .color, .image, .encoded: return image  // a constant, or pixels already
                    case .blur, .pose: break
                    }
                    // Premultiplied, as the renderer works: no unpremultiply pass (the image is opaque anyway).
                    return CIImage(pixels: try CIContext().renderPixels(image, format: .rgba32, straightAlpha: false), premultiplied: true)
                }
                done.signal()
            }
        }

        /// The background, once ready.
        func wait() throws -> CIImage {
            done.wait()
            return try result.get()
        }
    }

    /// The worker's inputs: images are immutable recipes, read-only on both threads.
    private struct UncheckedInputs: @unchecked Sendable {
        let backdrop: Backdrop
        let photo: CIImage?
    }
}

import ArgumentParser
import Foundation
import PVImaging
import PVInference
import PeopleVision

/// `peoplevision bench segmentation`: person segmentation and the photo greeting against MediaPipe's
/// Python selfie segmentation (mediapipe 0.10.21) with OpenCV, same images, same run.
///
/// The options and the measurement; the command itself belongs to the command-line tool, whose own photo and video
/// greetings the benchmark times (``Greetings``).
package struct SegmentationBench: ParsableArguments {
    /// The command's name, abstract and discussion.
    package static let configuration = CommandConfiguration(
        commandName: "segmentation",
        abstract: "Person segmentation per quality level and the 1080p photo greeting: ours vs MediaPipe (Python).",
        discussion: """
            Test images: the installed astronaut.png scaled to 512×512 and 1920×1080 (stretched), saved as \
            JPEG (quality 90) under .build/bench-segmentation; background: rocket.jpg. \
            Segment rows: 'ours ms' is VNImageRequestHandler(cvPixelBuffer:) on a pre-decoded 32BGRA buffer, \
            which is what the ratio compares with MediaPipe's SelfieSegmentation.process() (decode excluded \
            on both sides); 'ours incl. decode' is VNImageRequestHandler(url:), a new handler per call, so \
            the JPEG decode is included. fast is compared with model_selection=1 (landscape), balanced with \
            model_selection=0 (general), accurate with model_selection=1, though ours does more (pose-model \
            masks and a guided-filter refinement at the image's size; fast and balanced also run the pose \
            detector). Matte rows: PVGenerateMattesRequest with every matte (skin, hair, teeth, glasses and the \
            portrait effects matte), against our own accurate mask of the same image, the two timed alternately call \
            by call (no peer makes such mattes). A new request per call (no temporal smoothing). Greeting rows: end to end as \
            'peoplevision greet' does it (decode photo and background, segment, blendWithRedMask, JPEG 0.9 to a \
            file) vs the same in Python (cv2.imread, process, numpy blend, cv2.imencode, file write). The \
            sample-code row runs Apple's photo-greeting sample as Examples/PhotoGreeting has it (Vision reads \
            the photo from its URL; Core Image decodes photo and background again and scales background and mask \
            with transforms) at the accurate level. Both sides are timed in --rounds rounds, which side goes \
            first alternating; each time is the median of its round medians. Video rows (per frame): a 30-frame \
            1080p H.264 clip of the astronaut crossing the frame, greeted over rocket.jpg as 'peoplevision greet \
            VIDEO' does it (FFmpeg decode, a reused segmentation request through VNSequenceRequestHandler, \
            blendWithRedMask, H.264 encode) vs cv2.VideoCapture, process(), numpy blend and cv2.VideoWriter('mp4v') \
            in Python; the median of --video-runs runs after one warm-up.
            """)

    static let sizes = [(width: 512, height: 512), (width: 1920, height: 1080)]

    @Option(help: "Timed runs per measurement.") var iterations = 20
    @Option(help: "Untimed warm-up runs.") var warmup = 3
    @Option(help: "Rounds, alternating which side goes first; each side's time is the median of its round medians.")
    var rounds = 3
    @Flag(help: "Time only ours (no peer, no ratios): for profiling.") var oursOnly = false
    @Flag(help: "Only the greeting rows.") var greetingOnly = false
    @Option(help: "Timed runs of each video greeting (each a whole clip).") var videoRuns = 3
    @Flag(help: SwiftAPICases.flagHelp)
    var swiftAPI = false

    package init() {}

    /// The greetings the benchmark times, as `peoplevision greet` makes them: a photo over a background image
    /// (`photo`, `background`, the segmentation level, `output`), and a video over one (returning the frame count).
    package struct Greetings {
        package var photo: (URL, URL, VNGeneratePersonSegmentationRequest.QualityLevel, URL) throws -> Void
        package var video: (URL, URL, VNGeneratePersonSegmentationRequest.QualityLevel, URL) throws -> Int

        package init(
            photo: @escaping (URL, URL, VNGeneratePersonSegmentationRequest.QualityLevel, URL) throws -> Void,
            video: @escaping (URL, URL, VNGeneratePersonSegmentationRequest.QualityLevel, URL) throws -> Int
        ) {
            (self.photo, self.video) = (photo, video)
        }
    }

    package func validate() throws {
        guard iterations > 0, warmup >= 0, rounds > 0, videoRuns > 0 else {
            throw ValidationError("iterations and rounds must be positive and warm-up non-negative")
        }
    }

    package func run(greetings: Greetings) throws {
        // mediapipe 0.10.21 needs numpy<2; the shared peer-venv pins numpy 2.
        let peer = try Peer(venvName: "peer-venv-mediapipe")
        try peer.prepare(requirements: "requirements-segmentation.txt")

        let dir = peer.root.appendingPathComponent(".build/bench-segmentation"), (files, clip) = try Self.writeInputs(to: dir)
        let background = try ModelStore.default.url(for: "rocket.jpg")

        func peerRound() throws -> [String: Double] {
            log("peer: MediaPipe selfie segmentation, \(warmup) + \(iterations) runs per measurement")
            let records = try peer.records(
                "segmentation_bench.py",
                ["--images"] + files.map(\.path) + [
                    "--iterations", "\(iterations)", "--warmup", "\(warmup)", "--background", background.path,
                    "--out", dir.path, "--video", clip.path, "--video-runs", "\(videoRuns)",
                ])
            return Self.medians(records)
        }
        let levels: [(Quality, String)] = [(.fast, "segment_ms1"), (.balanced, "segment_ms0"), (.accurate, "segment_ms1")]
        let greeted = [Quality.fast, .accurate]
        var oursRoundCount = 0
        func oursRound() throws -> [String: Double] {
            var ours: [String: Double] = [:]
            oursRoundCount += 1
            for (size, file) in zip(Self.sizes, files) where !greetingOnly {
                try ours.merge(
                    segmentationTimes(size: size, file: file, levels: levels.map(\.0), swiftFirst: oursRoundCount % 2 == 1)) { $1 }
            }
            try ours.merge(greetingTimes(greetings, photo: files[1], clip: clip, background: background, in: dir, levels: greeted)) { $1 }
            return ours
        }
        let (peerRounds, oursRounds) = try alternatingRounds(rounds, peer: oursOnly ? nil : peerRound, ours: oursRound)
        func ours(_ key: String) -> Double { medianOverRounds(oursRounds, key) ?? .nan }
        func theirs(_ op: String, _ size: (width: Int, height: Int)) throws -> Double {
            if oursOnly { return .nan }
            guard let ms = medianOverRounds(peerRounds, "\(op) \(size.width)x\(size.height)") else {
                throw BenchError("the peer did not report \(op) at \(size.width)×\(size.height)")
            }
            return ms
        }

        var rows: [[String]] = [], ratios: [Double] = []
        /// One row: ours (timed on a decoded buffer), what else ours includes or took from a file, the peer.
        func row(_ name: String, _ ms: Double, _ second: String, _ peerName: String, _ peerMs: Double, swiftKey: String = "") {
            rows.append(
                [name, String(format: "%.1f", ms), second, peerName, String(format: "%.1f", peerMs)]
                    + (swiftAPI ? SwiftAPICases.columns(oursRounds, key: swiftKey) : []))
            ratios.append(ms / peerMs)
        }
        for size in Self.sizes where !greetingOnly {
            let label = size.width == size.height ? "\(size.width)²" : "\(size.height)p"
            for (quality, op) in levels {
                let fromBuffer = ours("\(quality.rawValue) \(size.width)x\(size.height) buffer")
                let fromFile = ours("\(quality.rawValue) \(size.width)x\(size.height) file")
                let peerOp = op == "segment_ms0" ? "process() model_selection=0" : "process() model_selection=1"
                row("segment \(quality.rawValue) \(label)", fromBuffer, String(format: "%.1f", fromFile),
                    peerOp + (quality == .accurate ? " (ours does more)" : ""), try theirs(op, size),
                    swiftKey: "\(quality.rawValue) \(size.width)x\(size.height) buffer")
            }
            // Measured against our own accurate mask of the same run: no peer makes these mattes.
            row("mattes \(label) (skin, hair, teeth, glasses, portrait)", ours("mattes \(size.width)x\(size.height) buffer"),
                String(format: "%.1f", ours("mattes \(size.width)x\(size.height) file")),
                "ours: segment accurate \(label), timed alternately with the mattes",
                ours("mattes' accurate \(size.width)x\(size.height) buffer"))
        }

        let peerGreeting = try theirs("greeting", Self.sizes[1]), peerVideo = try theirs("video_greeting", Self.sizes[1])
        for quality in greeted {
            row("greeting 1080p (\(quality.rawValue))", ours("greeting \(quality.rawValue)"), "(included)",
                "imread → process() model_selection=1 → numpy blend → imencode q90", peerGreeting)
        }
        row("greeting 1080p (Apple's sample code, accurate)", ours("greeting sample"), "(included)", "as above", peerGreeting)
        for quality in greeted {
            row("video greeting 1080p (\(quality.rawValue)), per frame", ours("video \(quality.rawValue)"),
                "(included: H.264 decode and encode)",
                "VideoCapture → process() model_selection=1 → numpy blend → VideoWriter mp4v", peerVideo)
        }
        printRatioTable(
            header: ["case", "ours ms (decoded CVPixelBuffer)", "ours ms incl. JPEG decode (handler from URL)", "peer (MediaPipe 0.10.21)", "peer ms"]
                + (swiftAPI ? SwiftAPICases.header : []),
            rows: rows, ratios: ratios)
    }

    /// Our greeting times at 1080p: the photo and the video greeting per level, then Apple's sample code.
    func greetingTimes(
        _ greetings: Greetings, photo: URL, clip: URL, background: URL, in dir: URL, levels greeted: [Quality]
    ) throws -> [String: Double] {
        var ours: [String: Double] = [:]
        for quality in greeted {
            log("ours: greeting 1080p (\(quality.rawValue))")
            let output = dir.appendingPathComponent("greeting-ours-\(quality.rawValue).jpg")
            ours["greeting \(quality.rawValue)"] = median(try measure(warmup: warmup, iterations: iterations) {
                try greetings.photo(photo, background, quality.level, output)
            })
        }
        for quality in greeted {
            log("ours: video greeting 1080p (\(quality.rawValue))")
            let output = dir.appendingPathComponent("video-greeting-ours-\(quality.rawValue).mp4")
            var perFrame: [Double] = []
            for run in 0...videoRuns {  // the first run warms up
                let start = DispatchTime.now().uptimeNanoseconds
                let frames = try greetings.video(clip, background, quality.level, output)
                if run > 0 { perFrame.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(frames)) }
            }
            ours["video \(quality.rawValue)"] = median(perFrame)
        }
        log("ours: greeting 1080p (Apple's sample code)")
        ours["greeting sample"] = median(try measure(warmup: warmup, iterations: iterations) {
            try Self.sampleGreeting(photo: photo, background: background, output: dir.appendingPathComponent("greeting-ours-sample.jpg"))
        })
        return ours
    }

    /// Our segmentation times at one size, per level, from a decoded buffer (and with ``swiftAPI`` through the
    /// Swift-only API, `swiftFirst` deciding the order) and from the file, then every matte.
    func segmentationTimes(
        size: (width: Int, height: Int), file: URL, levels: [Quality], swiftFirst: Bool
    ) throws -> [String: Double] {
        var ours: [String: Double] = [:]
        log("ours: segmentation at \(size.width)×\(size.height)")
        let buffer = try Self.decodedBuffer(file), label = "\(size.width)x\(size.height)"
        for quality in levels {
            try ours.merge(
                SwiftAPICases.time(
                    "\(quality.rawValue) \(label) buffer", buffer: buffer, warmup: warmup, iterations: iterations,
                    swiftFirst: swiftFirst, swift: swiftAPI ? SwiftAPICases.segmentation[quality.rawValue] : nil,
                    vn: {
                        try Self.segment(VNImageRequestHandler(cvPixelBuffer: $0), quality)
                        return 1
                    }),
                uniquingKeysWith: { $1 })
            ours["\(quality.rawValue) \(label) file"] = median(try measure(warmup: warmup, iterations: iterations) {
                try Self.segment(VNImageRequestHandler(url: file), quality)
            })
        }
        // The mattes' row compares with the accurate mask timed in the same loop, the two alternating call by call,
        // so that the machine's drift between loops does not enter the ratio.
        log("ours: every matte at \(size.width)×\(size.height), alternating with the accurate mask")
        var matteTimes: [Double] = [], maskTimes: [Double] = []
        for i in 0..<(warmup + iterations) {
            for matteFirst in i % 2 == 0 ? [true, false] : [false, true] {
                let start = DispatchTime.now().uptimeNanoseconds
                if matteFirst {
                    try Self.mattes(VNImageRequestHandler(cvPixelBuffer: buffer))
                } else {
                    try Self.segment(VNImageRequestHandler(cvPixelBuffer: buffer), .accurate)
                }
                let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                if i >= warmup {
                    if matteFirst { matteTimes.append(ms) } else { maskTimes.append(ms) }
                }
            }
        }
        ours["mattes \(label) buffer"] = median(matteTimes)
        ours["mattes' accurate \(label) buffer"] = median(maskTimes)
        ours["mattes \(label) file"] = median(try measure(warmup: warmup, iterations: iterations) {
            try Self.mattes(VNImageRequestHandler(url: file))
        })
        return ours
    }

    /// The peer's medians by "op W×H".
    static func medians(_ records: [[String: Any]]) -> [String: Double] {
        var peerMs: [String: Double] = [:]
        for obj in records {
            guard let op = obj["op"] as? String, let w = obj["width"] as? Int, let h = obj["height"] as? Int,
                let ms = obj["median_ms"] as? Double
            else { continue }
            peerMs["\(op) \(w)x\(h)"] = ms
        }
        return peerMs
    }

    /// Writes the bench's inputs into `dir`: the astronaut as a JPEG at each of ``sizes``, and a 1080p clip of her.
    static func writeInputs(to dir: URL) throws -> (files: [URL], clip: URL) {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        log("writing the test images to \(dir.path)")
        let astronaut = try ImageDecoder.decode(contentsOf: ModelStore.default.url(for: "astronaut.png")).pixels
        var files: [URL] = []
        for size in sizes {
            let pixels = astronaut.width == size.width && astronaut.height == size.height
                ? astronaut : try astronaut.resized(width: size.width, height: size.height, method: .bilinear)
            let file = dir.appendingPathComponent("astronaut-\(size.width)x\(size.height).jpg")
            try ImageEncoder.encode(pixels, as: .jpeg(quality: 90)).write(to: file, options: .atomic)
            files.append(file)
        }
        let clip = dir.appendingPathComponent("astronaut-1080p.mp4")
        try writeClip(astronaut, to: clip)
        return (files, clip)
    }

    /// A 30-frame 1080p H.264 clip at 30 fps: the astronaut (800×800) crossing a dark frame, 20 px a frame.
    static func writeClip(_ astronaut: PixelBuffer, to url: URL) throws {
        let person = try astronaut.converted(to: .rgba32).resized(width: 800, height: 800, method: .bilinear)
        let writer = try VideoWriter(url: url, width: 1920, height: 1080, framesPerSecond: 30)
        for k in 0..<30 {
            try writer.append(try person.pasted(onto: 1920, 1080, at: [(100 + 20 * k, 200)], fill: 30), at: Double(k) / 30)
        }
        try writer.finish()
    }

    /// One person-segmentation request, new each call so no temporal smoothing carries over.
    static func segment(_ handler: VNImageRequestHandler, _ quality: Quality) throws {
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = quality.level
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        try handler.perform([request])
        guard request.results?.first?.pixelBuffer != nil else { throw BenchError("no mask was produced") }
    }

    /// Every matte `PVGenerateMattesRequest` makes, on a new request each call.
    static func mattes(_ handler: VNImageRequestHandler) throws {
        let request = PVGenerateMattesRequest()
        try handler.perform([request])
        guard request.results?.count == 5 else { throw BenchError("the mattes request did not make five mattes") }
    }

    /// The file decoded once into a 32BGRA buffer, as an app holding camera frames would have it.
    static func decodedBuffer(_ file: URL) throws -> CVPixelBuffer {
        guard let image = CIImage(contentsOf: file) else { throw BenchError("cannot decode \(file.path)") }
        var buffer: CVPixelBuffer?
        let status = CVPixelBufferCreate(
            nil, Int(image.extent.width), Int(image.extent.height), kCVPixelFormatType_32BGRA, nil, &buffer)
        guard status == kCVReturnSuccess, let buffer else { throw BenchError("CVPixelBufferCreate failed: \(status)") }
        CIContext().render(image, to: buffer)
        return buffer
    }

    /// Apple's photo-greeting sample, step by step as `Examples/PhotoGreeting` writes it: a request performed on the
    /// photo's URL, photo and background opened again as `CIImage`s, mask and background scaled to the photo with
    /// affine transforms, `blendWithRedMask`, `writeJPEGRepresentation`.
    static func sampleGreeting(photo: URL, background: URL, output: URL) throws {
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .accurate
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        try VNImageRequestHandler(url: photo, options: [:]).perform([request])
        guard let maskBuffer = request.results?.first?.pixelBuffer, let original = CIImage(contentsOf: photo),
            let backdrop = CIImage(contentsOf: background)
        else { throw BenchError("the sample greeting found no mask or could not open its images") }
        let mask = CIImage(cvPixelBuffer: maskBuffer)
        let blend = CIFilter.blendWithRedMask()
        blend.inputImage = original
        blend.backgroundImage = backdrop.transformed(by: __CGAffineTransformMake(
            original.extent.width / backdrop.extent.width, 0, 0, original.extent.height / backdrop.extent.height, 0, 0))
        blend.maskImage = mask.transformed(by: __CGAffineTransformMake(
            original.extent.width / mask.extent.width, 0, 0, original.extent.height / mask.extent.height, 0, 0))
        guard let composite = blend.outputImage, let srgb = CGColorSpace(name: CGColorSpace.sRGB) else {
            throw BenchError("the sample greeting's blend produced no image")
        }
        try CIContext().writeJPEGRepresentation(of: composite, to: output, colorSpace: srgb)
    }

    /// A segmentation level, named as `--quality` names it.
    enum Quality: String, CaseIterable {
        // In the order of Vision's raw values (accurate 0, balanced 1, fast 2).
        case accurate, balanced, fast

        var level: VNGeneratePersonSegmentationRequest.QualityLevel {
            .init(rawValue: UInt(Self.allCases.firstIndex(of: self)!))!
        }
    }
}

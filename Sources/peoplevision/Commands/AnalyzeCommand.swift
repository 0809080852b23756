import ArgumentParser
import Foundation
import PeopleVision
import PVImaging

/// `peoplevision analyze IMAGE…`: every requested analysis in one pass per image, as JSON (normalized
/// coordinates, lower-left origin, Vision's names) plus mask PNGs.
struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Run the requested analyses on images and write JSON (and mask PNGs).",
        discussion: """
            Output follows the evaluation harness's prediction format: one JSON per image with normalized \
            coordinates (lower-left origin) and Vision's names, masks as 8-bit PNGs beside it. \
            With --manifest, read JSON lines {"image": PATH, "out": JSON_PATH, "intrinsics": [FX, FY, CX, CY]} \
            ("intrinsics" optional) instead of image arguments. \
            With --jsonl, read jobs from standard input, one per line (a path, or {"image": PATH, "requests": [NAME…], \
            "out": JSON_PATH, "intrinsics": [FX, FY, CX, CY], "id": ANY}), and write one JSON line per job to standard output, in input order, as soon \
            as it is ready: the record with its "line" number, or {"line", "image", "error"} for a job that failed. \
            With --jsonl and one video (.mp4, .m4v, .mov, .mkv, .webm, .avi) instead, write one JSON line per frame as \
            it is analysed: the record with "frame" (from 0), "time" (seconds) and the time as a CMTime ("time_value" \
            over "time_timescale"); the frames are one sequence (landmarks and masks smoothed over time), and with \
            --tracking the people are followed from frame to frame instead of detected on every frame.
            """)

    /// The analyses `analyze` can run, in the order they run.
    enum Analysis: String, CaseIterable, ExpressibleByArgument {
        case segmentation
        case instances
        case faces
        case bodies
        case bodies3d
        case hands

        /// The evaluation harness's task this analysis fills.
        var harnessTask: String {
            switch self {
            case .segmentation: "segmentation"
            case .instances: "instances"
            case .faces: "faces"
            case .bodies: "bodies"
            case .bodies3d: "bodies3d"
            case .hands: "hands"
            }
        }

        /// The analyses `names` name (spaces around a name ignored).
        /// - Throws: ``Unknown`` for the first name that is none.
        static func parse(_ names: [some StringProtocol]) throws(Unknown) -> [Analysis] {
            try names.map { name throws(Unknown) in
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                guard let a = Analysis(rawValue: trimmed) else { throw Unknown(name: trimmed) }
                return a
            }
        }

        /// A name that is no analysis.
        struct Unknown: Error {
            let name: String
            var message: String { "unknown analysis '\(name)'; available: \(Analysis.allCases.map(\.rawValue).joined(separator: ", "))" }
        }

        /// A fresh step for one image.
        func makeStep(quality: QualityOption) -> any AnalyzeStep {
            switch self {
            case .segmentation: SegmentationStep(quality: quality)
            case .instances: InstancesStep()
            case .faces: FacesStep()
            case .bodies: BodiesStep()
            case .bodies3d: Bodies3DStep()
            case .hands: HandsStep()
            }
        }
    }

    @Argument(help: "Images to analyse, or one video with --jsonl.") var images: [String] = []
    @Option(help: "Comma-separated analyses: \(Analysis.allCases.map(\.rawValue).joined(separator: ",")).")
    var requests: String = Analysis.allCases.map(\.rawValue).joined(separator: ",")
    @Option(help: "Folder for the JSON files, or - for standard output (one JSON per line).") var json: String?
    @Option(help: "JSON-lines manifest of {\"image\", \"out\"} pairs.") var manifest: String?
    @Option(help: "Folder for overlay pictures (the image with every result drawn on it), one PNG per image.") var overlay: String?
    @Option(help: "Camera intrinsics fx,fy,cx,cy in pixels of the image as analysed, for the 3-D body pose (default: from the file's EXIF focal length).")
    var intrinsics: String?
    @Option(help: "Person-segmentation level: fast, balanced or accurate.") var quality: QualityOption = .accurate
    @Flag(help: "Ignore EXIF orientation (analyse the pixels as stored).") var ignoreOrientation = false
    @Flag(help: "Read jobs from standard input, one per line; write one JSON line per job, in order, as each is ready.")
    var jsonl = false
    @Flag(help: "Print each analysis and the evaluation task it fills as one JSON object, then exit.") var printTasks = false
    @Flag(help: "With a video: follow the people from frame to frame instead of running the pose detector on every frame.")
    var tracking = false
    /// After a video, one JSON line on standard error with the model runs per model (for tests).
    @Flag(help: .hidden) var countModelRuns = false

    /// The video `--jsonl` analyses frame by frame, if one is given.
    var video: String? { jsonl && images.count == 1 && VideoGreeting.isVideo(images[0]) ? images[0] : nil }

    var analyses: [Analysis] {
        get throws {
            do {
                return try Analysis.parse(requests.split(separator: ","))
            } catch {
                throw ValidationError(error.message)
            }
        }
    }

    func validate() throws {
        _ = try analyses
        if let intrinsics {
            do {
                _ = try IntrinsicsInput.parse(intrinsics)
            } catch let failure as CommandFailure {
                throw ValidationError(failure.message)
            }
            guard video == nil else { throw ValidationError("--intrinsics is for images") }
        }
        if video != nil {
            guard manifest == nil, overlay == nil, json == nil else {
                throw ValidationError("a video's lines go to standard output: give no --manifest, --overlay or --json")
            }
        } else if jsonl, manifest != nil || !images.isEmpty {
            throw ValidationError(
                "--jsonl reads its jobs from standard input (give no images and no --manifest), or analyses one video "
                    + "(.\(VideoGreeting.inputExtensions.sorted().joined(separator: ", .")))")
        } else if let first = images.first(where: VideoGreeting.isVideo) {
            throw ValidationError("\(first) is a video: analyse it frame by frame with --jsonl")
        }
        if tracking || countModelRuns, video == nil { throw ValidationError("--tracking is for a video analysed with --jsonl") }
        guard printTasks || jsonl || manifest != nil || !images.isEmpty else {
            throw ValidationError("give images, --manifest or --jsonl")
        }
    }

    func run() throws {
        if printTasks {
            let tasks = Dictionary(uniqueKeysWithValues: Analysis.allCases.map { ($0.rawValue, $0.harnessTask) })
            let data = try JSONSerialization.data(withJSONObject: tasks, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        if let video { return try runVideo(video) }
        if jsonl { return try runJSONLines() }
        let given = try intrinsics.map(IntrinsicsInput.parse)
        var jobs: [(image: URL, out: URL?, intrinsics: matrix_float3x3?)] = []
        if let manifest {
            let url = URL(fileURLWithPath: manifest)
            if let reason = ImageDecoder.unreadableReason(url) { throw CommandFailure("cannot read the manifest \(manifest): \(reason)") }
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw CommandFailure("the manifest \(manifest) is not UTF-8 text")
            }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
                guard let obj = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                    let image = obj["image"] as? String, let out = obj["out"] as? String
                else {
                    throw CommandFailure(
                        "manifest line \(number + 1) is not a JSON object with string fields \"image\" and \"out\": \(line.prefix(200))")
                }
                let k = try IntrinsicsInput.of(obj, else: given, at: "manifest line \(number + 1)")
                jobs.append((URL(fileURLWithPath: image), URL(fileURLWithPath: out), k))
            }
        } else {
            for path in images {
                let url = URL(fileURLWithPath: path)
                let out = json.flatMap { $0 == "-" ? nil : URL(fileURLWithPath: $0).appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".json") }
                jobs.append((url, out, given))
            }
        }
        let selected = try analyses
        var failures = 0
        for (k, job) in jobs.enumerated() {
            FileHandle.standardError.write(Data("analyze: [\(k + 1)/\(jobs.count)] \(job.image.lastPathComponent)\n".utf8))
            do {
                let record = try analyze(job.image, selected, out: job.out, intrinsics: job.intrinsics)
                let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
                if let out = job.out {
                    try Self.write(data, to: out)
                } else if json == "-" || json == nil {
                    print(String(decoding: data, as: UTF8.self))
                }
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("analyze: \(job.image.path): \(errorMessage(error))\n".utf8))
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// Writes an image's JSON record to `out` (its folder made first), replacing the file whole.
    static func write(_ record: Data, to out: URL) throws {
        try FileManager.default.createDirectory(at: out.deletingLastPathComponent(), withIntermediateDirectories: true)
        try writeAtomically(record, to: out)
    }

    /// Runs the analyses on one image and returns its prediction record.
    /// - Parameter intrinsics: The camera's, as `VNImageOption.cameraIntrinsics`, if known.
    func analyze(_ url: URL, _ selected: [Analysis], out: URL?, intrinsics: matrix_float3x3?) throws -> [String: Any] {
        let options: [VNImageOption: Any] = intrinsics.map { [.cameraIntrinsics: $0] } ?? [:]
        let handler =
            ignoreOrientation
            ? VNImageRequestHandler(url: url, orientation: .up, options: options) : VNImageRequestHandler(url: url, options: options)
        let steps = Analysis.allCases.filter(selected.contains).map { $0.makeStep(quality: quality) }
        let (record, context) = try Self.record(of: handler, named: url.lastPathComponent, steps: steps, jsonURL: out)
        if let overlay {
            var canvas = try Canvas(try handler.uprightImage())
            for step in steps { try step.draw(on: &canvas, context: context) }
            let dir = URL(fileURLWithPath: overlay)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try ImageEncoder.write(canvas.picture, to: dir.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".png"), as: .png)
        }
        return record
    }

    /// The prediction record of the image `handler` reads: `steps` performed in order, then written. The one record
    /// writer of `analyze`, `analyze --jsonl` and the HTTP service's `/v1/analyze`.
    ///
    /// - Parameters:
    ///   - name: The record's `image`.
    ///   - jsonURL: Where the record goes, if to a file (mask PNGs go beside it); with none, masks are inlined as
    ///     `data:` URLs when `inlineMasks`, else named by a placeholder.
    ///   - beforeEachStep: Runs before each step (the service's cancellation check between models).
    static func record(
        of handler: VNImageRequestHandler, named name: String, steps: [any AnalyzeStep], jsonURL: URL?, inlineMasks: Bool = false,
        beforeEachStep: () throws -> Void = {}
    ) throws -> (record: [String: Any], context: AnalyzeContext) {
        let start = DispatchTime.now().uptimeNanoseconds
        for step in steps {
            try beforeEachStep()
            try step.perform(on: handler)
        }
        let size = try handler.imageSize()
        let context = AnalyzeContext(imageWidth: size.width, imageHeight: size.height, jsonURL: jsonURL, inlineMasks: inlineMasks)
        var record: [String: Any] = ["image": name, "width": size.width, "height": size.height]
        for step in steps { try step.write(into: &record, context: context) }
        record["elapsed_ms"] = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        return (record, context)
    }
}

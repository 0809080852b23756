import Foundation
import PeopleVision

/// `greet --jsonl`: many photos greeted in one process, for pipe-based engines (Spark's `RDD.pipe`, Ray Data, a shell
/// loop) and folders. A job line is a photo's path (its greeting goes to `--output-dir`, named after the photo, in
/// `--format`), or a JSON object `{"image": PATH, "out": PATH, "background": …, "id": ANY}` (`out` defaults as for a
/// path; `background` to `--background`; `id` is echoed). The result line is `{"line", "image", "output", "width",
/// "height"}`, or `{"line", "image", "error"}`, in input order.
extension GreetCommand {
    /// One photo to greet.
    struct GreetJob: @unchecked Sendable {  // `id` is a JSON value (strings, numbers, arrays, dictionaries): immutable
        let line: Int
        let image: String
        let output: URL
        let background: String
        let id: Any?
    }

    /// Reads jobs until the end of standard input and writes their results in order.
    func runJSONLines() throws {
        if let outputDir { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) }
        let command = self
        try JSONLines.run(named: "greet-jsonl", parse: { try command.job($0, line: $1) }, line: { $0.line },
                          result: { command.resultLine(for: $0) })
    }

    /// A job line parsed.
    func job(_ text: String, line: Int) throws -> GreetJob {
        guard text.hasPrefix("{") else {
            return GreetJob(line: line, image: text, output: try defaultOutput(for: text, line: line),
                            background: background, id: nil)
        }
        let object = try JSONLines.object(text, line: line)
        guard let image = object["image"] as? String, !image.isEmpty else {
            throw CommandFailure("line \(line) has no string \"image\"")
        }
        var output: URL
        if let path = object["out"] {
            guard let path = path as? String, !path.isEmpty else { throw CommandFailure("line \(line): \"out\" must be a path") }
            output = URL(fileURLWithPath: path)
            do {
                _ = try OutputKind(url: output)
            } catch {
                throw CommandFailure("line \(line): \(errorMessage(error))")
            }
        } else {
            output = try defaultOutput(for: image, line: line)
        }
        var backdrop = background
        if let value = object["background"] {
            guard let text = value as? String, !text.isEmpty else {
                throw CommandFailure("line \(line): \"background\" must be an image path, #RRGGBB, blur or pose")
            }
            if let problem = Self.colourProblem(text) { throw CommandFailure("line \(line): \(problem)") }
            backdrop = text
        }
        return GreetJob(line: line, image: image, output: output, background: backdrop, id: object["id"])
    }

    /// `--output-dir/NAME.FORMAT` for the photo at `path`.
    private func defaultOutput(for path: String, line: Int) throws -> URL {
        guard let outputDir else { throw CommandFailure("line \(line) names no \"out\" and --output-dir is not given") }
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return URL(fileURLWithPath: outputDir).appendingPathComponent(name).appendingPathExtension(format)
    }

    /// The result line of `job`: where its greeting went, or an error line.
    func resultLine(for job: GreetJob) -> String {
        do {
            if VideoGreeting.isVideo(job.image) {
                throw CommandFailure("\(job.image) is a video: greet it on its own, without --jsonl")
            }
            let size = try Greeting.make(photo: URL(fileURLWithPath: job.image), backdrop: Self.backdrop(job.background),
                                         quality: quality, output: job.output)
            var record: [String: Any] = [
                "line": job.line, "image": job.image, "output": job.output.path, "width": size.width, "height": size.height,
            ]
            if let id = job.id { record["id"] = id }
            return JSONLines.encode(record)
        } catch {
            return JSONLines.errorLine(line: job.line, image: job.image, message: errorMessage(error), id: job.id)
        }
    }
}

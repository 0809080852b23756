import Foundation
import PVCore
import PeopleVision

/// `analyze --jsonl`: jobs from standard input, one per line, results on standard output, one JSON line per job in
/// input order, written as soon as every earlier job's is (so results stream out while input still arrives). The
/// protocol of pipe-based engines: Spark's `RDD.pipe`, Ray Data, Dask, a shell loop.
///
/// A job line is a path, or a JSON object `{"image": PATH, "requests": [NAME…] or "a,b", "out": JSON_PATH,
/// "intrinsics": [FX, FY, CX, CY], "id": ANY}` (`requests` defaults to `--requests`; `intrinsics`, the camera's, to
/// `--intrinsics`; with `out`, the record and its mask PNGs are also written there; `id` is
/// echoed). The result line is the record `analyze` writes for the image, with `"line"` (the job's line number, from
/// 1) and `id`; a job that fails gives `{"line", "image", "error"}` and the stream goes on. Models load once; jobs run
/// on every core, one image per core.
extension AnalyzeCommand {
    /// One job read from standard input.
    struct BatchJob: @unchecked Sendable {  // `id` is a JSON value (strings, numbers, arrays, dictionaries): immutable
        let line: Int
        let image: String
        let out: URL?
        let analyses: [Analysis]
        let intrinsics: matrix_float3x3?
        let id: Any?
    }

    /// Reads jobs until the end of standard input and writes their results in order.
    func runJSONLines() throws {
        let defaults = try analyses, intrinsics = try intrinsics.map(IntrinsicsInput.parse)
        let command = self
        try JSONLines.run(named: "analyze-jsonl", parse: { try Self.job($0, line: $1, defaults: defaults, intrinsics: intrinsics) },
                          line: { $0.line }, result: { command.resultLine(for: $0) })
    }

    /// A job line parsed.
    static func job(_ text: String, line: Int, defaults: [Analysis], intrinsics: matrix_float3x3? = nil) throws -> BatchJob {
        guard text.hasPrefix("{") else {
            return BatchJob(line: line, image: text, out: nil, analyses: defaults, intrinsics: intrinsics, id: nil)
        }
        let object = try JSONLines.object(text, line: line)
        guard let image = object["image"] as? String, !image.isEmpty else {
            throw CommandFailure("line \(line) has no string \"image\"")
        }
        var selected = defaults
        if let requests = object["requests"] {
            let names: [String]
            if let list = requests as? [String] {
                names = list
            } else if let joined = requests as? String {
                names = joined.split(separator: ",").map(String.init)
            } else {
                throw CommandFailure("line \(line): \"requests\" must be a list of names or a comma-separated string")
            }
            do {
                selected = try Analysis.parse(names)
            } catch {
                throw CommandFailure("line \(line): \(error.message)")
            }
        }
        var out: URL?
        if let path = object["out"] {
            guard let path = path as? String, !path.isEmpty else { throw CommandFailure("line \(line): \"out\" must be a path") }
            out = URL(fileURLWithPath: path)
        }
        let k = try IntrinsicsInput.of(object, else: intrinsics, at: "line \(line)")
        return BatchJob(line: line, image: image, out: out, analyses: selected, intrinsics: k, id: object["id"])
    }

    /// The result line of `job`: its record, or an error line.
    func resultLine(for job: BatchJob) -> String {
        let url = URL(fileURLWithPath: job.image)
        do {
            var record = try analyze(url, job.analyses, out: job.out, intrinsics: job.intrinsics)
            if let out = job.out { try Self.write(try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), to: out) }
            record["line"] = job.line
            if let id = job.id { record["id"] = id }
            return String(decoding: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self)
        } catch {
            return JSONLines.errorLine(line: job.line, image: job.image, message: errorMessage(error), id: job.id)
        }
    }
}

import Foundation
import PVCore
import PVThreads

/// `analyze --jsonl`: jobs from standard input, one per line, results on standard output, one JSON line per job in
/// input order, written as soon as every earlier job's is (so results stream out while input still arrives). The
/// protocol of pipe-based engines: Spark's `RDD.pipe`, Ray Data, Dask, a shell loop.
///
/// A job line is a path, or a JSON object `{"image": PATH, "requests": [NAME…] or "a,b", "out": JSON_PATH, "id": ANY}`
/// (`requests` defaults to `--requests`; with `out`, the record and its mask PNGs are also written there; `id` is
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
        let id: Any?
    }

    /// The result lines waiting for an earlier one, and the next line number to write.
    final class OrderedOutput: Sendable {
        private let state = Locked<(next: Int, waiting: [Int: String])>((1, [:]))

        /// Writes `text` for job `line` once every earlier job's text is written (lines without a job count as
        /// written: ``skip(_:)``).
        func put(_ text: String?, line: Int) {
            state.withLock { s in
                s.waiting[line] = text ?? ""
                while let ready = s.waiting.removeValue(forKey: s.next) {
                    if !ready.isEmpty {
                        FileHandle.standardOutput.write(Data((ready + "\n").utf8))
                    }
                    s.next += 1
                }
            }
        }

        /// A line that holds no job (empty).
        func skip(_ line: Int) { put(nil, line: line) }
    }

    /// Reads jobs until the end of standard input and writes their results in order.
    func runJSONLines() throws {
        let defaults = try analyses
        let workers = max(1, CPUBudget.available)
        let jobs = Handoff<BatchJob>(capacity: 2 * workers)
        let finished = Handoff<Bool>(capacity: workers)
        let output = OrderedOutput()
        let command = self
        for k in 0..<workers {
            DedicatedThread.start(named: "analyze-jsonl-\(k)") {
                while let job = try? jobs.take() {
                    output.put(command.resultLine(for: job), line: job.line)
                }
                _ = finished.put(true)
            }
        }
        var number = 0
        while let text = readLine(strippingNewline: true) {
            number += 1
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                output.skip(number)
                continue
            }
            do {
                _ = jobs.put(try Self.job(trimmed, line: number, defaults: defaults))
            } catch {
                output.put(Self.errorLine(line: number, image: nil, message: errorMessage(error)), line: number)
            }
        }
        jobs.close(nil)
        for _ in 0..<workers { _ = try finished.take() }
    }

    /// A job line parsed.
    static func job(_ text: String, line: Int, defaults: [Analysis]) throws -> BatchJob {
        guard text.hasPrefix("{") else { return BatchJob(line: line, image: text, out: nil, analyses: defaults, id: nil) }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw CommandFailure("line \(line) starts with { but is not a JSON object")
        }
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
        return BatchJob(line: line, image: image, out: out, analyses: selected, id: object["id"])
    }

    /// The result line of `job`: its record, or an error line.
    func resultLine(for job: BatchJob) -> String {
        let url = URL(fileURLWithPath: job.image)
        do {
            var record = try analyze(url, job.analyses, out: job.out)
            if let out = job.out { try Self.write(try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), to: out) }
            record["line"] = job.line
            if let id = job.id { record["id"] = id }
            return String(decoding: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self)
        } catch {
            return Self.errorLine(line: job.line, image: job.image, message: errorMessage(error), id: job.id)
        }
    }

    /// `{"line": N, "image": PATH, "error": MESSAGE}` (with `id` when the job had one).
    static func errorLine(line: Int, image: String?, message: String, id: Any? = nil) -> String {
        var object: [String: Any] = ["line": line, "error": message]
        if let image { object["image"] = image }
        if let id { object["id"] = id }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

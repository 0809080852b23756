import Foundation
import PVCore
import PVThreads

/// Result lines of the `--jsonl` modes, written to standard output in the order of their jobs.
final class OrderedLines: Sendable {
    private let state = Locked<(next: Int, waiting: [Int: String])>((1, [:]))

    /// Writes `text` for job `line` once every earlier job's text is written (lines without a job count as written:
    /// ``skip(_:)``).
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

enum JSONLines {
    /// `{"line": N, "image": PATH, "error": MESSAGE}` (with `id` when the job had one).
    static func errorLine(line: Int, image: String?, message: String, id: Any? = nil) -> String {
        var object: [String: Any] = ["line": line, "error": message]
        if let image { object["image"] = image }
        if let id { object["id"] = id }
        return encode(object)
    }

    /// A JSON object on one line, keys sorted.
    static func encode(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The JSON object of a job line that starts with `{`, or why it is not one.
    static func object(_ text: String, line: Int) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw CommandFailure("line \(line) starts with { but is not a JSON object")
        }
        return object
    }
}

extension JSONLines {
    /// Reads job lines from standard input until it ends, runs them on one thread per usable core, and writes each
    /// job's result line in input order as soon as every earlier one is written. A line `parse` refuses gives an
    /// error line and the stream goes on; empty lines are skipped.
    static func run<Job: Sendable>(
        named name: String, parse: (String, Int) throws -> Job, line: @escaping @Sendable (Job) -> Int,
        result: @escaping @Sendable (Job) -> String
    ) throws {
        let workers = max(1, CPUBudget.available)
        let jobs = Handoff<Job>(capacity: 2 * workers)
        let finished = Handoff<Bool>(capacity: workers)
        let output = OrderedLines()
        for k in 0..<workers {
            DedicatedThread.start(named: "\(name)-\(k)") {
                while let job = try? jobs.take() {
                    output.put(result(job), line: line(job))
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
                _ = jobs.put(try parse(trimmed, number))
            } catch {
                output.put(errorLine(line: number, image: nil, message: errorMessage(error)), line: number)
            }
        }
        jobs.close(nil)
        for _ in 0..<workers { _ = try finished.take() }
    }
}

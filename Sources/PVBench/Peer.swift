import Foundation

/// The Python side of every `peoplevision bench …` command: a virtual environment under the build
/// folder with the peer's packages from PyPI, and the scripts in `Benchmarks/peer/`.
struct Peer {
    let root: URL
    let venv: URL

    /// Finds the repository root (the folder holding `Benchmarks/peer`) from the working directory upward.
    /// `venvName` is the environment's folder under `.build`: peers whose pins conflict with the shared
    /// `peer-venv` (numpy 2) get their own.
    init(venvName: String = "peer-venv") throws {
        var dir = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Benchmarks/peer").path) {
            let parent = dir.deletingLastPathComponent()
            guard parent.path != dir.path else {
                throw BenchError("benchmarks need the PeopleVision source tree: run them from the repository")
            }
            dir = parent
        }
        root = dir
        venv = dir.appendingPathComponent(".build/\(venvName)")
    }

    var python: URL { venv.appendingPathComponent("bin/python") }

    /// Creates the virtual environment and installs `requirements` into it (quietly, only when something changed).
    func prepare(requirements: String) throws {
        let req = root.appendingPathComponent("Benchmarks/peer/\(requirements)")
        let stamp = venv.appendingPathComponent(".\(requirements).stamp")
        let wanted = try String(contentsOf: req, encoding: .utf8)
        if let have = try? String(contentsOf: stamp, encoding: .utf8), have == wanted,
            FileManager.default.isExecutableFile(atPath: python.path)
        {
            return
        }
        log("setting up the peer environment (\(requirements)) in \(venv.path)")
        if !FileManager.default.isExecutableFile(atPath: python.path) {
            try run("/usr/bin/env", ["python3", "-m", "venv", venv.path])
        }
        try run(python.path, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", req.path])
        try wanted.write(to: stamp, atomically: true, encoding: .utf8)
    }

    /// Runs a peer script and returns its standard output.
    func script(_ name: String, _ arguments: [String]) throws -> String {
        let path = root.appendingPathComponent("Benchmarks/peer/\(name)").path
        return try run(python.path, [path] + arguments)
    }

    /// Runs a peer script and returns the JSON objects among its output lines (its results; other lines, such as a
    /// library's log, are skipped).
    func records(_ name: String, _ arguments: [String]) throws -> [[String: Any]] {
        try script(name, arguments).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The medians in the records of a per-image script (`op`, `image`, `median_ms` and a count under `countKey`), keyed
    /// "op image" with the image's file name, and the counts, keyed "op image countKey".
    static func imageMedians(_ records: [[String: Any]], countKey: String) -> [String: Double] {
        var results: [String: Double] = [:]
        for obj in records {
            guard let op = obj["op"] as? String, let image = obj["image"] as? String, let ms = obj["median_ms"] as? Double,
                let count = obj[countKey] as? Int
            else { continue }
            let key = "\(op) \(URL(fileURLWithPath: image).lastPathComponent)"
            results[key] = ms
            results["\(key) \(countKey)"] = Double(count)
        }
        return results
    }

    @discardableResult
    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw BenchError("\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.joined(separator: " ")) exited with status \(p.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Progress goes to standard error so the Markdown table on standard output stays clean.
func log(_ message: String) {
    FileHandle.standardError.write(Data("bench: \(message)\n".utf8))
}

/// Median of a non-empty sample.
func median(_ values: [Double]) -> Double {
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Times `body`: `warmup` untimed calls, then `iterations` timed ones; returns milliseconds per call.
func measure(warmup: Int, iterations: Int, _ body: () throws -> Void) rethrows -> [Double] {
    for _ in 0..<warmup { try body() }
    var times: [Double] = []
    times.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times
}

/// Prints a Markdown table whose last column is `ratio`, then `max ratio: X`.
func printRatioTable(header: [String], rows: [[String]], ratios: [Double]) {
    print("| " + (header + ["ratio"]).joined(separator: " | ") + " |")
    print("|" + String(repeating: "---|", count: header.count + 1))
    for (row, r) in zip(rows, ratios) { print("| " + (row + [String(format: "%.2f", r)]).joined(separator: " | ") + " |") }
    print("")
    print("max ratio: " + String(format: "%.2f", ratios.max() ?? .nan))
}

/// Times the peer and ours in `rounds` rounds, back to back, which side goes first alternating between rounds, so
/// that the machine's slower and faster minutes (and whatever one side leaves behind) weigh on both alike. Returns
/// each side's results, one per round; with `peer` nil, ours alone runs `rounds` times.
func alternatingRounds<P, O>(_ rounds: Int, peer: (() throws -> P)?, ours: () throws -> O) throws -> (peer: [P], ours: [O]) {
    guard let peer else { return ([], try (0..<rounds).map { _ in try ours() }) }
    var p: [P] = [], o: [O] = []
    for round in 0..<rounds {
        log("round \(round + 1) of \(rounds)")
        if round % 2 == 1 { o.append(try ours()) }
        p.append(try peer())
        if round % 2 == 0 { o.append(try ours()) }
    }
    return (p, o)
}

/// The median over rounds of each round's time for `key` (nil when a round lacks it).
func medianOverRounds(_ rounds: [[String: Double]], _ key: String) -> Double? {
    let values = rounds.compactMap { $0[key] }
    return values.count == rounds.count && !values.isEmpty ? median(values) : nil
}

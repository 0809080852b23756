import Foundation
import PVTestSupport
import Testing

/// `peoplevision analyze --jsonl`: jobs on standard input, one JSON line per job on standard output, in order.
@Suite("analyze --jsonl")
struct AnalyzeJSONLinesTests {
    /// A started `peoplevision COMMAND --jsonl` (`analyze` unless told) with pipes to its input and output.
    final class Batch: @unchecked Sendable {  // used from the test's thread only
        let process = Process()
        let input = Pipe(), output = Pipe()
        private var buffer = Data()

        init(_ arguments: [String], command: String = "analyze") throws {
            process.executableURL = CLITests.executable
            process.arguments = [command, "--jsonl"] + arguments
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

        func close() { try? input.fileHandleForWriting.close() }

        /// The next output line, or nil at the end of the output.
        func nextLine() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer = Data(buffer[(newline + 1)...])
                    return line
                }
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { return nil }
                buffer.append(more)
            }
        }
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// A record without what differs from run to run (timing) or from call to call (the job's line number).
    static func comparable(_ record: [String: Any]) -> NSDictionary {
        var r = record
        r["elapsed_ms"] = nil
        r["line"] = nil
        return r as NSDictionary
    }

    @Test("Results come in input order, equal to one call per image, and a bad job gives an error line")
    func orderedResultsAndErrors() throws {
        let images = try ["astronaut.png", "chelsea.png", "camera.png", "rocket.jpg"].map { try TestFiles.installed($0).path }
        let batch = try Batch(["--requests", "faces,bodies,hands"])
        batch.send(images[0])
        batch.send("")
        batch.send(#"{"image": "\#(images[1])", "requests": ["bodies"], "id": "cat"}"#)
        batch.send("/no/such/image.jpg")
        batch.send(#"{"image": "\#(images[2])", "requests": "bodies,wings"}"#)
        batch.send("{not json")
        batch.send(images[2])
        batch.send(images[3])
        batch.close()
        var lines: [[String: Any]] = []
        while let line = batch.nextLine() { lines.append(try Self.object(line)) }
        batch.process.waitUntilExit()
        #expect(batch.process.terminationStatus == 0)
        // One line per job (the empty line is none), by input line number.
        #expect(lines.compactMap { $0["line"] as? Int } == [1, 3, 4, 5, 6, 7, 8])
        #expect(lines[1]["id"] as? String == "cat" && lines[1]["faces"] == nil && lines[1]["bodies"] != nil)
        for k in [2, 3, 4] { #expect(lines[k]["error"] is String, "\(lines[k])") }
        #expect((lines[3]["error"] as? String)?.contains("wings") == true)

        // The same records as one call per image.
        for (k, image) in [(0, images[0]), (5, images[2]), (6, images[3])] {
            let single = try CLITests.run(["analyze", image, "--requests", "faces,bodies,hands", "--json", "-"])
            #expect(single.status == 0)
            let record = try Self.object(single.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(Self.comparable(lines[k]) == Self.comparable(record), "\(image)")
        }
    }

    @Test("The first result comes out before the input ends")
    func resultsStream() throws {
        let batch = try Batch(["--requests", "bodies"])
        // A result that never comes fails the test (the process is ended, the read sees the end) instead of hanging.
        let process = batch.process
        let guardTimer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: guardTimer)
        defer {
            guardTimer.cancel()
            batch.close()
            batch.process.waitUntilExit()
        }
        batch.send(try TestFiles.installed("astronaut.png").path)
        // The input stays open: the first result must arrive all the same.
        let first = try #require(batch.nextLine())
        #expect(try Self.object(first)["line"] as? Int == 1)
        batch.send(try TestFiles.installed("chelsea.png").path)
        batch.close()
        let second = try #require(batch.nextLine())
        #expect(try Self.object(second)["line"] as? Int == 2)
        #expect(batch.nextLine() == nil)
    }
}

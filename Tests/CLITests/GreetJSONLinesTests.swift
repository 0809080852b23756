import Foundation
import PVTestSupport
import Testing

/// `peoplevision greet --jsonl`: many photos greeted by one process, one JSON line per job, in order.
@Suite("greet --jsonl")
struct GreetJSONLinesTests {
    typealias Batch = AnalyzeJSONLinesTests.Batch

    @Test("Each job's greeting is the one-photo command's, results come in order, bad jobs give error lines and no file")
    func greetingsInOrder() throws {
        let folder = CLITests.scratch("greet-jsonl")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let astronaut = try TestFiles.installed("astronaut.png").path
        let chelsea = try TestFiles.installed("chelsea.png").path
        let camera = try TestFiles.installed("camera.png").path
        let cat = folder.appendingPathComponent("cat.png").path
        let batch = try Batch(["--background", "#3366ff", "--quality", "fast", "--output-dir", folder.path], command: "greet")
        batch.send(astronaut)
        batch.send(#"{"image": "\#(chelsea)", "out": "\#(cat)", "background": "blur", "id": 7}"#)
        batch.send("/no/such/photo.jpg")
        batch.send(##"{"image": "\##(camera)", "background": "#12"}"##)
        batch.send(#"{"image": "\#(camera)", "out": "\#(folder.path)/camera.gif"}"#)
        batch.send("")
        batch.send("{not json")
        batch.close()
        var lines: [[String: Any]] = []
        while let line = batch.nextLine() { lines.append(try AnalyzeJSONLinesTests.object(line)) }
        batch.process.waitUntilExit()
        #expect(batch.process.terminationStatus == 0)
        #expect(lines.compactMap { $0["line"] as? Int } == [1, 2, 3, 4, 5, 7])
        guard lines.count == 6 else { return }
        let first = folder.appendingPathComponent("astronaut.jpg").path
        #expect(lines[0]["output"] as? String == first && lines[0]["width"] as? Int == 512 && lines[0]["height"] as? Int == 512)
        #expect(lines[1]["output"] as? String == cat && lines[1]["id"] as? Int == 7 && lines[1]["error"] == nil)
        for k in 2...5 { #expect(lines[k]["error"] is String, "\(lines[k])") }
        #expect((lines[3]["error"] as? String)?.contains("#12") == true)
        #expect((lines[4]["error"] as? String)?.contains(".gif") == true)
        // Only the two greetings were written: a failed job leaves no file behind.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["astronaut.jpg", "cat.png"])

        // The same bytes as one `greet` per photo.
        for (photo, background, batchOutput, name) in [
            (astronaut, "#3366ff", first, "single.jpg"), (chelsea, "blur", cat, "single.png"),
        ] {
            let single = folder.appendingPathComponent(name).path
            let run = try CLITests.run(["greet", photo, "--background", background, "--quality", "fast", "-o", single])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(FileManager.default.contents(atPath: single) == FileManager.default.contents(atPath: batchOutput), "\(photo)")
        }
    }

    @Test("The command line names one mode: a photo with --output, or --jsonl with neither")
    func modesAreExclusive() throws {
        let photo = try TestFiles.installed("astronaut.png").path
        for arguments in [
            ["greet", "--jsonl", photo, "--background", "blur"],
            ["greet", "--jsonl", "-o", "x.jpg", "--background", "blur"],
            ["greet", photo, "--background", "blur"],
            ["greet", photo, "-o", "x.jpg", "--output-dir", "out", "--background", "blur"],
            ["greet", "--jsonl", "--format", "gif", "--background", "blur"],
        ] {
            let run = try CLITests.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
            #expect(!run.stderr.isEmpty)
        }
    }
}

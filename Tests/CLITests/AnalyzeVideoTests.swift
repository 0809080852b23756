import Foundation
import PVImaging
import PVTestSupport
import Testing

/// `peoplevision analyze VIDEO --jsonl`: one JSON line per frame, the frames analysed as one sequence.
@Suite("analyze VIDEO --jsonl")
struct AnalyzeVideoTests {
    /// `frames` frames of the astronaut (200 px) drifting right 3 px a frame over a grey 480 × 270 frame, 30 fps.
    static func clip(_ url: URL, frames: Int) throws {
        let astronaut = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
            .converted(to: .rgba32).resized(width: 200, height: 200)
        let writer = try VideoWriter(url: url, width: 480, height: 270, framesPerSecond: 30)
        for k in 0..<frames {
            try writer.append(try astronaut.pasted(onto: 480, 270, at: [(60 + 3 * k, 40)], fill: 90), at: Double(k) / 30)
        }
        try writer.finish()
    }

    /// The JSON objects of `text`'s lines.
    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require((try JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any], "\(line)")
        }
    }

    /// The nose of each body of a record, normalized.
    static func noses(_ record: [String: Any]) -> [(x: Double, y: Double)] {
        ((record["bodies"] as? [[String: Any]]) ?? []).compactMap { body in
            guard let nose = (body["joints"] as? [String: Any])?["nose"] as? [Double], nose.count == 3 else { return nil }
            return (nose[0], nose[1])
        }
    }

    @Test("one line per frame, with the frame's number and time, in the image record's shape")
    func linePerFrame() throws {
        let input = CLITests.scratch("walk.mp4")
        defer { try? FileManager.default.removeItem(at: input) }
        try Self.clip(input, frames: 12)
        let r = try CLITests.run(["analyze", input.path, "--jsonl", "--requests", "bodies,hands"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try Self.objects(r.stdout)
        #expect(lines.count == 12)
        for (k, line) in lines.enumerated() {
            #expect(line["frame"] as? Int == k)
            let seconds = try #require(line["time"] as? Double)
            #expect(abs(seconds - Double(k) / 30) < 1e-3, "frame \(k): \(seconds) s")
            // The same time as a CMTime at 90 kHz: 3,000 ticks a frame.
            #expect(line["time_timescale"] as? Int == 90_000)
            #expect(line["time_value"] as? Int == 3_000 * k, "frame \(k): \(line["time_value"] ?? "none")")
            #expect(line["image"] as? String == input.lastPathComponent, "\(line["image"] ?? "no image")")
            #expect(line["width"] as? Int == 480 && line["height"] as? Int == 270)
            #expect(line["hands"] is [Any] && line["elapsed_ms"] is Double && line["error"] == nil, "\(line.keys.sorted())")
            #expect(Self.noses(line).count >= 1, "frame \(k): \(line["bodies"] ?? "no bodies")")
        }
        // Her nose moves right with the picture: 33 px over the clip, 0.069 of the width (smoothing lags a little).
        if let first = lines.first.flatMap({ Self.noses($0).first }), let last = lines.last.flatMap({ Self.noses($0).first }) {
            #expect(abs((last.x - first.x) - 33.0 / 480) < 0.03, "nose from \(first) to \(last)")
        }
    }

    /// The frames are one sequence: the first frame's landmarks are those of the frame analysed as a still image,
    /// later frames' are smoothed with the earlier ones, so they differ from the still analysis of the same pixels.
    @Test("landmarks are smoothed across the frames")
    func smoothedAcrossFrames() throws {
        let input = CLITests.scratch("smoothed.mp4")
        var stills: [URL] = []
        defer { for f in [input] + stills { try? FileManager.default.removeItem(at: f) } }
        try Self.clip(input, frames: 8)
        // The decoded frames as PNGs: the pixels the video analysis sees.
        let reader = try VideoReader(url: input)
        while let (frame, _) = try reader.nextFrame() {
            let still = CLITests.scratch("smoothed-\(stills.count).png")
            try ImageEncoder.write(frame, to: still, as: .png)
            stills.append(still)
        }
        let video = try Self.objects(try CLITests.run(["analyze", input.path, "--jsonl", "--requests", "bodies"]).stdout)
        let still = try Self.objects(try CLITests.run(["analyze", "--requests", "bodies"] + stills.map(\.path)).stdout)
        try #require(video.count == 8 && still.count == 8)
        let v0 = try #require(Self.noses(video[0]).first), s0 = try #require(Self.noses(still[0]).first)
        #expect(abs(v0.x - s0.x) < 1e-6 && abs(v0.y - s0.y) < 1e-6, "frame 0: \(v0) vs \(s0)")
        let differences = (1..<8).compactMap { k -> Double? in
            guard let v = Self.noses(video[k]).first, let s = Self.noses(still[k]).first else { return nil }
            return hypot(v.x - s.x, v.y - s.y)
        }
        #expect(differences.count == 7 && differences.contains { $0 > 1e-4 }, "\(differences)")
    }

    @Test("lines appear while the video is still being analysed")
    func streams() throws {
        let input = CLITests.scratch("stream.mp4")
        defer { try? FileManager.default.removeItem(at: input) }
        try Self.clip(input, frames: 40)
        let process = Process(), output = Pipe()
        process.executableURL = CLITests.executable
        process.arguments = ["analyze", input.path, "--jsonl", "--requests", "bodies,faces"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }
            received.append(more)
        }
        // The first line is out while the 39 other frames are still to come.
        let runningAtFirstLine = process.isRunning
        received.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(runningAtFirstLine)
        #expect(try Self.objects(String(decoding: received, as: UTF8.self)).count == 40)
    }

    @Test("a file that is not a video fails with its reason and writes no line")
    func unreadableVideo() throws {
        let input = CLITests.scratch("broken.mp4")
        defer { try? FileManager.default.removeItem(at: input) }
        try Data("not a video at all".utf8).write(to: input)
        let r = try CLITests.run(["analyze", input.path, "--jsonl"])
        #expect(r.status == 1 && r.stderr.contains("cannot read the video") && !r.stderr.contains("Usage:"), "\(r.stderr)")
        #expect(r.stdout.isEmpty, "\(r.stdout)")
        let missing = try CLITests.run(["analyze", CLITests.scratch("missing.mp4").path, "--jsonl"])
        #expect(missing.status == 1 && missing.stdout.isEmpty, "\(missing.stderr)")
        // A video needs --jsonl; --tracking needs a video.
        let plain = try CLITests.run(["analyze", input.path])
        #expect(plain.status != 0 && plain.stderr.contains("--jsonl"), "\(plain.stderr)")
        let photo = try TestFiles.installed("astronaut.png")
        let tracking = try CLITests.run(["analyze", photo.path, "--tracking"])
        #expect(tracking.status != 0 && tracking.stderr.contains("--tracking"), "\(tracking.stderr)")
    }
}

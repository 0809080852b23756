import Foundation
import PVImaging
import PVTestSupport
import Testing

/// `peoplevision greet VIDEO`: the photo greeting on every frame of a video.
@Suite struct VideoGreetingTests {
    /// Ten frames of the astronaut sliding right over a blue wall, 320×192 at 25 fps.
    static func clip(_ url: URL) throws {
        let astronaut = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
            .converted(to: .rgba32).resized(width: 160, height: 160)
        let writer = try VideoWriter(url: url, width: 320, height: 192, framesPerSecond: 25)
        for k in 0..<10 {
            var frame = try astronaut.pasted(onto: 320, 192, at: [(10 + 12 * k, 16)], fill: 0)
            let stride = frame.bytesPerRow()
            frame.withUnsafeMutableBytes { b in
                for y in 0..<192 {
                    for x in 0..<320 where !(x >= 10 + 12 * k && x < 170 + 12 * k && y >= 16 && y < 176) {
                        let i = y * stride + 4 * x
                        (b[i], b[i + 1], b[i + 2], b[i + 3]) = (40, 90, 160, 255)
                    }
                }
            }
            try writer.append(frame, at: Double(k) / 25)
        }
        try writer.finish()
    }

    @Test func greetsEveryFrame() throws {
        let input = CLITests.scratch("clip.mp4"), output = CLITests.scratch("greeting.mp4")
        defer { for f in [input, output] { try? FileManager.default.removeItem(at: f) } }
        try Self.clip(input)
        let r = try CLITests.run(["greet", input.path, "--background", "#00ff00", "-o", output.path, "--quality", "fast"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("10 frames"), "\(r.stdout)")
        let reader = try VideoReader(url: output)
        #expect(reader.width == 320 && reader.height == 192)
        var frames = 0
        while let (frame, seconds) = try reader.nextFrame() {
            #expect(abs(seconds - Double(frames) / 25) < 1e-3)
            // The wall in the far corner (away from where she stands in every frame) is the green backdrop; her face
            // (about a third down her picture) is not.
            let (corner, face) = frame.withUnsafeBytes { b in
                let c = 180 * frame.bytesPerRow() + 4 * 310, f = 60 * frame.bytesPerRow() + 4 * (10 + 12 * frames + 72)
                return ((b[c], b[c + 1], b[c + 2]), (b[f], b[f + 1], b[f + 2]))
            }
            #expect(corner.1 > 200 && corner.0 < 60 && corner.2 < 60, "frame \(frames): corner BGR \(corner)")
            #expect(!(face.1 > 200 && face.0 < 60 && face.2 < 60), "frame \(frames): face BGR \(face)")
            frames += 1
        }
        #expect(frames == 10)
    }

    /// The greeting keeps the video's sound.
    @Test func soundIsKept() throws {
        let silent = CLITests.scratch("silent.mkv"), input = CLITests.scratch("with-sound.mkv"), output = CLITests.scratch("greeting.mkv")
        let wav = CLITests.scratch("tone.wav")
        defer { for f in [silent, input, output, wav] { try? FileManager.default.removeItem(at: f) } }
        // A 2-second tone as 16-bit PCM, muxed into the clip (Matroska holds PCM).
        try AudioFiles.tone(seconds: 2).write(to: wav)
        try Self.clip(silent)
        let muxer = try VideoWriter(url: input, width: 320, height: 192, framesPerSecond: 25)
        let reader = try VideoReader(url: silent)
        while let (frame, seconds) = try reader.nextFrame() { try muxer.append(frame, at: seconds) }
        #expect(try muxer.finish(copyingAudioFrom: wav) == .copied)

        let r = try CLITests.run(["greet", input.path, "--background", "#00ff00", "-o", output.path, "--quality", "fast"])
        #expect(r.status == 0 && r.stdout.contains("sound copied"), "\(r.stdout) \(r.stderr)")
        #expect(VideoReader.hasAudioStream(at: output))
    }

    @Test func badVideoArgumentsWriteNothing() throws {
        let input = CLITests.scratch("clip.mp4"), output = CLITests.scratch("greeting.mp4")
        defer { for f in [input, output] { try? FileManager.default.removeItem(at: f) } }
        try Data("not a video".utf8).write(to: input)
        let r = try CLITests.run(["greet", input.path, "--background", "blur", "-o", output.path])
        #expect(r.status == 1 && r.stderr.contains("cannot read the video") && !r.stderr.contains("Usage:"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let still = try CLITests.run(["greet", input.path, "--background", "blur", "-o", CLITests.scratch("g.jpg").path])
        #expect(still.status != 0 && still.stderr.contains(".mp4"), "\(still.stderr)")
        let pose = try CLITests.run(["greet", input.path, "--background", "pose", "-o", output.path])
        #expect(pose.status != 0 && pose.stderr.contains("pose"), "\(pose.stderr)")
    }
}

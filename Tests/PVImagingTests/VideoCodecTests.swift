import Foundation
import PVImaging
import PVTestSupport
import Testing

/// Video files through FFmpeg: what is written reads back, and bad input fails cleanly.
@Suite struct VideoCodecTests {
    static func scratch(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("pv-video-\(UUID().uuidString)-\(name)")
    }

    /// Frame `k` of a test clip: a grey ramp with a bright square moving right by 8 px a frame.
    static func frame(_ k: Int, width: Int, height: Int) throws -> PixelBuffer {
        var p = try PixelBuffer(width: width, height: height, format: .rgba32)
        let stride = p.bytesPerRow()
        p.withUnsafeMutableBytes { b in
            for y in 0..<height {
                for x in 0..<width {
                    let inSquare = x >= 8 * k && x < 8 * k + 32 && y >= 20 && y < 52
                    let v: UInt8 = inSquare ? 240 : UInt8(40 + (x * 120) / width)
                    let i = y * stride + 4 * x
                    (b[i], b[i + 1], b[i + 2], b[i + 3]) = (v, inSquare ? 60 : v, v, 255)
                }
            }
        }
        return p
    }

    @Test(arguments: ["mp4", "mkv", "mov"])
    func writtenFramesReadBack(_ ext: String) throws {
        let url = Self.scratch("clip.\(ext)")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try VideoWriter(url: url, width: 160, height: 96, framesPerSecond: 25)
        for k in 0..<12 { try writer.append(try Self.frame(k, width: 160, height: 96), at: Double(k) / 25) }
        #expect(!FileManager.default.fileExists(atPath: url.path), "the file appears only when finished")
        try writer.finish()

        let reader = try VideoReader(url: url)
        #expect(reader.width == 160 && reader.height == 96 && abs(reader.framesPerSecond - 25) < 0.01)
        var k = 0
        while let (frame, seconds) = try reader.nextFrame() {
            #expect(frame.format == .bgra32 && frame.width == 160)
            #expect(abs(seconds - Double(k) / 25) < 1e-3, "frame \(k) at \(seconds)")
            // Lossy, but the moving square is where it was drawn: its centre is bright with little green.
            let original = try Self.frame(k, width: 160, height: 96).converted(to: .bgra32)
            let (got, want) = frame.withUnsafeBytes { g in
                original.withUnsafeBytes { o in
                    let i = 36 * frame.bytesPerRow() + 4 * (8 * k + 16)
                    return ((g[i], g[i + 1], g[i + 2]), (o[i], o[i + 1], o[i + 2]))
                }
            }
            #expect(abs(Int(got.0) - Int(want.0)) < 24 && abs(Int(got.1) - Int(want.1)) < 24, "frame \(k): \(got) against \(want)")
            k += 1
        }
        #expect(k == 12)
        #expect(try reader.nextFrame() == nil)
    }

    @Test func badInputsFailCleanly() throws {
        #expect(throws: ImagingError.self) { try VideoReader(url: URL(fileURLWithPath: "/nonexistent/clip.mp4")) }
        let notVideo = Self.scratch("text.mp4")
        try Data("not a video".utf8).write(to: notVideo)
        defer { try? FileManager.default.removeItem(at: notVideo) }
        #expect(throws: ImagingError.self) { try VideoReader(url: notVideo) }

        let gif = Self.scratch("clip.gif")
        #expect(throws: ImagingError.self) { try VideoWriter(url: gif, width: 64, height: 64, framesPerSecond: 25) }
        let url = Self.scratch("clip.mp4")
        #expect(throws: ImagingError.self) { try VideoWriter(url: url, width: 0, height: 64, framesPerSecond: 25) }
        #expect(throws: ImagingError.self) {
            try VideoWriter(url: URL(fileURLWithPath: "/nonexistent/folder/clip.mp4"), width: 64, height: 64, framesPerSecond: 25)
        }
        // Times must increase; a frame of another size is refused; an unfinished writer leaves no file.
        do {
            let writer = try VideoWriter(url: url, width: 64, height: 64, framesPerSecond: 25)
            try writer.append(try Self.frame(0, width: 64, height: 64), at: 0)
            #expect(throws: ImagingError.self) { try writer.append(try Self.frame(1, width: 64, height: 64), at: 0) }
            #expect(throws: ImagingError.self) { try writer.append(try Self.frame(1, width: 32, height: 64), at: 1) }
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.contains(url.lastPathComponent) }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// A clip stored sideways with a display rotation (as phones record upright video) reads upright, for every
    /// quarter turn.
    @Test(arguments: [90, 180, 270])
    func rotationIsApplied(_ degrees: Int) throws {
        let url = Self.scratch("turned.mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        let upright = try Self.frame(3, width: 160, height: 96)
        // Store the frame as a player would have to turn it back: the inverse of the rotation.
        let turn: Orientation = degrees == 90 ? .right : degrees == 180 ? .down : .left
        let stored = try upright.applying(turn.inverse)
        let writer = try VideoWriter(url: url, width: stored.width, height: stored.height, framesPerSecond: 10, displayRotation: degrees)
        try writer.append(stored, at: 0)
        try writer.finish()
        let reader = try VideoReader(url: url)
        #expect(reader.orientation == turn)
        #expect(reader.width == 160 && reader.height == 96)
        let (frame, _) = try #require(try reader.nextFrame())
        #expect(frame.width == 160 && frame.height == 96)
        // The bright square (x 24–55, y 20–51) is where it was drawn, not turned away.
        let inside = frame.withUnsafeBytes { $0[36 * frame.bytesPerRow() + 4 * 40 + 2] }
        let outside = frame.withUnsafeBytes { $0[80 * frame.bytesPerRow() + 4 * 140 + 2] }
        #expect(inside > 200 && outside < 190, "inside \(inside), outside \(outside)")
        #expect(throws: ImagingError.self) { try VideoWriter(url: url, width: 64, height: 64, framesPerSecond: 10, displayRotation: 45) }
    }

    /// The audio of another file is copied in where the container holds it; where it does not, the video is still
    /// written, without sound, and the reason is given.
    @Test func audioIsCopiedWhereTheContainerHoldsIt() throws {
        let wav = Self.scratch("tone.wav"), mkv = Self.scratch("with-sound.mkv"), mp4 = Self.scratch("no-sound.mp4")
        defer { for f in [wav, mkv, mp4] { try? FileManager.default.removeItem(at: f) } }
        try AudioFiles.tone(seconds: 2).write(to: wav)
        #expect(VideoReader.hasAudioStream(at: wav))
        func clip(_ url: URL) throws -> VideoWriter {
            let writer = try VideoWriter(url: url, width: 64, height: 48, framesPerSecond: 10)
            for k in 0..<10 { try writer.append(try Self.frame(k, width: 64, height: 48), at: Double(k) / 10) }
            return writer
        }
        #expect(try clip(mkv).finish(copyingAudioFrom: wav) == .copied)
        #expect(VideoReader.hasAudioStream(at: mkv))
        let reader = try VideoReader(url: mkv)
        var frames = 0
        while try reader.nextFrame() != nil { frames += 1 }
        #expect(frames == 10)
        // MP4 cannot hold 16-bit PCM in this FFmpeg: the video comes without it.
        let outcome = try clip(mp4).finish(copyingAudioFrom: wav)
        if case .dropped(let reason) = outcome { #expect(!reason.isEmpty) } else { Issue.record("PCM in MP4: \(outcome)") }
        #expect(FileManager.default.fileExists(atPath: mp4.path) && !VideoReader.hasAudioStream(at: mp4))
        // A source without sound: nothing to copy.
        let silent = Self.scratch("silent.mkv")
        defer { try? FileManager.default.removeItem(at: silent) }
        #expect(try clip(silent).finish(copyingAudioFrom: mkv.deletingPathExtension().appendingPathExtension("none")) == .none)
    }

    /// Odd sizes are kept (4:4:4), not cropped.
    @Test func oddSizes() throws {
        let url = Self.scratch("odd.mkv")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try VideoWriter(url: url, width: 75, height: 41, framesPerSecond: 10)
        for k in 0..<3 { try writer.append(try Self.frame(k, width: 75, height: 41), at: Double(k) / 10) }
        try writer.finish()
        let reader = try VideoReader(url: url)
        #expect(reader.width == 75 && reader.height == 41)
        var n = 0
        while try reader.nextFrame() != nil { n += 1 }
        #expect(n == 3)
    }
}

import Foundation
import PVImaging
import PVTestSupport
import Testing

/// The reader's read-ahead and the writer's encode-behind threads: the same frames and files as the plain modes,
/// failures reported to the caller, and nothing left running or written once cancelled. Serialized: the tests count
/// the process's threads by name.
@Suite(.serialized) struct VideoStagesTests {
    static let width = 160, height = 96, count = 12

    /// A 12-frame test clip, written by the plain writer.
    static func clip(_ name: String) throws -> URL {
        let url = VideoCodecTests.scratch(name)
        let writer = try VideoWriter(url: url, width: width, height: height, framesPerSecond: 25)
        for k in 0..<count { try writer.append(try VideoCodecTests.frame(k, width: width, height: height), at: Double(k) / 25) }
        try writer.finish()
        return url
    }

    /// Every frame and time `reader` gives, and the error that ended them (nil at a clean end).
    static func frames(_ reader: VideoReader) -> (frames: [(Data, Double)], error: Error?) {
        var frames: [(Data, Double)] = []
        do {
            while let (frame, seconds) = try reader.nextFrame() {
                frames.append((frame.withUnsafeBytes { Data($0) }, seconds))
            }
            return (frames, nil)
        } catch {
            return (frames, error)
        }
    }

    /// Runs `body` with the calling thread named `name`. A thread started meanwhile inherits the name (Linux copies it
    /// to a new thread), which tells the reader's or writer's thread apart from any other in the process.
    static func naming<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let comm = "/proc/thread-self/comm"
        let previous = (try? String(contentsOfFile: comm, encoding: .utf8)) ?? ""
        try? name.write(toFile: comm, atomically: false, encoding: .utf8)
        defer { try? previous.write(toFile: comm, atomically: false, encoding: .utf8) }
        return try body()
    }

    /// How many of this process's threads carry `name`.
    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter {
            (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }

    /// Waits up to two seconds for `condition`.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// Files left beside `url` by a writer (its temporary files).
    static func leftovers(of url: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
            .filter { $0.contains(url.lastPathComponent) }
    }

    @Test(arguments: [1, 2, 5])
    func readAheadGivesTheSameFramesAndTimes(_ readAhead: Int) throws {
        let url = try Self.clip("plain.mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        let plain = Self.frames(try VideoReader(url: url))
        let ahead = Self.frames(try VideoReader(url: url, readAhead: readAhead))
        #expect(plain.error == nil && ahead.error == nil)
        #expect(plain.frames.count == Self.count && ahead.frames.count == Self.count)
        for (k, (p, a)) in zip(plain.frames, ahead.frames).enumerated() {
            #expect(p.0 == a.0, "frame \(k): other pixels")
            #expect(p.1 == a.1, "frame \(k): \(p.1) against \(a.1)")
        }
    }

    @Test func encodeBehindWritesTheSameFile() throws {
        // MP4, not Matroska: Matroska files carry a random identifier.
        let plain = try Self.clip("plain.mp4")
        let behind = VideoCodecTests.scratch("behind.mp4")
        defer { for f in [plain, behind] { try? FileManager.default.removeItem(at: f) } }
        let writer = try VideoWriter(url: behind, width: Self.width, height: Self.height, framesPerSecond: 25, encodeBehind: 2)
        for k in 0..<Self.count {
            try writer.append(try VideoCodecTests.frame(k, width: Self.width, height: Self.height), at: Double(k) / 25)
        }
        #expect(!FileManager.default.fileExists(atPath: behind.path), "the file appears only when finished")
        try writer.finish()
        let (a, b) = (Self.frames(try VideoReader(url: plain)), Self.frames(try VideoReader(url: behind)))
        #expect(a.frames.count == Self.count && b.frames.count == Self.count)
        #expect(zip(a.frames, b.frames).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }, "the same frames at the same times")
        #expect(try Data(contentsOf: plain) == Data(contentsOf: behind), "the same bytes")
        #expect(throws: ImagingError.self) { try writer.append(try VideoCodecTests.frame(0, width: Self.width, height: Self.height), at: 1) }
    }

    /// A clip whose last tenth of coded data is overwritten: the plain reader gives the first frames and then
    /// throws; the read-ahead reader gives the same frames and throws the same error at the same place.
    @Test func decodingErrorMidStreamSurfaces() throws {
        let url = try Self.clip("broken.mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        var bytes = try Data(contentsOf: url)
        let mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        let size = bytes[(mdat.lowerBound - 4)..<mdat.lowerBound].reduce(0) { $0 << 8 | Int($1) }
        let payload = mdat.upperBound..<(mdat.lowerBound - 4 + size)
        let cut = payload.lowerBound + payload.count * 9 / 10
        bytes.replaceSubrange(cut..<payload.upperBound, with: Data(repeating: 0xFF, count: payload.upperBound - cut))
        try bytes.write(to: url)

        let plain = Self.frames(try VideoReader(url: url))
        let failure = try #require(plain.error as? ImagingError, "the broken clip must fail to decode")
        #expect(failure.code == .corruptData)
        #expect(plain.frames.count > 0 && plain.frames.count < Self.count)
        for readAhead in [1, 3] {
            let ahead = Self.frames(try VideoReader(url: url, readAhead: readAhead))
            #expect(ahead.error as? ImagingError == failure)
            #expect(ahead.frames.count == plain.frames.count)
            #expect(zip(plain.frames, ahead.frames).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 })
        }
    }

    /// A frame time that does not increase fails on the encoding thread: a later call throws it, and no file (nor a
    /// temporary one) is left.
    @Test func encodingErrorSurfacesAndWritesNothing() throws {
        let url = VideoCodecTests.scratch("refused.mp4")
        let writer = try VideoWriter(url: url, width: 64, height: 64, framesPerSecond: 25, encodeBehind: 2)
        let times = [0, 0.04, 0.04, 0.08, 0.12, 0.16, 0.2, 0.24]
        var thrown: Error?
        for (k, t) in times.enumerated() {
            do { try writer.append(try VideoCodecTests.frame(k, width: 64, height: 64), at: t) } catch {
                thrown = error
                break
            }
        }
        if thrown == nil {
            do { try writer.finish() } catch { thrown = error }
        }
        #expect((thrown as? ImagingError)?.code == .invalidArgument, "\(String(describing: thrown))")
        #expect(throws: ImagingError.self) { try writer.finish() }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try Self.leftovers(of: url).isEmpty)
        // A frame of another size is refused at once, as in the plain mode.
        let other = try VideoWriter(url: url, width: 64, height: 64, framesPerSecond: 25, encodeBehind: 2)
        #expect(throws: ImagingError.self) { try other.append(try VideoCodecTests.frame(0, width: 32, height: 64), at: 0) }
        other.cancel()
        #expect(try Self.leftovers(of: url).isEmpty)
    }

    @Test func cancelStopsTheReadAheadThread() throws {
        let url = try Self.clip("cancelled.mp4")
        defer { try? FileManager.default.removeItem(at: url) }
        let name = "pv-read-ahead"
        let reader = try Self.naming(name) { try VideoReader(url: url, readAhead: 1) }
        #expect(try reader.nextFrame() != nil)
        // The thread now waits to hand the next frame over.
        #expect(Self.eventually { Self.threads(named: name) == 1 })
        reader.cancel()
        #expect(Self.eventually { Self.threads(named: name) == 0 })
        #expect(try reader.nextFrame() == nil)
        // Dropping a reader that reads ahead stops its thread too.
        do {
            let dropped = try Self.naming(name) { try VideoReader(url: url, readAhead: 2) }
            #expect(Self.eventually { Self.threads(named: name) == 1 })
            _ = dropped
        }
        #expect(Self.eventually { Self.threads(named: name) == 0 })
    }

    @Test func cancelStopsTheEncodingThreadAndWritesNothing() throws {
        let url = VideoCodecTests.scratch("cancelled.mp4")
        // x264's own threads, started by the encoder, carry the name too: all end with the writer.
        let name = "pv-encode"
        let writer = try Self.naming(name) {
            try VideoWriter(url: url, width: 64, height: 64, framesPerSecond: 25, encodeBehind: 2)
        }
        for k in 0..<5 { try writer.append(try VideoCodecTests.frame(k, width: 64, height: 64), at: Double(k) / 25) }
        #expect(Self.eventually { Self.threads(named: name) >= 1 })
        writer.cancel()
        #expect(Self.eventually { Self.threads(named: name) == 0 })
        #expect(throws: ImagingError.self) { try writer.append(try VideoCodecTests.frame(5, width: 64, height: 64), at: 1) }
        #expect(throws: ImagingError.self) { try writer.finish() }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try Self.leftovers(of: url).isEmpty)
        // Dropped unfinished: the same.
        do {
            let dropped = try Self.naming(name) {
                try VideoWriter(url: url, width: 64, height: 64, framesPerSecond: 25, encodeBehind: 1)
            }
            try dropped.append(try VideoCodecTests.frame(0, width: 64, height: 64), at: 0)
            #expect(Self.eventually { Self.threads(named: name) >= 1 })
        }
        #expect(Self.eventually { Self.threads(named: name) == 0 })
        #expect(try Self.leftovers(of: url).isEmpty)
    }
}

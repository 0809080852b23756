import CAllocatorTuning
import Foundation
import PVImaging
import PVTestSupport
import Testing

/// Runs the built `peoplevision` executable, as a user would.
@Suite struct CLITests {
    static var executable: URL {
        // The test bundle sits in the build products folder, beside the executable.
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("peoplevision").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("peoplevision")
    }

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String]) throws -> Run {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func scratch(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("pv-cli-\(UUID().uuidString)-\(name)")
    }

    /// Confined to one CPU (`taskset`, as a container's cpuset does), the default thread counts follow the affinity
    /// mask: every model runs and gives the checksums it gives on all cores. (With two XNNPACK threads on one core
    /// the workers spin against each other and the same command took minutes.)
    @Test func oneCoreAffinityGivesTheSameOutputs() throws {
        let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
        try #require(FileManager.default.isExecutableFile(atPath: taskset.path), "util-linux's taskset is part of every Debian system")
        func sums(_ r: Run) -> [Substring] { r.stdout.split(separator: "\n").filter { $0.contains("output sum") } }
        let all = try Self.run(["models", "--run"])
        let p = Process()
        p.executableURL = taskset
        p.arguments = ["-c", "0", Self.executable.path, "models", "--run"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        // A hang fails the test instead of stalling the run.
        let guardTimer = DispatchWorkItem { if p.isRunning { p.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: guardTimer)
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guardTimer.cancel()
        let one = Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: "")
        #expect(all.status == 0 && one.status == 0)
        let expected = sums(all).map { $0.replacing(/; [0-9.]+ ms median/, with: "") }
        #expect(expected.count == 14)
        #expect(sums(one).map { $0.replacing(/; [0-9.]+ ms median/, with: "") } == expected)
    }

    /// `bench timeline` records the landmark request's model runs: both face detectors and both meshes, each on a
    /// thread of the chart, starting in order and ending within the call.
    @Test func timelineShowsEachModelRunOfARequest() throws {
        let r = try Self.run(["bench", "timeline", try TestFiles.installed("astronaut.png").path, "--request", "faces", "--warmup", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let runs = lines.filter { $0.hasPrefix("T") && !$0.contains("|") }.map { $0.split(separator: " ").map(String.init) }
        let models = Set(runs.map { $0[1] })
        #expect(
            models == ["face_detection_short_range", "face_detection_full_range_sparse", "face_landmark", "face_landmark_with_attention"])
        let total = try #require(lines.first?.split(separator: " ").dropFirst(2).first.flatMap { Double($0) })
        let times = runs.compactMap { r in Double(r[2]).flatMap { s in Double(r[3]).map { (s, $0) } } }
        #expect(times.count == runs.count && !times.isEmpty)
        #expect(times.allSatisfy { $0.0 >= 0 && $0.0 < $0.1 && $0.1 <= total })
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.0 <= $1.0 })
        #expect(lines.filter { $0.hasPrefix("T") && $0.contains("|") }.count >= 1)
        // Bad options fail before any work.
        #expect(try Self.run(["bench", "timeline", "/nonexistent.png"]).status != 0)
        #expect(try Self.run(["bench", "timeline", try TestFiles.installed("astronaut.png").path, "--width", "5"]).status != 0)
    }

    @Test func segmentWritesAMask() throws {
        let out = Self.scratch("mask.png")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try Self.run(["segment", try TestFiles.installed("astronaut.png").path, "-o", out.path, "--quality", "balanced"])
        #expect(r.status == 0, "\(r.stderr)")
        let mask = try ImageDecoder.decode(contentsOf: out).pixels
        #expect(mask.width == 256 && mask.height == 256)
        #expect(mask.format == .oneComponent8)
    }

    @Test func badArgumentsFailWithoutWritingAFile() throws {
        let astronaut = try TestFiles.installed("astronaut.png").path
        let notPNG = Self.scratch("mask.txt")
        let r1 = try Self.run(["segment", astronaut, "-o", notPNG.path])
        #expect(r1.status != 0)
        #expect(r1.stderr.contains(".png"))
        #expect(!FileManager.default.fileExists(atPath: notPNG.path))

        let out = Self.scratch("greeting.jpg")
        let r2 = try Self.run(["greet", astronaut, "--background", "#12345", "-o", out.path])
        #expect(r2.status != 0)
        #expect(r2.stderr.contains("#RRGGBB"))
        let r3 = try Self.run(["greet", "/nonexistent/photo.jpg", "--background", "blur", "-o", out.path])
        #expect(r3.stderr.contains("cannot read") && r3.stderr.contains("no such file"), "\(r3.stderr)")
        // A file that cannot be read fails the run (status 1), as in the other commands; it is not a usage error
        // (status 64, with the usage text after the message).
        #expect(r3.status == 1 && !r3.stderr.contains("Usage:"), "status \(r3.status): \(r3.stderr)")
        // A cut JPEG: the message says what is wrong with it.
        let cut = Self.scratch("cut.jpg")
        defer { try? FileManager.default.removeItem(at: cut) }
        try Data(try Data(contentsOf: TestFiles.installed("rocket.jpg")).prefix(4000)).write(to: cut)
        let r6 = try Self.run(["greet", cut.path, "--background", "blur", "-o", out.path])
        #expect(r6.status == 1 && !r6.stderr.contains("Usage:"), "status \(r6.status): \(r6.stderr)")
        #expect(r6.stderr.contains("truncated"), "\(r6.stderr)")
        let r5 = try Self.run(["segment", "/nonexistent/photo.jpg", "-o", Self.scratch("m.png").path])
        #expect(r5.status != 0)
        #expect(r5.stderr.contains("VNErrorCode.invalidImage"), "Vision errors print as message and code name: \(r5.stderr)")
        #expect(!r5.stderr.contains("Error Domain="), "not as an NSError dump")
        let r4 = try Self.run(["segment", astronaut, "-o", Self.scratch("m.png").path, "--quality", "best"])
        #expect(r4.status != 0)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        // An output folder that does not exist: one readable line naming the file, for every command that writes.
        let missing = Self.scratch("no-such-folder")
        for arguments in [
            ["greet", astronaut, "--background", "blur", "--quality", "fast", "-o", missing.appendingPathComponent("g.jpg").path],
            ["segment", astronaut, "--quality", "fast", "-o", missing.appendingPathComponent("m.png").path],
        ] {
            let r = try Self.run(arguments)
            #expect(r.status != 0)
            #expect(r.stderr.hasPrefix("Error: cannot write \(missing.path)"), "\(arguments[0]): \(r.stderr)")
            #expect(!r.stderr.contains("Error Domain="), "not as an NSError dump")
            #expect(!FileManager.default.fileExists(atPath: missing.path))
        }
    }

    @Test func greetComposites() throws {
        let out = Self.scratch("greeting.png")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try Self.run(["greet", try TestFiles.installed("astronaut.png").path, "--background", "#00ff00", "-o", out.path, "--quality", "fast"])
        #expect(r.status == 0, "\(r.stderr)")
        let picture = try ImageDecoder.decode(contentsOf: out).pixels.converted(to: .rgba32)
        let corner = picture.withUnsafeBytes { p in (p[0], p[1], p[2]) }
        #expect(corner.0 < 10 && corner.1 > 245 && corner.2 < 10, "the background corner is the green backdrop")
    }

    @Test func greetOverAnImageBackdrop() throws {
        // A uniform backdrop: where the mask is 0 (the corner, as in greetComposites) the greeting shows its colour.
        let backdrop = Self.scratch("backdrop.png"), out = Self.scratch("greeting-backdrop.png")
        defer { for f in [backdrop, out] { try? FileManager.default.removeItem(at: f) } }
        var pixels = try PixelBuffer(width: 7, height: 5, format: .rgba32)
        pixels.withUnsafeMutableBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) { (p[i], p[i + 1], p[i + 2], p[i + 3]) = (200, 30, 90, 255) }
        }
        try ImageEncoder.encode(pixels, as: .png).write(to: backdrop)
        let photo = try TestFiles.installed("astronaut.png").path
        let r = try Self.run(["greet", photo, "--background", backdrop.path, "-o", out.path, "--quality", "fast"])
        #expect(r.status == 0, "\(r.stderr)")
        let picture = try ImageDecoder.decode(contentsOf: out).pixels.converted(to: .rgba32)
        let corner = picture.withUnsafeBytes { p in (Int(p[0]), Int(p[1]), Int(p[2])) }
        #expect(abs(corner.0 - 200) <= 10 && abs(corner.1 - 30) <= 10 && abs(corner.2 - 90) <= 10, "corner \(corner)")

        // A backdrop that cannot be read fails cleanly and writes nothing.
        try? FileManager.default.removeItem(at: out)
        let bad = try Self.run(["greet", photo, "--background", "/nonexistent/backdrop.jpg", "-o", out.path])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("cannot read"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test func analyzeReadsAManifestAndRefusesABadOneBeforeWriting() throws {
        let chelsea = try TestFiles.installed("chelsea.png").path, astronaut = try TestFiles.installed("astronaut.png").path
        let outs = [Self.scratch("manifest-chelsea.json"), Self.scratch("manifest-astronaut.json")]
        let manifest = Self.scratch("manifest.jsonl")
        // `analyze` writes each image's mask beside its record.
        let masks = outs.map { $0.deletingPathExtension().appendingPathExtension("seg.png") }
        defer { for f in outs + masks + [manifest] { try? FileManager.default.removeItem(at: f) } }
        func line(_ image: String, _ out: URL) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: ["image": image, "out": out.path]), as: UTF8.self)
        }
        try (try line(chelsea, outs[0]) + "\n\n" + line(astronaut, outs[1]) + "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let r = try Self.run(["analyze", "--manifest", manifest.path, "--requests", "segmentation"])
        #expect(r.status == 0, "\(r.stderr)")
        for (out, width) in zip(outs, [451, 512]) {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
            #expect(record["width"] as? Int == width)
        }

        // Line 3 has a number for a path: the whole manifest is refused before the first image is analysed.
        for out in outs { try FileManager.default.removeItem(at: out) }
        try (try line(chelsea, outs[0]) + "\n\n{\"image\": 3, \"out\": \"x.json\"}\n").write(to: manifest, atomically: true, encoding: .utf8)
        let bad = try Self.run(["analyze", "--manifest", manifest.path])
        #expect(bad.status == 1 && bad.stderr.contains("manifest line 3"), "status \(bad.status): \(bad.stderr)")
        #expect(!bad.stderr.contains("Usage:") && !bad.stderr.contains("Error Domain="), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: outs[0].path))
        let missing = try Self.run(["analyze", "--manifest", Self.scratch("no-such-manifest.jsonl").path])
        #expect(missing.status == 1 && missing.stderr.contains("cannot read the manifest"), "\(missing.stderr)")
        #expect(missing.stderr.contains("no such file") && !missing.stderr.contains("Error Domain="), "\(missing.stderr)")
    }

    @Test func analyzePrintsOneRecordPerImage() throws {
        let r = try Self.run(["analyze", try TestFiles.installed("chelsea.png").path, try TestFiles.installed("astronaut.png").path, "--json", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["width"] as? Int == 451)
        #expect(first["height"] as? Int == 300)
        #expect(first["segmentation"] != nil)
    }

    @Test func analyzeListsItsTasks() throws {
        let r = try Self.run(["analyze", "--print-tasks"])
        #expect(r.status == 0, "\(r.stderr)")
        let tasks = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: String])
        #expect(tasks["segmentation"] == "segmentation")
    }

    @Test func analyzeDrawsAnOverlayTheSizeOfTheImage() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pv-overlay-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = try TestFiles.installed("astronaut.png")
        let r = try Self.run(["analyze", image.path, "--requests", "segmentation", "--json", dir.path, "--overlay", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let overlay = try ImageDecoder.decode(contentsOf: dir.appendingPathComponent("astronaut.png")).pixels
        let original = try ImageDecoder.decode(contentsOf: image).pixels
        #expect(overlay.width == original.width && overlay.height == original.height)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("astronaut.seg.png").path))
    }

    @Test(arguments: ["pose", "hands"])
    func bodiesAndHandsReportUnreadableImages(_ command: String) throws {
        let r = try Self.run([command, "/nonexistent/photo.jpg", "--json"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("VNErrorCode.invalidImage"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}

/// The command line's allocator setting (large image buffers stay in the heap between requests) is taken.
@Suite struct AllocatorTuningTests {
    @Test func glibcTakesTheSetting() {
        #if os(Linux)
        #expect(pv_keep_large_blocks(32 << 20, 256 << 20) == 1)
        #endif
        #expect(pv_keep_large_blocks(Int.max, 256 << 20) == 0, "a threshold glibc cannot hold is refused, not truncated")
    }
}

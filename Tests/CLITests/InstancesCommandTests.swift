import Foundation
import PVImaging
import PVTestSupport
import Testing

/// `peoplevision instances` and `analyze --requests instances`, run as a user would.
@Suite struct InstancesCommandTests {
    @Test func writesLabelsOverlayAndCutout() throws {
        let labels = CLITests.scratch("labels.png"), overlay = CLITests.scratch("overlay.png"), cutout = CLITests.scratch("cutout.png")
        defer { for f in [labels, overlay, cutout] { try? FileManager.default.removeItem(at: f) } }
        let astronaut = try TestFiles.installed("astronaut.png").path
        let r = try CLITests.run([
            "instances", astronaut, "-o", labels.path, "--overlay", overlay.path, "--cutout", cutout.path, "--crop", "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let instances = try #require(record["instances"] as? [[String: Any]])
        try #require(instances.count == 1)
        let area = try #require(instances[0]["area"] as? Double)
        #expect(area > 0.25 && area < 0.7, "area \(area)")

        var options = ImageDecoder.Options()
        options.keepsGrayscale = true
        let map = try ImageDecoder.decode(contentsOf: labels, options: options).pixels
        #expect(map.width == 512 && map.height == 512 && map.format == .oneComponent8)
        let counts = map.withUnsafeBytes { raw in (0...2).map { v in raw.filter { $0 == v }.count } }
        #expect(counts[1] > 512 * 512 / 4 && counts[2] == 0, "\(counts)")
        #expect(try ImageDecoder.decode(contentsOf: overlay).pixels.width == 512)
        // The cutout is cropped to her and transparent around her.
        let cut = try ImageDecoder.decode(contentsOf: cutout).pixels.converted(to: .rgba32)
        #expect(cut.width < 512 || cut.height < 512)
        let corner = cut.withUnsafeBytes { $0[3] }
        #expect(corner == 0, "top-left alpha \(corner)")
    }

    @Test func badSelectionsWriteNothing() throws {
        let cutout = CLITests.scratch("cutout.png")
        defer { try? FileManager.default.removeItem(at: cutout) }
        let astronaut = try TestFiles.installed("astronaut.png").path
        let missing = try CLITests.run(["instances", astronaut, "--cutout", cutout.path, "--select", "2"])
        #expect(missing.status == 1 && missing.stderr.contains("instance 2") && !missing.stderr.contains("Usage:"), "\(missing.stderr)")
        let garbage = try CLITests.run(["instances", astronaut, "--cutout", cutout.path, "--select", "one"])
        #expect(garbage.status != 0 && garbage.stderr.contains("--select"), "\(garbage.stderr)")
        let alone = try CLITests.run(["instances", astronaut, "--select", "1"])
        #expect(alone.status != 0 && alone.stderr.contains("--cutout"), "\(alone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cutout.path))
    }

    @Test func analyzeWritesALabelMap() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pv-instances-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLITests.run(["analyze", try TestFiles.installed("astronaut.png").path, "--requests", "instances", "--json", dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("astronaut.json"))) as? [String: Any])
        #expect(record["instances"] as? String == "astronaut.inst.png")
        let map = try ImageDecoder.decode(contentsOf: dir.appendingPathComponent("astronaut.inst.png")).pixels
        #expect(map.width == 512 && map.height == 512)
        let tasks = try CLITests.run(["analyze", "--print-tasks"])
        #expect(tasks.stdout.contains("\"instances\":\"instances\""), "\(tasks.stdout)")
    }
}

import Foundation
import PVInference
import PVTestSupport
import Testing

/// `scripts/bootstrap` refuses a corrupted file and names it; it never silently re-uses or replaces it.
@Suite struct BootstrapTests {
    static let script = TestFiles.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/bootstrap")

    @Test func corruptedModelIsNamed() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("pv-bootstrap-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let source = ModelStore.default.directory
        for name in try fm.contentsOfDirectory(atPath: source.path) where !name.hasPrefix(".") {
            try fm.copyItem(at: source.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        }
        // Untouched copies verify silently.
        let ok = try runBootstrap(models: dir)
        #expect(ok.status == 0)
        #expect(ok.stderr.isEmpty, "a complete cache gives a quiet run: \(ok.stderr)")
        // One flipped byte is an error naming the file.
        let victim = dir.appendingPathComponent("iris_landmark.tflite")
        var bytes = [UInt8](try Data(contentsOf: victim))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: victim)
        let bad = try runBootstrap(models: dir)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("iris_landmark.tflite"))
        #expect(bad.stderr.contains("SHA-256"))
        #expect(try Data(contentsOf: victim) == Data(bytes), "the corrupted file is left for the user to inspect")
    }

    func runBootstrap(models: URL) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["bash", Self.script.path]
        var env = ProcessInfo.processInfo.environment
        env["PEOPLEVISION_MODELS"] = models.path
        p.environment = env
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

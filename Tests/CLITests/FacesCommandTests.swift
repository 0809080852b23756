import Foundation
import PVImaging
import PVTestSupport
import Testing

/// `peoplevision faces`, `analyze --requests faces` and `greet --background pose`, run as a user would.
@Suite struct FacesCommandTests {
    @Test func facesJSONHasTheHarnessFormat() throws {
        let r = try CLITests.run(["faces", try TestFiles.installed("astronaut.png").path, "--landmarks", "--quality", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let faces = try #require(record["faces"] as? [[String: Any]])
        try #require(faces.count == 1)
        let face = faces[0]
        let box = try #require(face["boundingBox"] as? [Double])
        #expect(box.count == 4 && box.allSatisfy { (0...1).contains($0) })
        for key in ["roll", "yaw", "pitch", "confidence", "faceCaptureQuality"] { #expect(face[key] is Double, "\(key)") }
        let landmarks = try #require(face["landmarks"] as? [String: [[Double]]])
        #expect(landmarks["leftPupil"]?.count == 1 && landmarks["outerLips"]?.count == 14)
        // Normalized image coordinates, lower-left origin: her left pupil is right of her right one and in the
        // upper half of the image.
        let left = try #require(landmarks["leftPupil"]?.first), right = try #require(landmarks["rightPupil"]?.first)
        #expect(left[0] > right[0] && left[1] > 0.5 && right[1] > 0.5)
    }

    @Test func facesTextOverlayAndErrors() throws {
        let out = CLITests.scratch("faces.png")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try CLITests.run(["faces", try TestFiles.installed("camera.png").path, "--overlay", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1 face") && r.stdout.contains("yaw"))
        let picture = try ImageDecoder.decode(contentsOf: out).pixels
        #expect(picture.width == 512 && picture.height == 512)
        let bad = try CLITests.run(["faces", try TestFiles.installed("camera.png").path, "--overlay", "x.jpg"])
        #expect(bad.status != 0 && bad.stderr.contains(".png"))
        let missing = try CLITests.run(["faces", "/nonexistent/face.jpg"])
        #expect(missing.status != 0)
    }

    @Test func analyzeListsTheFacesTask() throws {
        let r = try CLITests.run(["analyze", "--print-tasks"])
        #expect(r.status == 0)
        let tasks = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: String])
        #expect(tasks["faces"] == "faces")
    }

    @Test func greetWithAPoseBackground() throws {
        let out = CLITests.scratch("pose.jpg")
        defer { try? FileManager.default.removeItem(at: out) }
        let r = try CLITests.run(["greet", try TestFiles.installed("camera.png").path, "--background", "pose", "-o", out.path, "--quality", "fast"])
        #expect(r.status == 0, "\(r.stderr)")
        let picture = try ImageDecoder.decode(contentsOf: out).pixels.converted(to: .rgba32)
        // The sky in the top-left corner is replaced by a saturated colour (the cameraman's head is turned and
        // tilted), so its channels differ clearly where the grey photo's were equal.
        let pixel = picture.withUnsafeBytes { Array($0[0..<3]) }
        #expect(Int(pixel.max()!) - Int(pixel.min()!) > 40, "corner \(pixel)")
    }
}

/// `peoplevision pose --3d` and `analyze --requests bodies3d`.
@Suite struct Pose3DCommandTests {
    @Test func poseJSONHasTheBodies3DRecord() throws {
        let r = try CLITests.run(["pose", try TestFiles.installed("astronaut.png").path, "--3d", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let bodies = try #require(record["bodies3d"] as? [[String: Any]])
        try #require(bodies.count == 1)
        let joints = try #require(bodies[0]["joints"] as? [String: [Double]])
        #expect(joints.count == 17 && joints["root"] == [0, 0, 0])
        // Camera axes, y up: the head is above the root.
        #expect((joints["topHead"]?[1] ?? 0) > 0.4)
        #expect(abs((bodies[0]["bodyHeight"] as? Double ?? 0) - 1.8) < 1e-6)
        let tasks = try CLITests.run(["analyze", "--print-tasks"])
        #expect(tasks.stdout.contains("\"bodies3d\":\"bodies3d\""), "\(tasks.stdout)")
    }
}

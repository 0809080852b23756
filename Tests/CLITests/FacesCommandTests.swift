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

    /// `analyze --intrinsics` and a manifest line's `"intrinsics"` are the camera the skeleton is placed with: twice
    /// the focal length puts her about twice as far (the root's position is in the record); bad values are refused.
    @Test func analyzeTakesTheCameraIntrinsics() throws {
        let image = try TestFiles.installed("astronaut.png").path
        func root(_ extra: [String]) throws -> [Double] {
            let r = try CLITests.run(["analyze", image, "--requests", "bodies3d", "--json", "-"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            let record = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let body = try #require((record["bodies3d"] as? [[String: Any]])?.first)
            let position = try #require(body["rootPosition"] as? [Double])
            let distance = try #require(body["cameraDistance"] as? Double)
            #expect(abs((position.map { $0 * $0 }.reduce(0, +)).squareRoot() - distance) < 1e-6)
            return position
        }
        let near = try root(["--intrinsics", "500,500,256,256"]), far = try root(["--intrinsics", "1000, 1000, 256, 256"])
        #expect(near[2] < 0 && far[2] / near[2] > 1.8 && far[2] / near[2] < 2.3, "\(near) \(far)")
        // The same camera from a manifest line, as a 3×3 matrix.
        let out = CLITests.scratch("intrinsics-\(UUID().uuidString).json"), manifest = CLITests.scratch("intrinsics-\(UUID().uuidString).jsonl")
        defer { for url in [out, manifest] { try? FileManager.default.removeItem(at: url) } }
        let line = ["image": image, "out": out.path, "intrinsics": [[1000, 0, 256], [0, 1000, 256], [0, 0, 1]]] as [String: Any]
        try JSONSerialization.data(withJSONObject: line).write(to: manifest)
        let r = try CLITests.run(["analyze", "--manifest", manifest.path, "--requests", "bodies3d"])
        #expect(r.status == 0, "\(r.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
        let fromManifest = try #require(((record["bodies3d"] as? [[String: Any]])?.first?["rootPosition"]) as? [Double])
        #expect(zip(fromManifest, far).allSatisfy { abs($0 - $1) < 1e-4 }, "\(fromManifest) against \(far)")
        // Not a camera: a usage error (64) naming the option; a bad manifest value names its line.
        for bad in ["500,500,256", "0,500,256,256", "a,b,c,d", "500,500,256,nan"] {
            let refused = try CLITests.run(["analyze", image, "--requests", "bodies3d", "--intrinsics", bad])
            #expect(refused.status == 64 && refused.stderr.contains("intrinsics"), "\(bad): \(refused.status) \(refused.stderr)")
        }
        // A job line of `analyze --jsonl` takes them too (over `--intrinsics`); a bad one is that job's error line.
        let batch = try AnalyzeJSONLinesTests.Batch(["--requests", "bodies3d", "--intrinsics", "500,500,256,256"])
        batch.send(#"{"image": "\#(image)", "intrinsics": [1000, 1000, 256, 256]}"#)
        batch.send(image)
        batch.send(#"{"image": "\#(image)", "intrinsics": "wide"}"#)
        batch.close()
        let lines = try (0..<3).map { _ in try AnalyzeJSONLinesTests.object(try #require(batch.nextLine())) }
        batch.process.waitUntilExit()
        let roots = lines.prefix(2).map { (($0["bodies3d"] as? [[String: Any]])?.first?["rootPosition"] as? [Double]) ?? [] }
        #expect(zip(roots[0], far).allSatisfy { abs($0 - $1) < 1e-4 } && zip(roots[1], near).allSatisfy { abs($0 - $1) < 1e-4 }, "\(roots)")
        #expect((lines[2]["error"] as? String)?.contains("intrinsics") == true, "\(lines[2])")
        try JSONSerialization.data(withJSONObject: ["image": image, "out": out.path, "intrinsics": [1000, 1000]]).write(to: manifest)
        let badLine = try CLITests.run(["analyze", "--manifest", manifest.path, "--requests", "bodies3d"])
        #expect(badLine.status != 0 && badLine.stderr.contains("manifest line 1"), "\(badLine.stderr)")
    }

    /// A depth map of `metres` everywhere, 128 × 128, as a 16-bit PNG in millimetres or a little-endian PFM.
    static func depthFile(_ metres: Float, png: Bool) throws -> URL {
        if png {
            var map = try PixelBuffer(width: 128, height: 128, format: .oneComponent32Float)
            let row = map.bytesPerRow()
            map.withUnsafeMutableBytes { bytes in
                for y in 0..<128 { for x in 0..<128 { bytes.storeBytes(of: metres * 1000 / 65535, toByteOffset: y * row + 4 * x, as: Float.self) } }
            }
            let url = CLITests.scratch("depth-\(metres).png")
            try ImageEncoder.write(map, to: url, as: .png)
            return url
        }
        var data = Data("Pf\n128 128\n-1.0\n".utf8)
        for _ in 0..<(128 * 128) { withUnsafeBytes(of: metres.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        let url = CLITests.scratch("depth-\(metres).pfm")
        try data.write(to: url)
        return url
    }

    static func body3D(_ extra: [String]) throws -> [String: Any] {
        let r = try CLITests.run(["pose", try TestFiles.installed("astronaut.png").path, "--3d", "--json"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try #require((record["bodies3d"] as? [[String: Any]])?.first)
    }

    @Test func poseMeasuresWithADepthFile() throws {
        #expect(try Self.body3D([])["heightEstimation"] as? String == "reference")
        let files = [try Self.depthFile(1.2, png: true), try Self.depthFile(1.2, png: false), try Self.depthFile(0.9, png: false)]
        let bad = CLITests.scratch("depth-bad.pfm")
        defer { for url in files + [bad] { try? FileManager.default.removeItem(at: url) } }
        let png = try Self.body3D(["--depth", files[0].path])
        let pfm = try Self.body3D(["--depth", files[1].path])
        let near = try Self.body3D(["--depth", files[2].path])
        for body in [png, pfm, near] { #expect(body["heightEstimation"] as? String == "measured") }
        // 1200 mm and 1.2 m are one distance; at three quarters of it, the same picture is a person three quarters
        // as tall (with the file's assumed 26-mm lens, 1.2 m makes her about 2.3 m tall, 0.9 m about 1.7 m).
        let h = [png, pfm, near].map { $0["bodyHeight"] as? Double ?? 0 }
        #expect(abs(h[0] - h[1]) <= 0.01 * h[1], "\(h)")
        #expect(abs(h[2] / h[1] - 0.75) <= 0.015, "\(h)")
        // A depth file that is not one, or --depth without --3d, fails.
        try Data("Pf\n128 128\n-1.0\n1234".utf8).write(to: bad)
        #expect(try CLITests.run(["pose", try TestFiles.installed("astronaut.png").path, "--3d", "--depth", bad.path]).status != 0)
        #expect(try CLITests.run(["pose", try TestFiles.installed("astronaut.png").path, "--depth", bad.path]).status != 0)
    }
}

#if Serve
import Foundation
@testable import PVServe
import PVTestSupport
@testable import peoplevision
import Testing

/// The upload page in a real browser: headless Chromium (Debian's, installed by scripts/bootstrap) picks a photo,
/// presses Run, and the page draws the overlay and shows the greeting. scripts/page-check drives it and reads the DOM.
@Suite("serve: upload page")
struct ServePageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func uploadingAPhotoDrawsTheOverlay() async throws {
        let photo = try TestFiles.installed("astronaut.png")
        // Kept after the run, for a person to look at.
        let screenshot = FileManager.default.temporaryDirectory.appendingPathComponent("peoplevision-upload-page.png")
        try? FileManager.default.removeItem(at: screenshot)
        let (status, output) = try await withServer(engine: PeopleVisionEngine()) { client, _ in
            try await runProgram(
                Self.repository.appendingPathComponent("scripts/page-check"),
                ["--url", client.url("/").absoluteString, "--photo", photo.path, "--screenshot", screenshot.path], withErrors: true)
        }
        let report = (try JSONSerialization.jsonObject(with: output) as? [String: Any]) ?? [:]
        #expect(status == 0)
        #expect(report["state"] as? String == "done", "\(String(decoding: output, as: UTF8.self))")
        #expect(report["status"] as? String == "Done.")
        // The astronaut photo has one person, face and body in view (the analyze tests find the same).
        #expect(report["faces"] as? Int == 1 && report["bodies"] as? Int == 1, "\(report)")
        #expect(report["canvasWidth"] as? Int == 512 && report["canvasHeight"] as? Int == 512)
        #expect(report["pictureWidth"] as? Int == 512, "the greeting is shown")
        #expect((report["jsonLength"] as? Int ?? 0) > 100, "the JSON is shown")
        let shot = try Data(contentsOf: screenshot)
        #expect(shot.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG screenshot was saved")
    }
}
#endif

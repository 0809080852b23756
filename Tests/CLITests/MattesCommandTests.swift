import Foundation
import PVImaging
import PVTestSupport
import Testing

/// `peoplevision mattes`, run as a user would.
@Suite struct MattesCommandTests {
    @Test func writesEveryMatteTheHEICAndTheOverlay() throws {
        let directory = CLITests.scratch("mattes")
        let heic = CLITests.scratch("portrait.heic")
        defer {
            try? FileManager.default.removeItem(at: directory)
            try? FileManager.default.removeItem(at: heic)
        }
        let astronaut = try TestFiles.installed("astronaut.png").path
        let r = try CLITests.run(["mattes", astronaut, "-o", directory.path, "--heic", heic.path, "--overlay"])
        #expect(r.status == 0, "\(r.stderr)")
        for name in ["hair", "skin", "teeth", "glasses", "portrait"] {
            let matte = try ImageDecoder.decode(contentsOf: directory.appendingPathComponent("\(name).png")).pixels
            #expect(matte.width == 512 && matte.height == 512 && matte.format == .oneComponent8, "\(name)")
        }
        let overlay = try ImageDecoder.decode(contentsOf: directory.appendingPathComponent("overlay.png")).pixels
        #expect(overlay.width == 512 && overlay.height == 512)
        // The HEIC carries the photo and every matte under Apple's auxiliary types.
        let reader = try HEICReader(contentsOf: heic)
        #expect(Set(reader.auxiliaryImages.map(\.type)) == [.hairMatte, .skinMatte, .teethMatte, .glassesMatte, .portraitEffectsMatte])
        #expect(try reader.primaryImage().pixels.width == 512)
    }

    @Test func chosenTypesOnlyAndBadArguments() throws {
        let directory = CLITests.scratch("mattes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let astronaut = try TestFiles.installed("astronaut.png").path
        let r = try CLITests.run(["mattes", astronaut, "--types", "skin,teeth", "-o", directory.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["skin.png", "teeth.png"])
        let unknown = try CLITests.run(["mattes", astronaut, "--types", "skin,sky", "-o", directory.path])
        #expect(unknown.status != 0 && unknown.stderr.contains("sky"))
        let notHEIC = try CLITests.run(["mattes", astronaut, "-o", directory.path, "--heic", directory.appendingPathComponent("x.jpg").path])
        #expect(notHEIC.status != 0 && notHEIC.stderr.contains(".heic"))
    }
}

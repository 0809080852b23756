import Foundation
import PeopleVision
@testable import SelfieAnalysis
import PVImaging
import PVTestSupport
import Testing

/// The selfie-analysis example (Examples/SelfieAnalysis), run on the astronaut photo.
@Suite struct SelfieAnalysisTests {
    @Test func astronautSelfie() async throws {
        let photo = try TestFiles.installed("astronaut.png")
        let summary = try await analyzeSelfie(at: photo)
        // One person facing the camera: one face with the 76-point constellation, one body.
        #expect(summary.faces.count == 1)
        #expect(summary.landmarkPointCount == 76)
        #expect(summary.bodies.count == 1)

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("selfie-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: out) }
        try writeOverlay(try drawOverlay(summary, on: photo), to: out)
        let drawn = try ImageDecoder.decode(contentsOf: out).pixels.converted(to: .rgba32)
        let original = try ImageDecoder.decode(contentsOf: photo).pixels.converted(to: .rgba32)
        #expect(drawn.width == original.width && drawn.height == original.height)

        func rgb(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD3<Int> {
            b.withUnsafeBytes { p in
                let o = y * b.bytesPerRow() + 4 * x
                return SIMD3(Int(p[o]), Int(p[o + 1]), Int(p[o + 2]))
            }
        }
        // The face box's lower edge (2 px, drawn last) is yellow: bright red and green, little blue.
        let box = try #require(summary.faces.first).boundingBox.toImageCoordinates(
            CGSize(width: original.width, height: original.height), origin: .upperLeft)
        let edge = rgb(drawn, Int(box.midX), Int(box.maxY) - 1)
        #expect(edge.x > 200 && edge.y > 200 && edge.z < 60, "face box edge \(edge)")
        // A corner of the photo is background, dimmed to 40 % (the mask is near 0 there).
        let corner = rgb(drawn, 4, 4), before = rgb(original, 4, 4)
        #expect(abs(corner.x - before.x * 4 / 10) <= 12 && abs(corner.y - before.y * 4 / 10) <= 12, "corner \(corner) from \(before)")
    }
}

import Foundation
import PeopleVision
@testable import PhotoGreeting
import PVImaging
import PVTestSupport
import Testing

/// Apple's photo-greeting sample (Examples/PhotoGreeting), run unchanged: the astronaut over the rocket.
@Suite struct PhotoGreetingTests {
    @Test(arguments: [BlendVariant.redMask, .mask])
    func astronautOverRocket(variant: BlendVariant) throws {
        let astronaut = try TestFiles.installed("astronaut.png")
        let rocket = try TestFiles.installed("rocket.jpg")
        let greeting = try #require(try generatePhotoGreeting(foregroundURL: astronaut, backgroundURL: rocket, variant: variant))
        #expect(greeting.extent == CGRect(x: 0, y: 0, width: 512, height: 512))

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("greeting-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: out) }
        try writeGreeting(greeting, to: out)
        let result = try ImageDecoder.decode(contentsOf: out).pixels
        let person = try ImageDecoder.decode(contentsOf: astronaut).pixels
        let scene = try ImageDecoder.decode(contentsOf: rocket).pixels
        #expect(result.width == 512 && result.height == 512)

        func rgb(_ b: PixelBuffer, _ x: Int, _ y: Int) throws -> SIMD3<Double> {
            let c = try b.converted(to: .rgba32)
            return c.withUnsafeBytes { p in
                let o = y * c.bytesPerRow() + 4 * x
                return SIMD3(Double(p[o]), Double(p[o + 1]), Double(p[o + 2]))
            }
        }
        func close(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ tolerance: Double) -> Bool {
            let d = a - b
            return max(abs(d.x), abs(d.y), abs(d.z)) <= tolerance
        }
        // On the astronaut's face and suit: the photo's own pixels.
        for (x, y) in [(230, 100), (150, 300), (200, 330), (300, 400)] {
            #expect(close(try rgb(result, x, y), try rgb(person, x, y), 24), "person pixel \(x),\(y)")
        }
        // Top corners are background: the rocket scene, scaled to 512×512.
        for (x, y) in [(10, 10), (500, 10), (20, 60)] {
            let sx = x * scene.width / 512, sy = y * scene.height / 512
            #expect(close(try rgb(result, x, y), try rgb(scene, sx, sy), 40), "background pixel \(x),\(y)")
        }
    }
}

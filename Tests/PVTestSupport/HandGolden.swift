import Foundation
import PVImaging

/// `Tests/Fixtures/hands/hands.json`, written by `scripts/make-hand-goldens` from MediaPipe 0.10.21's Python hands
/// solution.
public struct HandGolden: Decodable, Sendable {
    public struct Hand: Decodable, Sendable {
        public let mediapipeLabel: String
        public let mediapipeScore: Double
        public let side: String
        /// 21 × (x, y, z), normalized to the case's picture, top-left origin.
        public let landmarks: [[Double]]
    }
    public struct Case: Decodable, Sendable {
        public let name: String
        public let image: String
        public let crop: [Int]?
        public let mirrored: Bool
        public let width: Int
        public let height: Int
        public let hands: [Hand]
    }
    public let schemaVersion: Int
    public let cases: [Case]

    public static func load() throws -> HandGolden {
        let url = TestFiles.fixtures.appendingPathComponent("hands/hands.json")
        return try JSONDecoder().decode(HandGolden.self, from: Data(contentsOf: url))
    }

    /// A case's picture, rebuilt as the generator built it: the sample image, cropped, mirrored left to right.
    public static func image(_ c: Case) throws -> PixelBuffer {
        var image = try ImageDecoder.decode(contentsOf: TestFiles.installed(c.image)).pixels.converted(to: .rgba32)
        if let crop = c.crop { image = try image.cropped(x: crop[0], y: crop[1], width: crop[2], height: crop[3]) }
        if c.mirrored { image = try image.applying(.upMirrored) }
        return image
    }
}

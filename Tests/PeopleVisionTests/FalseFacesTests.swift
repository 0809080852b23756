import Foundation
import PVImaging
import PVTestSupport
import PeopleVision
import Testing

/// Face rectangles return faces and nothing else: on a composed picture of faces of several sizes beside a cat and a
/// rocket, every returned face is one of the placed faces, each found once.
@Suite("No false faces")
struct FalseFacesTests {
    /// `parts` copied onto a grey `width × height` canvas at their top-left corners.
    static func compose(_ parts: [(PixelBuffer, x: Int, y: Int)], width: Int, height: Int) throws -> PixelBuffer {
        var canvas = try PixelBuffer(width: width, height: height, format: .rgba32)
        canvas.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 110) }
        let d = canvas.bytesPerRow()
        for (part, x, y) in parts {
            let src = try part.converted(to: .rgba32), s = src.bytesPerRow()
            src.withUnsafeBytes { sp in
                canvas.withUnsafeMutableBytes { dp in
                    for row in 0..<src.height {
                        let from = sp.baseAddress! + row * s, to = dp.baseAddress! + (y + row) * d + 4 * x
                        to.copyMemory(from: from, byteCount: 4 * src.width)
                    }
                }
            }
        }
        return canvas
    }

    static func load(_ name: String, width: Int, height: Int) throws -> PixelBuffer {
        try ImageDecoder.decode(contentsOf: try TestFiles.installed(name)).pixels.converted(to: .rgba32)
            .resized(width: width, height: height)
    }

    @Test(arguments: [false, true])
    func facesAmongThingsThatAreNot(smallFaces: Bool) throws {
        // Her face is about a fifth of her picture's width: faces of about 96 and 72 px (6 and 4.5 % of the width).
        let sizes = [(x: 760, y: 20, side: 480), (x: 1220, y: 500, side: 360)]
        var parts: [(PixelBuffer, x: Int, y: Int)] = [
            (try Self.load("chelsea.png", width: 420, height: 280), x: 20, y: 40),
            (try Self.load("rocket.jpg", width: 260, height: 390), x: 470, y: 300),
        ]
        for s in sizes { parts.append((try Self.load("astronaut.png", width: s.side, height: s.side), x: s.x, y: s.y)) }
        let canvas = try Self.compose(parts, width: 1600, height: 900)
        let request = VNDetectFaceRectanglesRequest()
        request.searchesForSmallFaces = smallFaces
        try VNImageRequestHandler(cgImage: CGImage(buffer: canvas)).perform([request])
        let faces = try #require(request.results)
        // Each placed portrait's picture, in Vision's normalized coordinates.
        let portraits = sizes.map {
            CGRect(x: Double($0.x) / 1600, y: 1 - Double($0.y + $0.side) / 900, width: Double($0.side) / 1600, height: Double($0.side) / 900)
        }
        for face in faces {
            let c = CGPoint(x: face.boundingBox.midX, y: face.boundingBox.midY)
            #expect(portraits.contains { $0.contains(c) }, "a face outside every portrait: \(face.boundingBox) (\(face.confidence))")
        }
        // Each face at most once; with the small-face search (faces of 4.5–6 % of the picture's width are below the
        // whole-image detectors' reach), each exactly once.
        for p in portraits {
            let inside = faces.filter { p.contains(CGPoint(x: $0.boundingBox.midX, y: $0.boundingBox.midY)) }
            #expect(smallFaces ? inside.count == 1 : inside.count <= 1, "portrait \(p): \(inside.map(\.boundingBox))")
        }
    }
}

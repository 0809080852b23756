import Foundation
import PeopleVision
import PVImaging
import PVTestSupport
import Testing

@Suite("VNDetectHumanRectanglesRequest", .serialized)
struct HumanRectanglesEndToEndTests {
    static func boxes(_ handler: VNImageRequestHandler, upperBodyOnly: Bool? = nil, revision: Int? = nil) throws -> [VNHumanObservation] {
        let request = VNDetectHumanRectanglesRequest()
        if let upperBodyOnly { request.upperBodyOnly = upperBodyOnly }
        if let revision { request.revision = revision }
        try handler.perform([request])
        return try #require(request.results)
    }

    @Test func defaultsAreUpperBodyRevision2() {
        let request = VNDetectHumanRectanglesRequest()
        #expect(request.upperBodyOnly)
        #expect(request.revision == VNDetectHumanRectanglesRequestRevision2)
        #expect(VNDetectHumanRectanglesRequest.supportedRevisions == IndexSet([1, 2]))
    }

    /// The astronaut (MediaPipe's landmarks, `scripts/make-pose-goldens`): the upper-body box holds the face and
    /// shoulders and ends at the shoulders; the full-body box holds it and reaches the bottom of the picture.
    @Test func astronautBoxes() throws {
        let golden = try HumanTestImages.poseGolden()
        let handler = VNImageRequestHandler(url: try TestFiles.installed("astronaut.png"))
        let upper = try #require(try Self.boxes(handler).first)
        let full = try #require(try Self.boxes(handler, upperBodyOnly: false).first)
        #expect(upper.upperBodyOnly && !full.upperBodyOnly)
        #expect(try Self.boxes(handler).count == 1)
        func vision(_ i: Int) -> CGPoint { CGPoint(x: golden.landmarks[i].x, y: 1 - golden.landmarks[i].y) }
        for i in [0, 2, 5, 7, 8, 11, 12] {
            #expect(upper.boundingBox.insetBy(dx: -0.02, dy: -0.02).contains(vision(i)), "landmark \(i) in the upper-body box")
            #expect(full.boundingBox.insetBy(dx: -0.02, dy: -0.02).contains(vision(i)), "landmark \(i) in the full-body box")
        }
        let lowerShoulder = min(vision(11).y, vision(12).y)
        #expect(abs(upper.boundingBox.minY - lowerShoulder) < 0.02, "the upper body ends at the shoulders")
        #expect(full.boundingBox.minY < 0.01, "the suit runs off the bottom of the picture")
        #expect(upper.boundingBox.maxY > vision(0).y + 0.1, "the head top is above the nose")
        #expect(full.boundingBox.contains(upper.boundingBox.insetBy(dx: 0.01, dy: 0.01)))
        #expect(upper.confidence > 0.9 && upper.confidence <= 1)
        // Revision 1 only knows upper bodies.
        let legacy = try #require(try Self.boxes(handler, upperBodyOnly: false, revision: 1).first)
        #expect(legacy.upperBodyOnly && abs(legacy.boundingBox.minY - upper.boundingBox.minY) < 1e-9)
    }

    @Test func onePerPerson() throws {
        let astronaut = try HumanTestImages.astronaut()
        let two = try astronaut.pasted(onto: 1024, 512, at: [(0, 0), (512, 0)])
        let handler = VNImageRequestHandler(cgImage: HumanTestImages.cgImage(two))
        let boxes = try Self.boxes(handler, upperBodyOnly: false).sorted { $0.boundingBox.minX < $1.boundingBox.minX }
        try #require(boxes.count == 2)
        #expect(boxes[0].boundingBox.maxX <= 0.52 && boxes[1].boundingBox.minX >= 0.48)
        #expect(abs(boxes[1].boundingBox.minX - 0.5 - boxes[0].boundingBox.minX) < 0.02)
    }

    @Test func revisionErrors() throws {
        let handler = VNImageRequestHandler(url: try TestFiles.installed("astronaut.png"))
        do {
            _ = try Self.boxes(handler, revision: 3)
            Issue.record("revision 3 must be refused")
        } catch let e as NSError {
            #expect(e.domain == VNErrorDomain && e.code == VNErrorCode.unsupportedRevision.rawValue)
        }
    }
}

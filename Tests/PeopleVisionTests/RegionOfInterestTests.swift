import Foundation
import PVTestSupport
import PeopleVision
import Testing

/// Requests with a `regionOfInterest` see only that part of the image and report in coordinates normalized to it
/// (lower-left origin), finding the same people as without it.
@Suite("Region of interest")
struct RegionOfInterestTests {
    /// `rect`, normalized to `roi`, back in the image's normalized coordinates.
    static func inImage(_ rect: CGRect, roi: CGRect) -> CGRect {
        CGRect(
            x: roi.minX + rect.minX * roi.width, y: roi.minY + rect.minY * roi.height, width: rect.width * roi.width,
            height: rect.height * roi.height)
    }

    static func iou(_ a: CGRect, _ b: CGRect) -> Double {
        let i = a.intersection(b)
        guard !i.isNull, i.width > 0, i.height > 0 else { return 0 }
        let inter = Double(i.width * i.height)
        return inter / (Double(a.width * a.height) + Double(b.width * b.height) - inter)
    }

    static func humans(_ image: String, roi: CGRect?, upperBodyOnly: Bool) throws -> [VNHumanObservation] {
        let request = VNDetectHumanRectanglesRequest()
        request.upperBodyOnly = upperBodyOnly
        if let roi { request.regionOfInterest = roi }
        try VNImageRequestHandler(url: try TestFiles.installed(image)).perform([request])
        return try #require(request.results)
    }

    @Test("Human rectangles in a region: the same person, normalized to the region", arguments: [false, true])
    func humanRectanglesInARegion(upperBodyOnly: Bool) throws {
        let whole = try Self.humans("astronaut.png", roi: nil, upperBodyOnly: upperBodyOnly)
        try #require(whole.count == 1)
        // Regions holding all of her box, as wide as the picture and narrower.
        let box = whole[0].boundingBox
        for margin in [0.02, 0.1] {
            let roi = box.insetBy(dx: -margin, dy: -margin).intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
            let found = try Self.humans("astronaut.png", roi: roi, upperBodyOnly: upperBodyOnly)
            try #require(found.count == 1, "region \(roi): \(found.map(\.boundingBox))")
            let r = found[0].boundingBox
            #expect(r.minX >= -1e-6 && r.minY >= -1e-6 && r.maxX <= 1 + 1e-6 && r.maxY <= 1 + 1e-6, "\(r)")
            #expect(r.width > 0.3 && r.height > 0.3, "a box normalized to the region fills much of it: \(r)")
            let back = Self.inImage(r, roi: roi)
            #expect(Self.iou(back, box) > 0.75, "region \(roi): \(back) vs \(box)")
        }
    }

    /// Square regions of half and three tenths of the picture's sides, on a grid.
    static let grid: [CGRect] = stride(from: 0.0, through: 0.5, by: 0.25).flatMap { x in
        stride(from: 0.0, through: 0.5, by: 0.25).flatMap { y in
            [0.5, 0.3].map { s in CGRect(x: x, y: y, width: s, height: s) }
        }
    }

    @Test("No person in a region of a picture that has none (a cat's face, enlarged, is no person)")
    func noPersonInACatCrop() throws {
        #expect(try Self.humans("chelsea.png", roi: nil, upperBodyOnly: false).isEmpty)
        for roi in Self.grid + [CGRect(x: 0.25, y: 0.2, width: 0.5, height: 0.7), CGRect(x: 0, y: 0, width: 0.5, height: 1)] {
            for upper in [false, true] {
                let found = try Self.humans("chelsea.png", roi: roi, upperBodyOnly: upper)
                #expect(found.isEmpty, "region \(roi), upper body \(upper): \(found.map { ($0.boundingBox, $0.confidence) })")
            }
        }
    }

    @Test("A region of a portrait holds at most its one person, and no box is degenerate")
    func partsOfAPortrait() throws {
        let whole = try Self.humans("astronaut.png", roi: nil, upperBodyOnly: false)
        try #require(whole.count == 1)
        for roi in Self.grid {
            let found = try Self.humans("astronaut.png", roi: roi, upperBodyOnly: false)
            #expect(found.count <= 1, "region \(roi): \(found.map(\.boundingBox))")
            for person in found {
                #expect(person.boundingBox.width > 0.2 && person.boundingBox.height > 0.2, "region \(roi): \(person.boundingBox)")
                #expect(Self.iou(Self.inImage(person.boundingBox, roi: roi), whole[0].boundingBox.intersection(roi)) > 0.9)
            }
        }
    }

    @Test("Body pose and faces in a region report the same joints as without it")
    func bodyPoseInARegion() throws {
        let url = try TestFiles.installed("astronaut.png")
        let plain = VNDetectHumanBodyPoseRequest(), inRegion = VNDetectHumanBodyPoseRequest()
        let roi = CGRect(x: 0.05, y: 0.0, width: 0.9, height: 0.95)
        inRegion.regionOfInterest = roi
        try VNImageRequestHandler(url: url).perform([plain, inRegion])
        let a = try #require(plain.results?.first), b = try #require(inRegion.results?.first)
        for joint in [VNHumanBodyPoseObservation.JointName.nose, .leftShoulder, .rightShoulder] {
            let p = try a.recognizedPoint(joint), q = try b.recognizedPoint(joint)
            let back = CGPoint(x: roi.minX + q.location.x * roi.width, y: roi.minY + q.location.y * roi.height)
            #expect(abs(back.x - p.location.x) < 0.005 && abs(back.y - p.location.y) < 0.005, "\(joint): \(back) vs \(p.location)")
        }
    }
}

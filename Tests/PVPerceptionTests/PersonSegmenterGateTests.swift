import PVImaging
import Testing

@testable import PVPerception

/// The fast and balanced levels' person gate: face regions first, the pose detector when they leave mask out.
@Suite struct PersonSegmenterGateTests {
    typealias Region = PersonSegmenter.PersonRegion

    @Test func faceRegionCoversTheBodyBelowTheFace() {
        // A 40-px face centred at (120, 70): the region spans x 120 ± 200 and y 190 ± 200.
        let r = Region(face: BoundingBox(xMin: 100, yMin: 50, xMax: 140, yMax: 90))
        #expect(r.weight([120, 70]) == 1)
        #expect(r.weight([120, 300]) == 1, "the body below")
        #expect(r.weight([250, 200]) == 1, "an outstretched arm")
        #expect(r.weight([300, 200]) > 0.5 && r.weight([300, 200]) < 1, "feathered towards the edge")
        #expect(r.weight([120, 420]) == 0 && r.weight([350, 70]) == 0, "beyond five face sizes")
    }

    @Test func massOutsideIsTheShareTheGateRemoves() throws {
        var mask = try PixelBuffer(width: 100, height: 100, format: .oneComponent32Float)
        let stride = mask.bytesPerRow() / 4
        mask.withUnsafeMutableBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            for y in 10..<40 { for x in 10..<40 { m[y * stride + x] = 1 } }  // 900 near the face
            for y in 70..<80 { for x in 85..<100 { m[y * stride + x] = 1 } }  // 150 far from it
        }
        // Image pixels = mask pixels here; the face region spans x 25 ± 25 and y 40 ± 25 (sizes 5 px).
        let near = Region(face: BoundingBox(xMin: 22.5, yMin: 22.5, xMax: 27.5, yMax: 27.5))
        let share = PersonSegmenter.massOutside(mask, imageWidth: 100, imageHeight: 100, regions: [near])
        #expect(share > 150.0 / 1050 && share < 0.6, "the far blob and the near one's feathered edge: \(share)")
        let wide = Region(face: BoundingBox(xMin: 45, yMin: 10, xMax: 65, yMax: 30))
        #expect(PersonSegmenter.massOutside(mask, imageWidth: 100, imageHeight: 100, regions: [wide]) < 0.01)
        #expect(PersonSegmenter.massOutside(mask, imageWidth: 100, imageHeight: 100, regions: []) == 1)
        let empty = try PixelBuffer(width: 8, height: 8, format: .oneComponent32Float)
        #expect(PersonSegmenter.massOutside(empty, imageWidth: 8, imageHeight: 8, regions: []) == 0)
    }

    /// The accurate level searches further only for selfie regions standing apart from every found person.
    @Test func unaccountedRegionsStandApart() throws {
        // A 512×288 image: one mask pixel is 2×2 image pixels.
        var selfie = try PixelBuffer(width: 256, height: 144, format: .oneComponent32Float)
        let stride = selfie.bytesPerRow() / 4
        selfie.withUnsafeMutableBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            for y in 20..<120 { for x in 20..<60 { m[y * stride + x] = 0.9 } }  // the found person
            for y in 20..<120 { for x in 60..<80 { m[y * stride + x] = 0.9 } }  // a flag in their hand, touching them
            for y in 30..<130 { for x in 180..<220 { m[y * stride + x] = 0.9 } }  // someone else, apart
        }
        let image = try PixelBuffer(width: 512, height: 288, format: .rgba32)
        let person = PersonProposalsTests.person(from: [40, 40], to: [120, 240], presence: 1)
        let regions = PersonSegmenter.unaccountedRegions(selfie, image: image, found: [person])
        #expect(regions.count == 1)
        #expect(abs((regions.first?.box.xMin ?? 0) - 360) < 1e-9 && abs((regions.first?.box.xMax ?? 0) - 440) < 1e-9)
        #expect(PersonSegmenter.unaccountedRegions(selfie, image: image, found: []).count == 2, "both blobs when nobody is found")
    }

    /// Two people side by side at the accurate level: inside each one's region their own pose mask decides, so the
    /// people's masks must be merged, not one replacing the other; outside every region the selfie mask stays.
    @Test func accurateLevelMergesEachPersonsPoseMask() throws {
        let canvas = try PoseTestImages.twoAstronauts()
        let mask = try PersonSegmenter(quality: .accurate).segment(canvas)
        try #require(mask.width == 1024 && mask.height == 512)
        for own in [0, 512] {
            #expect(PoseTestImages.mean(mask, x: (own + 150)..<(own + 300), y: 300..<480) > 0.8, "torso at x \(own)")
        }
        // The rows above both heads stay background.
        #expect(PoseTestImages.mean(mask, x: 0..<1024, y: 0..<20) < 0.2)
    }
}

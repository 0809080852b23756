import PVImaging
import Testing

@testable import PVPerception

@Suite struct PersonProposalsTests {
    /// Regions are the mask's 8-connected blobs above 0.5, mapped into the tile; small blobs and blobs spanning the
    /// tile's width are left out.
    @Test func regionsOfAMask() {
        let w = PersonProposals.maskWidth, h = PersonProposals.maskHeight
        var mask = [Float](repeating: 0, count: w * h)
        func fill(_ xs: Range<Int>, _ ys: Range<Int>, _ v: Float = 0.9) {
            for y in ys { for x in xs { mask[y * w + x] = v } }
        }
        fill(10..<30, 20..<80)  // a person-sized blob
        fill(30..<31, 80..<81)  // touching it diagonally: the same region
        fill(100..<104, 10..<14)  // 16 px: too small
        fill(150..<256, 60..<70)  // reaches the right edge only: kept
        fill(0..<256, 100..<110)  // spans the tile's width: a crowd or a wall, left out
        fill(200..<210, 20..<30, 0.4)  // below the threshold
        // A 512×288 tile whose top-left corner is at (100, 50): two pixels per mask pixel.
        let tile = RotatedRect(centerX: 356, centerY: 194, width: 512, height: 288)
        let regions = PersonProposals.regions(of: mask, tile: tile).sorted { $0.box.xMin < $1.box.xMin }
        #expect(regions.count == 2)
        guard regions.count == 2 else { return }
        let a = regions[0].box, b = regions[1].box
        #expect(abs(a.xMin - 120) < 1e-9 && abs(a.xMax - 162) < 1e-9 && abs(a.yMin - 90) < 1e-9 && abs(a.yMax - 212) < 1e-9)
        #expect(abs(b.xMin - 400) < 1e-9 && abs(b.xMax - 612) < 1e-9)
        // Weight: summed probability in image pixels (4 per mask pixel).
        #expect(abs(regions[0].weight - Double(Float(0.9)) * 4 * Double(20 * 60 + 1)) < 1e-6)
        // The landmark ROI is upright, square, centred, 1.25 × the longer side.
        let roi = PersonProposals.roi(for: regions[0])
        #expect(roi.angle == 0 && abs(roi.width - 1.25 * 122) < 1e-9 && abs(roi.centerX - 141) < 1e-9)

        // Clearing a found person's box parts the blob of someone whose arm reaches into it: a 60-px bar joining
        // two blobs becomes two regions once its middle (a found person) is blanked; the blanked part is no region.
        var joined = [Float](repeating: 0, count: w * h)
        for y in 20..<80 { for x in 10..<200 { joined[y * w + x] = 0.9 } }
        #expect(PersonProposals.regions(of: joined, tile: tile).count == 1)
        let found = BoundingBox(xMin: 100 + 2 * 80, yMin: 0, xMax: 100 + 2 * 120, yMax: 400)
        let parted = PersonProposals.regions(of: joined, tile: tile, excluding: [found]).sorted { $0.box.xMin < $1.box.xMin }
        #expect(parted.count == 2)
        #expect(parted.allSatisfy { $0.box.xMax <= found.xMin || $0.box.xMin >= found.xMax })

        // A region may span the tile's height (a standing person joined to the legs of someone behind).
        var tall = [Float](repeating: 0, count: w * h)
        for y in 0..<h { for x in 60..<70 { tall[y * w + x] = 0.9 } }
        let standing = PersonProposals.regions(of: tall, tile: tile)
        #expect(standing.count == 1 && abs((standing.first?.box.yMin ?? 0) - 50) < 1e-9 && abs((standing.first?.box.yMax ?? 0) - 338) < 1e-9)
    }

    static func person(from a: SIMD2<Double>, to b: SIMD2<Double>, presence: Double) -> PersonPose {
        let points = (0..<33).map { i in a + (b - a) * Double(i) / 32 }
        return PersonPose(
            landmarks: points.map { Landmark(x: $0.x, y: $0.y) }, worldLandmarks: [], auxiliaryLandmarks: [],
            roi: RotatedRect(centerX: 0, centerY: 0, width: 1, height: 1), detectionScore: nil, presence: presence,
            segmentation: nil)
    }

    /// A proposal's person joins only when sure, centred in its region, about as large as it, and new.
    @Test func acceptanceRule() {
        let region = PersonProposals.Region(box: BoundingBox(xMin: 100, yMin: 100, xMax: 200, yMax: 300), weight: 1)
        let good = Self.person(from: [120, 110], to: [180, 290], presence: 0.95)
        #expect(PoseLandmarker.accepts(good, from: region, among: [], duplicateIoU: 0.5))
        // Unsure.
        #expect(!PoseLandmarker.accepts(Self.person(from: [120, 110], to: [180, 290], presence: 0.8), from: region, among: [], duplicateIoU: 0.5))
        // A tiny "person" in a large region (a logo read as a body): 40 px against 200.
        #expect(!PoseLandmarker.accepts(Self.person(from: [140, 180], to: [160, 220], presence: 0.99), from: region, among: [], duplicateIoU: 0.5))
        // Someone outside the region (the ROI drifted to a neighbour).
        #expect(!PoseLandmarker.accepts(Self.person(from: [220, 110], to: [300, 290], presence: 0.99), from: region, among: [], duplicateIoU: 0.5))
        // Touching (within 2 px) or overlapping boxes, for the rule that drops small leftovers beside a found person.
        let known = BoundingBox(xMin: 0, yMin: 0, xMax: 100, yMax: 100)
        #expect(PoseLandmarker.touches(BoundingBox(xMin: 101, yMin: 10, xMax: 150, yMax: 50), known))
        #expect(!PoseLandmarker.touches(BoundingBox(xMin: 103, yMin: 10, xMax: 150, yMax: 50), known))
        #expect(PoseLandmarker.touches(BoundingBox(xMin: 50, yMin: 50, xMax: 150, yMax: 150), known))
        // Someone already found.
        let found = Self.person(from: [118, 112], to: [182, 288], presence: 1)
        #expect(!PoseLandmarker.accepts(good, from: region, among: [found], duplicateIoU: 0.5))
    }

    /// A result whose nose lies on a found person's head is that person read again, however the rest of the body
    /// came out; a nose a face away is someone else.
    @Test func aSharedHeadIsTheSamePerson() throws {
        func person(nose: SIMD2<Double>, hips: SIMD2<Double>, earSpan: Double) -> PersonPose {
            var p = Self.person(from: nose, to: hips, presence: 1)
            p.landmarks[0] = Landmark(x: nose.x, y: nose.y)
            p.landmarks[7] = Landmark(x: nose.x + earSpan / 2, y: nose.y)
            p.landmarks[8] = Landmark(x: nose.x - earSpan / 2, y: nose.y)
            return p
        }
        let found = person(nose: [100, 50], hips: [100, 250], earSpan: 40)
        // The same head with a body half as long (a crop that showed less of her): boxes overlap by about 0.5 only.
        let again = person(nose: [108, 58], hips: [105, 150], earSpan: 36)
        #expect(found.landmarkBoundingBox.intersectionOverUnion(with: again.landmarkBoundingBox) <= 0.55)
        #expect(PoseLandmarker.sharesAHead(again, with: [found]))
        let region = PersonProposals.Region(box: BoundingBox(xMin: 60, yMin: 30, xMax: 150, yMax: 170), weight: 1)
        #expect(!PoseLandmarker.accepts(again, from: region, among: [found], duplicateIoU: 0.5))
        // Someone cheek to cheek with her: noses an ear span (40 px) apart.
        #expect(!PoseLandmarker.sharesAHead(person(nose: [140, 52], hips: [135, 250], earSpan: 40), with: [found]))
        #expect(PoseLandmarker.sharesAHead(person(nose: [125, 60], hips: [135, 250], earSpan: 40), with: [found]))

        // End to end: the astronaut on a 4000×300 strip was found twice (the second a shorter body under the same
        // head, its nose 23 px from hers, from a tile).
        let astronaut = try PoseTestImages.astronaut().resized(width: 300, height: 300)
        let strip = try astronaut.pasted(onto: 4000, 300, at: [(1800, 0)], fill: 0)
        let people = try PoseTestImages.landmarker().detectMultiScale(in: strip, maxPeople: 8)
        #expect(people.count == 1)
    }

    /// Where the detector finds everyone, the proposals add nobody and change nobody.
    @Test func addNothingWhereTheDetectorFoundEveryone() throws {
        let landmarker = try PoseTestImages.landmarker()
        var off = PoseLandmarker.MultiScaleOptions()
        off.segmentationProposals = false
        for image in [try PoseTestImages.astronaut(), try PoseTestImages.twoAstronauts()] {
            let without = try landmarker.detectMultiScale(in: image, maxPeople: 8, options: off)
            let with = try landmarker.detectMultiScale(in: image, maxPeople: 8)
            #expect(!without.isEmpty && with.count == without.count)
            for (a, b) in zip(with, without) { #expect(a.landmarks.map(\.position) == b.landmarks.map(\.position)) }
        }
        var bad = PoseLandmarker.MultiScaleOptions()
        bad.maxProposalRuns = 65
        #expect(throws: PerceptionError.self) { try landmarker.detectMultiScale(in: try PoseTestImages.astronaut(), maxPeople: 8, options: bad) }
    }
}

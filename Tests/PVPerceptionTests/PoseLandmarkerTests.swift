import Foundation
import PVImaging
import PVTestSupport
import Testing

@testable import PVPerception

/// Images and landmarkers shared by the pose tests (models load once per process).
enum PoseTestImages {
    /// scikit-image's astronaut.png, 512×512 RGBA: one person, upper body, face near (223, 128) px.
    static func astronaut() throws -> PixelBuffer {
        try ImageDecoder.decode(contentsOf: TestFiles.installed("astronaut.png")).pixels.converted(to: .rgba32)
    }

    /// The astronaut twice, side by side, on a 1024×512 canvas.
    static func twoAstronauts() throws -> PixelBuffer {
        try astronaut().pasted(onto: 1024, 512, at: [(0, 0), (512, 0)], fill: 0)
    }

    static func landmarker(_ configure: (inout PoseLandmarker.Options) -> Void = { _ in }) throws -> PoseLandmarker {
        var options = PoseLandmarker.Options()
        configure(&options)
        return try PoseLandmarker(options: options, threads: 2)
    }

    /// Mean of a float mask over a pixel box.
    static func mean(_ mask: PixelBuffer, x: Range<Int>, y: Range<Int>) -> Float {
        let stride = mask.bytesPerRow() / 4
        return mask.withUnsafeBytes { b in
            let f = b.bindMemory(to: Float.self)
            var s: Float = 0
            for yy in y { for xx in x { s += f[yy * stride + xx] } }
            return s / Float(x.count * y.count)
        }
    }
}

@Suite("PoseLandmarker on real images", .serialized)
struct PoseLandmarkerTests {
    @Test func astronautIsOnePersonWithPlausibleLandmarks() throws {
        let image = try PoseTestImages.astronaut()
        let people = try PoseTestImages.landmarker { $0.segmentation = .fullImage }.detect(in: image)
        try #require(people.count == 1)
        let p = people[0]
        let W = 512.0, H = 512.0
        #expect(p.presence > 0.9 && (p.detectionScore ?? 0) > 0.5)
        #expect(p.landmarks.count == 33 && p.worldLandmarks.count == 33 && p.auxiliaryLandmarks.count == 2)
        let nose = p.landmarks[0], leftEye = p.landmarks[2], rightEye = p.landmarks[5]
        let leftShoulder = p.landmarks[11], rightShoulder = p.landmarks[12]
        // Looked up in the image: nose ≈ (223, 128), eyes ≈ (205, 104) and (245, 110), shoulders ≈ (110, 245) and (305, 255).
        #expect((0.39 * W...0.49 * W).contains(nose.x) && (0.2 * H...0.3 * H).contains(nose.y))
        #expect(leftEye.x > nose.x && rightEye.x < nose.x, "subject's left eye is on the image's right")
        #expect(leftEye.y < nose.y && rightEye.y < nose.y && leftEye.y > 0.15 * H)
        #expect(leftShoulder.x > 0.5 * W && rightShoulder.x < 0.3 * W)
        #expect((0.4 * H...0.6 * H).contains(leftShoulder.y) && (0.4 * H...0.6 * H).contains(rightShoulder.y))
        #expect(nose.visibility! > 0.9 && nose.presence! > 0.9)
        // Hips are below the frame.
        #expect(p.landmarks[23].y > H * 0.9)
        // World: metres, origin at the hip midpoint, shoulders ~0.3–0.45 m apart, head above the hips (y down).
        let ws = p.worldLandmarks[11].position - p.worldLandmarks[12].position
        #expect((0.25...0.5).contains((ws * ws).sum().squareRoot()))
        #expect(p.worldLandmarks[0].y < -0.4)
        let hips = (p.worldLandmarks[23].position + p.worldLandmarks[24].position) / 2
        #expect(abs(hips.x) < 0.05 && abs(hips.y) < 0.05)
        #expect(p.worldLandmarks[0].visibility == nose.visibility)
        // ROI: square, about upright (kp0 → kp1 points up), centred near the hips.
        #expect(p.roi.width == p.roi.height && abs(p.roi.angle) < 0.3)

        // Mask covers the person: torso (orange suit) inside, background corner outside.
        let seg = try #require(p.segmentation)
        let full = try #require(seg.fullImage)
        #expect(full.width == 512 && full.height == 512 && full.format == .oneComponent32Float)
        #expect(PoseTestImages.mean(full, x: 150..<300, y: 300..<480) > 0.8)
        #expect(PoseTestImages.mean(full, x: 472..<512, y: 0..<40) < 0.2)
        #expect(PoseTestImages.mean(full, x: 0..<30, y: 0..<30) < 0.2)
        #expect(PoseTestImages.mean(full, x: 200..<250, y: 60..<160) > 0.8, "head")
        // The on-demand warp gives the same mask; a smaller target samples the same image positions.
        let again = try seg.warped(width: 512, height: 512)
        #expect(PoseTestImages.mean(again, x: 0..<512, y: 0..<512) == PoseTestImages.mean(full, x: 0..<512, y: 0..<512))
        let half = try seg.warped(width: 256, height: 256)
        #expect(abs(PoseTestImages.mean(half, x: 75..<150, y: 150..<240) - PoseTestImages.mean(full, x: 150..<300, y: 300..<480)) < 0.02)
    }

    /// At 1024×512 each astronaut is 112 px wide in the detector's 224² input, and the detector scores the two
    /// identical copies 0.71 (right) and 0.49 (left); MediaPipe's own uint8 preprocessing gives the same 0.49. So
    /// this runs with a detection threshold of 0.4 (the tiled variant below finds both at the default 0.5).
    @Test func twoPeopleSideBySide() throws {
        let canvas = try PoseTestImages.twoAstronauts()
        let people = try PoseTestImages.landmarker { $0.minDetectionScore = 0.4 }.detect(in: canvas)
        try #require(people.count == 2)
        let noses = people.map(\.landmarks[0]).sorted { $0.x < $1.x }
        let single = try PoseTestImages.landmarker().detect(in: PoseTestImages.astronaut())[0].landmarks[0]
        // Each person is found where the single image has them, to within 3 % of the person's frame.
        #expect(abs(noses[0].x - single.x) < 15 && abs(noses[0].y - single.y) < 15)
        #expect(abs(noses[1].x - 512 - single.x) < 15 && abs(noses[1].y - single.y) < 15)
        // Each mask belongs to its person: high on its own torso, low on the other's.
        for p in people {
            let mask = try p.segmentation!.warped(width: 1024, height: 512)
            let own = p.landmarks[0].x < 512 ? 0 : 512
            #expect(PoseTestImages.mean(mask, x: (own + 150)..<(own + 300), y: 300..<480) > 0.8)
            #expect(PoseTestImages.mean(mask, x: (512 - own + 150)..<(512 - own + 300), y: 300..<480) < 0.2)
        }
        // maxPeople caps the count.
        let capped = try PoseTestImages.landmarker {
            $0.minDetectionScore = 0.4
            $0.maxPeople = 1
        }.detect(in: canvas)
        #expect(capped.count == 1 && capped[0].landmarks[0].x > 512, "the higher-scoring (right) copy")
        #expect(try PoseTestImages.landmarker().detect(in: canvas).count == 1, "left copy scores 0.49 < 0.5")
    }

    /// Landmark runs two at a time give exactly what one after the other gives, on people side by side and on
    /// the same detections repeated (which the merge must drop or swap as the sequential loop would), including
    /// repeats next to each other, past which the next run's partner is looked for.
    @Test func sideBySideLandmarkRunsMatchSequentialOnes() throws {
        let landmarker = try PoseTestImages.landmarker()
        let image = try PoseTestImages.twoAstronauts()
        let detections = try landmarker.detector.detect(in: image, minScore: 0.3)
        #expect(detections.count >= 2)
        for list in [detections, detections + detections.reversed(), detections.flatMap { [$0, $0] }] {
            var one: [PersonPose] = [], two: [PersonPose] = []
            try landmarker.runLandmarks(
                for: list, in: image, into: &one, maxPeople: 8, runs: nil, sideBySide: false, skip: { _, _ in false }
            ) { landmarker.add($0, to: &$1) }
            try landmarker.runLandmarks(
                for: list, in: image, into: &two, maxPeople: 8, runs: nil, sideBySide: true, skip: { _, _ in false }
            ) { landmarker.add($0, to: &$1) }
            #expect(one.count == 2 && two.count == one.count)
            for (a, b) in zip(one, two) {
                #expect(a.landmarks.map(\.position) == b.landmarks.map(\.position))
                #expect(a.presence == b.presence && a.detectionScore == b.detectionScore)
            }
            // With a skip rule that depends on the people merged so far, and a budget of one.
            var three: [PersonPose] = [], four: [PersonPose] = []
            try landmarker.runLandmarks(
                for: list, in: image, into: &three, maxPeople: 1, runs: nil, sideBySide: false,
                skip: PoseLandmarker.isOnAFoundHead
            ) { landmarker.add($0, to: &$1) }
            try landmarker.runLandmarks(
                for: list, in: image, into: &four, maxPeople: 1, runs: nil, sideBySide: true,
                skip: PoseLandmarker.isOnAFoundHead
            ) { landmarker.add($0, to: &$1) }
            #expect(three.count == 1 && four.count == 1)
            #expect(three.first?.landmarks.map(\.position) == four.first?.landmarks.map(\.position))
        }
    }

    /// Tiles are searched beside the whole-image detector and, with one whole-image detection, beside its landmark
    /// run: exactly the result of searching them after both. The twin picture's left copy is found only through a tile.
    @Test func tilesSearchedBesideTheLandmarkRunChangeNothing() throws {
        let landmarker = try PoseTestImages.landmarker()
        let image = try PoseTestImages.twoAstronauts()
        #expect(try landmarker.detector.detect(in: image, minScore: landmarker.options.minDetectionScore).count == 1)
        let options = PoseLandmarker.MultiScaleOptions()
        let after = try landmarker.detectMultiScale(in: image, maxPeople: 8, options: options, tilesBeside: false)
        let beside = try landmarker.detectMultiScale(in: image, maxPeople: 8, options: options, tilesBeside: true)
        #expect(after.count == 2 && beside.count == after.count)
        for (a, b) in zip(after, beside) {
            #expect(a.landmarks.map(\.position) == b.landmarks.map(\.position))
            #expect(a.presence == b.presence && a.detectionScore == b.detectionScore)
        }
    }

    /// Starting from a whole-image result already at hand (as the accurate segmentation does) gives the search's own
    /// result, without a second whole-image pass; a result capped by `maxPeople` stays capped.
    @Test func searchStartsFromAWholeImageResultAtHand() throws {
        let landmarker = try PoseTestImages.landmarker()
        let image = try PoseTestImages.twoAstronauts()
        let whole = try landmarker.detect(in: image)
        #expect(whole.count == 1)
        let options = PoseLandmarker.MultiScaleOptions()
        let own = try landmarker.detectMultiScale(in: image, maxPeople: 8, options: options, tilesBeside: false)
        let given = try landmarker.detectMultiScale(in: image, maxPeople: 8, options: options, tilesBeside: false, wholeImage: whole)
        #expect(own.count == 2 && given.count == own.count)
        for (a, b) in zip(own, given) {
            #expect(a.landmarks.map(\.position) == b.landmarks.map(\.position))
        }
        let capped = try landmarker.detectMultiScale(
            in: image, maxPeople: 1, options: options, tilesBeside: false, wholeImage: whole + whole)
        #expect(capped.count == 1 && capped[0].landmarks.map(\.position) == whole[0].landmarks.map(\.position))
    }

    @Test func tilingMergesRepeatedDetections() throws {
        let landmarker = try PoseTestImages.landmarker { $0.detectorTiling = .grid2x2 }
        let one = try landmarker.detect(in: PoseTestImages.astronaut())
        #expect(one.count == 1)
        // The tiles see each copy at twice the whole-image resolution: both found at the default threshold.
        let two = try landmarker.detect(in: PoseTestImages.twoAstronauts())
        #expect(two.count == 2)
        #expect(Set(two.map { $0.landmarks[0].x > 512 }) == [false, true])
    }

    @Test func pixelFormatsGiveTheSameResult() throws {
        let rgba = try PoseTestImages.astronaut()
        let landmarker = try PoseTestImages.landmarker { $0.segmentation = .none }
        let reference = try landmarker.detect(in: rgba)[0]
        #expect(reference.segmentation == nil)
        for format in [PixelFormat.bgra32, .rgb24] {
            let people = try landmarker.detect(in: rgba.converted(to: format))
            try #require(people.count == 1, "\(format)")
            for (a, b) in zip(people[0].landmarks, reference.landmarks) {
                #expect(abs(a.x - b.x) < 1e-3 && abs(a.y - b.y) < 1e-3, "\(format)")
            }
        }
    }

    @Test func emptyImageHasNobody() throws {
        var grey = try PixelBuffer(width: 320, height: 240, format: .rgba32)
        grey.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 128) }
        #expect(try PoseTestImages.landmarker().detect(in: grey).isEmpty)
    }

    @Test func landmarksFromAGivenROI() throws {
        let image = try PoseTestImages.astronaut()
        let landmarker = try PoseTestImages.landmarker()
        let detected = try landmarker.detect(in: image)[0]
        let tracked = try #require(try landmarker.landmarks(in: image, roi: detected.roi))
        #expect(tracked.detectionScore == nil)
        #expect(abs(tracked.landmarks[0].x - detected.landmarks[0].x) < 1e-6)
        // A ROI on the background: presence too low, no result.
        let sky = RotatedRect(centerX: 480, centerY: 30, width: 60, height: 60)
        #expect(try landmarker.landmarks(in: image, roi: sky) == nil)
    }
}

@Suite("PoseLandmarker options and de-duplication")
struct PoseOptionsTests {
    @Test func rejectsBadOptions() {
        let bad: [(inout PoseLandmarker.Options) -> Void] = [
            { $0.maxPeople = 0 }, { $0.minDetectionScore = 1.5 }, { $0.minPresence = -0.1 },
            { $0.heatmapKernelSize = 8 }, { $0.duplicateIoU = 2 },
            { $0.detectorTiling = PoseDetector.Tiling(columns: 0, rows: 2) },
            { $0.detectorTiling = PoseDetector.Tiling(columns: 2, rows: 2, overlap: 0.95) },
        ]
        for configure in bad {
            #expect(throws: PerceptionError.self) { try PoseTestImages.landmarker(configure) }
        }
    }

    func person(_ points: [SIMD2<Double>], presence: Double = 0.9) -> PersonPose {
        PersonPose(
            landmarks: points.map { Landmark(x: $0.x, y: $0.y) }, worldLandmarks: [], auxiliaryLandmarks: [],
            roi: RotatedRect(centerX: 0, centerY: 0, width: 1, height: 1), detectionScore: 1, presence: presence,
            segmentation: nil)
    }

    @Test func samePersonNeedsOverlapAndCloseLandmarks() throws {
        let landmarker = try PoseTestImages.landmarker()
        // A 100×200 px stick figure.
        let body: [SIMD2<Double>] = (0..<33).map { (i: Int) -> SIMD2<Double> in
            let x: Double = 100 + Double(i % 5) * 25
            let y: Double = 50 + Double(i) * 6.25
            return SIMD2(x, y)
        }
        let a = person(body)
        let moved: [SIMD2<Double>] = body.map { $0 + SIMD2<Double>(4, -3) }
        let beside: [SIMD2<Double>] = body.map { $0 + SIMD2<Double>(200, 0) }
        #expect(landmarker.isSamePerson(a, person(moved)), "slightly moved: same")
        #expect(!landmarker.isSamePerson(a, person(beside)), "side by side: different")
        // Same box, landmarks scrambled (someone standing behind): boxes overlap fully, landmarks do not match.
        #expect(!landmarker.isSamePerson(a, person(body.reversed())))
    }

    @Test func tiles() {
        let tiles = PoseDetector.Tiling.grid2x2.tiles(width: 1750, height: 875)
        #expect(tiles.count == 4)
        // Tile width W/(2 − 0.25) = 1000, step 750: tiles span 0…1000 and 750…1750.
        #expect(abs(tiles[0].width - 1000) < 1e-9 && abs(tiles[0].centerX - 500) < 1e-9)
        #expect(abs(tiles[3].centerX - 1250) < 1e-9 && abs(tiles[3].centerY - 625) < 1e-9)
    }
}

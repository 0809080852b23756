import Foundation
import PVImaging
import PVTestSupport
import Testing

@testable import PVPerception

@Suite("HandLandmarker", .serialized)
struct HandLandmarkerTests {
    static func landmarker(_ configure: (inout HandLandmarker.Options) -> Void = { _ in }) throws -> HandLandmarker {
        var options = HandLandmarker.Options()
        configure(&options)
        return try HandLandmarker(options: options, threads: 2)
    }

    /// Palm detector + one landmark pass, as MediaPipe's static-image mode runs: the same hands, every landmark
    /// within 2 % of the image size, the same handedness.
    @Test func matchesMediaPipeOnEveryCase() throws {
        let golden = try HandGolden.load()
        #expect(golden.schemaVersion == 1)
        #expect(golden.cases.contains { !$0.hands.isEmpty } && golden.cases.contains { $0.hands.isEmpty })
        let landmarker = try Self.landmarker {
            $0.recropPasses = 0
            $0.bodyWristSearch = .never
        }
        for c in golden.cases {
            let image = try HandGolden.image(c)
            #expect(image.width == c.width && image.height == c.height, "\(c.name)")
            let hands = try landmarker.detect(in: image)
            try #require(hands.count == c.hands.count, "\(c.name): \(hands.count) hands, MediaPipe \(c.hands.count)")
            let W = Double(c.width), H = Double(c.height), size = max(W, H)
            var maxError = 0.0
            for ref in c.hands {
                // Match by wrist position.
                let wrist = SIMD2(ref.landmarks[0][0] * W, ref.landmarks[0][1] * H)
                let hand = try #require(hands.min { a, b in
                    let da = a.landmarks[0].position - wrist, db = b.landmarks[0].position - wrist
                    return (da * da).sum() < (db * db).sum()
                })
                for (i, (ours, theirs)) in zip(hand.landmarks, ref.landmarks).enumerated() {
                    let d = ours.position - SIMD2(theirs[0] * W, theirs[1] * H)
                    let e = (d * d).sum().squareRoot()
                    maxError = max(maxError, e)
                    #expect(e < 0.02 * size, "\(c.name) landmark \(i): \(e) px from MediaPipe")
                    #expect(abs(ours.z - theirs[2] * W) < 0.05 * size, "\(c.name) landmark \(i) z")
                }
                let label = hand.handednessScore > 0.5 ? "Left" : "Right"
                #expect(label == ref.mediapipeLabel, "\(c.name): MediaPipe's own label")
                #expect(abs(hand.sideConfidence - ref.mediapipeScore) < 0.02, "\(c.name) handedness score")
                #expect((hand.side == .left ? "left" : "right") == ref.side, "\(c.name): the anatomical side is the opposite label")
                #expect(hand.source == .palm && (hand.detectionScore ?? 0) >= 0.5 && hand.presence > 0.5)
            }
            if !c.hands.isEmpty { print("hand parity \(c.name): max \(maxError) px") }
        }
    }

    /// MediaPipe's handedness assumes a mirrored selfie: its "Left" (score > 0.5) is the subject's right hand on an
    /// ordinary photo.
    @Test func handednessMeansTheOtherHandOnAPhoto() {
        func hand(_ p: Double) -> HandPose {
            HandPose(
                landmarks: [], worldLandmarks: [], roi: RotatedRect(centerX: 0, centerY: 0, width: 1, height: 1), presence: 0.9,
                handednessScore: p, detectionScore: nil, source: .palm)
        }
        #expect(hand(0.9).side == .right && hand(0.1).side == .left)
        #expect(abs(hand(0.9).sideConfidence - 0.9) < 1e-12 && abs(hand(0.1).sideConfidence - 0.9) < 1e-12)
    }

    /// The re-crop pass (MediaPipe's tracking ROI) keeps the hand where it is.
    @Test func recropKeepsTheHand() throws {
        let golden = try HandGolden.load()
        let c = try #require(golden.cases.first { !$0.hands.isEmpty && !$0.mirrored })
        let image = try HandGolden.image(c)
        let once = try #require(try Self.landmarker { $0.recropPasses = 0; $0.bodyWristSearch = .never }.detect(in: image).first)
        let twice = try #require(try Self.landmarker { $0.recropPasses = 1; $0.bodyWristSearch = .never }.detect(in: image).first)
        #expect(twice.roi != once.roi)
        let d = twice.landmarks[0].position - once.landmarks[0].position
        #expect((d * d).sum().squareRoot() < 0.1 * Double(max(image.width, image.height)))
    }

    @Test func palmROIFollowsTheGraph() {
        // A palm box 40×40 px centred at (100, 100); wrist below the middle knuckle: upright hand, θ = 0.
        let palm = Detection(
            box: BoundingBox(xMin: 80, yMin: 80, xMax: 120, yMax: 120),
            keypoints: [SIMD2(100, 120), SIMD2(90, 90), SIMD2(100, 85), SIMD2(110, 90), SIMD2(115, 95), SIMD2(85, 110), SIMD2(80, 100)],
            score: 0.9)
        let roi = HandLandmarker.roi(forPalm: palm)
        #expect(abs(roi.angle) < 1e-9)
        #expect(abs(roi.width - 104) < 1e-9 && abs(roi.height - 104) < 1e-9, "40 px × 2.6")
        #expect(abs(roi.centerX - 100) < 1e-9 && abs(roi.centerY - 80) < 1e-9, "shifted half a box towards the fingers")
        // Wrist to the right of the knuckle: the hand points left, the ROI turns by −90° (its up is the image's left).
        var sideways = palm
        sideways.keypoints[0] = SIMD2(120, 100)
        sideways.keypoints[2] = SIMD2(85, 100)
        let turned = HandLandmarker.roi(forPalm: sideways)
        #expect(abs(turned.angle + .pi / 2) < 1e-9)
        #expect(abs(turned.centerX - 80) < 1e-9 && abs(turned.centerY - 100) < 1e-9)
    }

    @Test func wristROIFollowsHolistic() throws {
        // Upright hand: wrist (100, 200), index (110, 170), pinky (80, 170) → m = (100, 170), 30 px up.
        let roi = try #require(HandLandmarker.roi(wrist: SIMD2(100, 200), index: SIMD2(110, 170), pinky: SIMD2(80, 170)))
        #expect(abs(roi.angle) < 1e-9)
        #expect(abs(roi.width - 2 * 30 * 2.7) < 1e-9 && roi.width == roi.height)
        #expect(abs(roi.centerX - 100) < 1e-9 && abs(roi.centerY - (200 - 0.1 * 60)) < 1e-9)
        #expect(HandLandmarker.roi(wrist: SIMD2(5, 5), index: SIMD2(5, 5), pinky: SIMD2(5, 5)) == nil)
    }

    @Test func rejectsBadOptions() {
        let bad: [(inout HandLandmarker.Options) -> Void] = [
            { $0.maxHands = 0 }, { $0.maxHands = 65 }, { $0.minDetectionScore = 1.5 }, { $0.minPresence = -1 },
            { $0.recropPasses = 4 }, { $0.maxPalmCandidates = 0 }, { $0.duplicateIoU = 2 }, { $0.minWristVisibility = -0.5 },
            { $0.weakPalmScore = 0.6 }, { $0.weakPalmMinPresence = 2 },
        ]
        for configure in bad {
            #expect(throws: PerceptionError.self) { try Self.landmarker(configure) }
        }
        #expect(throws: PerceptionError.self) { try PalmDetector().detect(in: PixelBuffer(width: 8, height: 8, format: .rgba32), minScore: 2) }
    }

    /// One palm-detector run splits into the palms `detect(in:minScore:)` gives and, apart, weaker ones where no
    /// strong palm is.
    @Test func weakPalmsComeApartFromStrongOnes() throws {
        let detector = try PalmDetector()
        var compared = 0
        for c in try HandGolden.load().cases {
            let image = try HandGolden.image(c)
            let strongOnly = try detector.detect(in: image, minScore: 0.5)
            let (strong, weak) = try detector.detect(in: image, minScore: 0.5, weakScore: 0.05)
            #expect(strong.map(\.box) == strongOnly.map(\.box) && strong.map(\.score) == strongOnly.map(\.score))
            #expect(weak.allSatisfy { $0.score >= 0.05 && $0.score < 0.5 })
            #expect(weak.allSatisfy { w in strong.allSatisfy { $0.box.intersectionOverUnion(with: w.box) <= 0.3 } })
            compared += weak.count
        }
        #expect(compared > 0, "some weak palms were seen")
        #expect(throws: PerceptionError.self) {
            try detector.detect(in: PixelBuffer(width: 8, height: 8, format: .rgba32), minScore: 0.5, weakScore: 0.6)
        }
    }

    @Test func liteModelsLoadAndAgree() throws {
        let golden = try HandGolden.load()
        let c = try #require(golden.cases.first { !$0.hands.isEmpty && !$0.mirrored })
        let image = try HandGolden.image(c)
        // Strong palms only: the models are compared on what both detectors are sure of.
        let full = try #require(
            try Self.landmarker {
                $0.recropPasses = 0
                $0.bodyWristSearch = .never
                $0.weakPalmScore = $0.minDetectionScore
            }.detect(in: image).first)
        let lite = try Self.landmarker {
            $0.palmModel = .lite
            $0.landmarkModel = .lite
            $0.recropPasses = 0
            $0.bodyWristSearch = .never
            $0.weakPalmScore = $0.minDetectionScore
        }
        #expect(lite.palmDetector.model == .lite)
        let wrists = try lite.detect(in: image).map { hand -> Double in
            let d = hand.landmarks[0].position - full.landmarks[0].position
            return (d * d).sum().squareRoot()
        }
        if let nearest = wrists.min() {
            #expect(nearest < 0.15 * Double(max(image.width, image.height)))
        }
    }

    @Test func emptyImageHasNoHands() throws {
        var grey = try PixelBuffer(width: 320, height: 240, format: .rgba32)
        grey.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 128) }
        #expect(try Self.landmarker().detect(in: grey) { [] }.isEmpty)
    }
}

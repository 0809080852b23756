import Foundation
import PVImaging
import PVTestSupport
import Testing

@testable import PVPerception

private func degrees(_ r: Double) -> Double { r * 180 / .pi }

@Suite("Face landmarker: head pose, capture quality, occlusion", .serialized)
struct FaceLandmarkerTests {
    /// Rotating the image in-plane about the face turns the face by the same angle: roll follows it.
    @Test(arguments: [-20.0, -10, 10, 20])
    func rollFollowsImageRotation(angle: Double) throws {
        let image = try FaceTestImages.astronaut()
        let landmarker = try FaceTestImages.landmarker()
        let face = try #require(try landmarker.detect(in: image).first)
        let centre = (face.leftPupil + face.rightPupil) / 2
        let turned = try #require(try landmarker.detect(in: FaceTestImages.rotated(image, degrees: angle, about: centre)).first)
        let change = degrees(ROI.wrapAngle(turned.headPose.roll - face.headPose.roll))
        #expect(abs(change - angle) < 3, "rotating by \(angle)° changed roll by \(change)°")
    }

    /// Roll is continuous: a 1° rotation moves it by about 1°, not by a bin step (or not at all).
    @Test func rollIsContinuous() throws {
        let image = try FaceTestImages.astronaut()
        let landmarker = try FaceTestImages.landmarker()
        let face = try #require(try landmarker.detect(in: image).first)
        let centre = (face.leftPupil + face.rightPupil) / 2
        var previous = face.headPose.roll
        for step in 1...3 {
            let rotated = try FaceTestImages.rotated(image, degrees: Double(step), about: centre)
            let roll = try #require(try landmarker.detect(in: rotated).first).headPose.roll
            let change = degrees(roll - previous)
            #expect(change > 0.5 && change < 1.5, "1° more rotation (step \(step)) changed roll by \(change)°")
            previous = roll
        }
    }

    /// A mirror image negates yaw and roll (within 3°) and keeps pitch; checked on the frontal astronaut and on
    /// her face turned by 20° and 35° (synthetic yaw from the face's own mesh depth).
    @Test(arguments: [0.0, 20, 35])
    func flipNegatesYawAndRoll(turn: Double) throws {
        let name = "astronaut turned \(turn)°"
        let landmarker = try FaceTestImages.landmarker()
        let base = try FaceTestImages.astronaut()
        let face = try #require(try landmarker.detect(in: base).first)
        let image = turn == 0 ? base : try FaceTestImages.turned(base, face: face, degrees: turn)
        let a = try #require(try landmarker.detect(in: image).first).headPose
        let b = try #require(try landmarker.detect(in: FaceTestImages.flipped(image)).first).headPose
        #expect(abs(degrees(a.roll + b.roll)) < 3, "\(name): roll \(degrees(a.roll))° vs flipped \(degrees(b.roll))°")
        #expect(abs(degrees(a.yaw + b.yaw)) < 3, "\(name): yaw \(degrees(a.yaw))° vs flipped \(degrees(b.yaw))°")
        #expect(abs(degrees(a.pitch - b.pitch)) < 5, "\(name): pitch \(degrees(a.pitch))° vs flipped \(degrees(b.pitch))°")
    }

    /// The cameraman's head is turned by about 45°. By Vision's convention (positive = nose toward the image's
    /// right) the sign of yaw must match the side the nose tip sits on relative to the cheeks.
    @Test func yawSignOfATurnedFace() throws {
        let image = try FaceTestImages.camera()
        let face = try #require(try FaceTestImages.landmarker().detect(in: image).first)
        let nose = face.landmarks[1].x, cheeks = (face.landmarks[234].x + face.landmarks[454].x) / 2
        // Where the nose tip sits relative to the cheeks' midpoint tells the direction independently of the
        // pose code.
        let noseTowardRight = nose > cheeks
        #expect(abs(degrees(face.headPose.yaw)) > 20)
        #expect((face.headPose.yaw > 0) == noseTowardRight)
    }

    /// Synthetic yaw (the face's own mesh depth, turned about a vertical axis) changes yaw in one direction.
    @Test func syntheticTurnChangesYaw() throws {
        let image = try FaceTestImages.astronaut()
        let landmarker = try FaceTestImages.landmarker()
        let face = try #require(try landmarker.detect(in: image).first)
        var yaws: [Double] = []
        for angle in [0.0, 15, 30, 45] {
            let turned = try FaceTestImages.turned(image, face: face, degrees: angle)
            yaws.append(try #require(try landmarker.detect(in: turned).first).headPose.yaw)
        }
        #expect(kendallTau(yaws.map { -$0 }) == 1, "yaw \(yaws.map(degrees))")
        #expect(abs(degrees(yaws.last! - yaws.first!)) > 10)
    }

    static func qualityLadder(_ images: [PixelBuffer]) throws -> [Double] {
        let landmarker = try FaceTestImages.landmarker()
        return try images.map { image in
            let face = try #require(try landmarker.detect(in: image).first)
            return try FaceCaptureQuality(face: face, in: image).score
        }
    }

    @Test func qualityFallsWithBlur() throws {
        let image = try FaceTestImages.astronaut()
        let ladder = try [image] + [1.0, 2, 3, 4].map { try image.gaussianBlurred(sigma: Float($0)) }
        let scores = try Self.qualityLadder(ladder)
        #expect(scores.allSatisfy { (0...1).contains($0) })
        #expect(kendallTau(scores.map { -$0 }) == 1, "blur ladder \(scores)")
    }

    @Test func qualityFallsWithDarkness() throws {
        let image = try FaceTestImages.astronaut()
        let ladder = try [1.0, 0.8, 0.6, 0.4, 0.25].map { try FaceTestImages.darkened(image, factor: $0) }
        let scores = try Self.qualityLadder(ladder)
        #expect(kendallTau(scores.map { -$0 }) == 1, "darkness ladder \(scores)")
    }

    @Test func qualityFallsAsTheHeadTurns() throws {
        let image = try FaceTestImages.astronaut()
        let face = try #require(try FaceTestImages.landmarker().detect(in: image).first)
        let ladder = try [0.0, 15, 30, 45, 60].map { try FaceTestImages.turned(image, face: face, degrees: $0) }
        let scores = try Self.qualityLadder(ladder)
        #expect(kendallTau(scores.map { -$0 }) == 1, "turn ladder \(scores)")
    }

    /// The face fixtures: the two sample faces, mirrored, rotated by ±15° and shrunk to half size on a grey
    /// canvas (12 faces). Every face with its lower half covered by a flat-coloured mask: recall ≥ 90 %.
    @Test func maskedFacesAreFound() throws {
        let landmarker = try FaceTestImages.landmarker()
        var found = 0, total = 0
        for name in ["astronaut.png", "camera.png"] {
            let base = try FaceTestImages.load(name)
            let face = try #require(try landmarker.detect(in: base).first)
            let centre = (face.leftPupil + face.rightPupil) / 2
            let variants: [PixelBuffer] = try [
                base, FaceTestImages.flipped(base), FaceTestImages.rotated(base, degrees: 15, about: centre),
                FaceTestImages.rotated(base, degrees: -15, about: centre),
                FaceTestImages.render(base, rect: RotatedRect(centerX: 256, centerY: 256, width: 1024, height: 1024)),
                FaceTestImages.flipped(FaceTestImages.render(base, rect: RotatedRect(centerX: 256, centerY: 256, width: 1024, height: 1024))),
            ]
            for variant in variants {
                let unmasked = try #require(try landmarker.detect(in: variant).first, "\(name): the unmasked face is found")
                let masked = try FaceTestImages.masked(variant, face: unmasked)
                let box = unmasked.meshBoundingBox
                let hits = try landmarker.detector.detect(in: masked).filter { d in
                    box.xMin...box.xMax ~= d.box.center.x && box.yMin...box.yMax ~= d.box.center.y
                }
                total += 1
                if !hits.isEmpty { found += 1 }
            }
        }
        print("masked faces: \(found) of \(total) found")
        #expect(Double(found) >= 0.9 * Double(total), "masked recall \(found)/\(total)")
    }

    @Test func badOptionsThrow() throws {
        var options = FaceLandmarker.Options()
        options.maxFaces = 0
        #expect(throws: PerceptionError.self) { try FaceLandmarker(options: options) }
        let detector = try FaceTestImages.landmarker().detector
        let image = try FaceTestImages.astronaut()
        #expect(throws: PerceptionError.self) { try detector.detect(in: image, minScore: 1.5) }
    }
}

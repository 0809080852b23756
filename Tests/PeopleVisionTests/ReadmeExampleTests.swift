import Foundation
import PVTestSupport
import PeopleVision
import Testing

/// The README's library example, as written there, on the astronaut photo.
@Suite struct ReadmeExampleTests {
    @Test func facesBodiesAndHandsOnOneHandler() throws {
        let photoURL = try TestFiles.installed("astronaut.png")

        let faces = VNDetectFaceLandmarksRequest()
        let bodies = VNDetectHumanBodyPoseRequest()
        let hands = VNDetectHumanHandPoseRequest()
        hands.maximumHandCount = 4
        try VNImageRequestHandler(url: photoURL).perform([faces, bodies, hands])

        let face = try #require(faces.results?.first)
        #expect(face.roll != nil && face.yaw != nil && face.pitch != nil)
        let pupil = try #require(face.landmarks?.leftPupil?.pointsInImage(imageSize: CGSize(width: 512, height: 512)).first)
        #expect(face.boundingBox.insetBy(dx: -0.01, dy: -0.01).contains(CGPoint(x: pupil.x / 512, y: pupil.y / 512)))

        let body = try #require(bodies.results?.first)
        let shoulder = try body.recognizedPoint(.leftShoulder)
        #expect(shoulder.confidence > 0.3)
        // The subject's left shoulder is on the image's right, below the face.
        #expect(shoulder.location.x > face.boundingBox.midX && shoulder.location.y < face.boundingBox.minY)
        for hand in hands.results ?? [] {
            #expect([VNChirality.left, .right].contains(hand.chirality))
            _ = try hand.recognizedPoint(.indexTip).location
        }
    }
}

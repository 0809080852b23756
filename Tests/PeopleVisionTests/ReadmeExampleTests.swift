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

    @Test func eachPersonApart() throws {
        let photoURL = try TestFiles.installed("astronaut.png")

        let request = VNGeneratePersonInstanceMaskRequest()
        let handler = VNImageRequestHandler(url: photoURL)
        try handler.perform([request])
        let people = try #require(request.results?.first)
        #expect(people.allInstances == IndexSet(integer: 1))
        let mask = try people.generateScaledMaskForImage(forInstances: [1], from: handler)
        let cutout = try people.generateMaskedImage(ofInstances: people.allInstances, from: handler, croppedToInstancesExtent: true)
        #expect(CVPixelBufferGetWidth(mask) == 512 && CVPixelBufferGetWidth(cutout) <= 512)
    }

    @Test func theBodyIn3D() throws {
        let photoURL = try TestFiles.installed("astronaut.png")

        let body3D = VNDetectHumanBodyPose3DRequest()
        try VNImageRequestHandler(url: photoURL).perform([body3D])
        let body = try #require(body3D.results?.first)
        let wrist = try body.recognizedPoint(.leftWrist).position.columns.3
        let root = try body.cameraRelativePosition(.root).columns.3
        let projected = try body.pointInImage(.leftWrist)
        #expect(wrist.w == 1 && root.z < 0 && projected.x.isFinite)
    }
}

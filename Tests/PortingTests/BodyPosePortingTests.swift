// 2D and 3D body pose as an app written for iOS 17 writes them: Vision for the requests, simd for the 3D joints'
// matrices, AVFoundation as camera apps import it.
import AVFoundation
import Testing
import Vision
import simd

@Suite struct BodyPosePortingTests {
    @Test func noseAndSkeleton() throws {
        let url = try Samples.image("astronaut.png")
        let pose = VNDetectHumanBodyPoseRequest()
        let pose3D = VNDetectHumanBodyPose3DRequest()
        try VNImageRequestHandler(url: url, options: [:]).perform([pose, pose3D])

        // The nose agrees with MediaPipe's pose landmarker on the same image (landmark 0, top-left origin) within
        // 3 % of the image.
        let body = try #require(pose.results?.first)
        let nose = try body.recognizedPoint(.nose)
        #expect(nose.confidence > 0.5)
        let reference = try Samples.reference("pose/astronaut.json")
        let landmark = try #require((reference["landmarks"] as? [[String: Any]])?.first)
        let x = try #require(landmark["x"] as? Double), y = try #require(landmark["y"] as? Double)
        #expect(abs(nose.location.x - x) < 0.03 && abs(nose.location.y - (1 - y)) < 0.03, "nose \(nose.location)")

        // The 3D skeleton: simd matrices, y up, so her head is above her root joint, and the camera sits in front.
        let skeleton = try #require(pose3D.results?.first)
        let head: simd_float4x4 = try skeleton.recognizedPoint(.topHead).position
        let root: simd_float4x4 = try skeleton.recognizedPoint(.root).position
        #expect(head.columns.3.y > root.columns.3.y + 0.3)
        #expect(skeleton.cameraOriginMatrix.columns.3.z > 0)
    }
}

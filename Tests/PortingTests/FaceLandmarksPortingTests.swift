// Face landmarks as an iOS app writes them: `import Vision` and `import CoreGraphics`, nothing else.
import CoreGraphics
import Testing
import Vision

@Suite struct FaceLandmarksPortingTests {
    @Test func theAstronautsFaceAndPupils() throws {
        let url = try Samples.image("astronaut.png")
        let request = VNDetectFaceLandmarksRequest()
        let handler = VNImageRequestHandler(url: url, options: [:])
        try handler.perform([request])

        let faces = try #require(request.results)
        #expect(faces.count == 1)
        let face = try #require(faces.first)

        // MediaPipe's short-range detector on the same image (top-left origin, normalized): the face box centres
        // agree within 5 % of the image once Vision's lower-left origin is flipped.
        let reference = try Samples.reference("faces/astronaut.json")
        let detections = try #require(reference["detection0"] as? [[String: Any]])
        let box = try #require(detections.first?["box"] as? [Double])
        let expected = CGPoint(x: box[0] + box[2] / 2, y: 1 - (box[1] + box[3] / 2))
        #expect(abs(face.boundingBox.midX - expected.x) < 0.05 && abs(face.boundingBox.midY - expected.y) < 0.05,
                "box \(face.boundingBox), MediaPipe's centre \(expected)")

        // Image coordinates, as an app draws them.
        let imageRect = VNImageRectForNormalizedRect(face.boundingBox, 512, 512)
        #expect(imageRect.width > 50 && imageRect.width < 200)

        // Each pupil lies inside the face box (landmarks are normalized to it), the subject's left eye on the
        // image's right since she faces the camera.
        let landmarks = try #require(face.landmarks)
        let left = try #require(landmarks.leftPupil?.normalizedPoints.first)
        let right = try #require(landmarks.rightPupil?.normalizedPoints.first)
        for pupil in [left, right] {
            #expect(pupil.x > 0 && pupil.x < 1 && pupil.y > 0.4 && pupil.y < 1, "pupil \(pupil)")
        }
        #expect(left.x > right.x)
    }
}

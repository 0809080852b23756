// Video and camera patterns: VNVideoProcessor over a recorded clip, camera sample buffers with their timing through a
// sequence handler, and frames from a rotated sensor given their orientation.
import AVFoundation
import CoreImage
import CoreMedia
import Testing
import Vision

@Suite struct VideoPatterns {
    @Test func videoProcessorFollowsAFace() throws {
        let url = try Samples.slidingClip(of: "astronaut.png")
        defer { try? FileManager.default.removeItem(at: url) }
        var faces: [(time: Double, x: Double)] = []
        var poseTimes: [Double] = []
        let faceRequest = VNDetectFaceRectanglesRequest { request, error in
            guard error == nil, let face = (request as? VNDetectFaceRectanglesRequest)?.results?.first else { return }
            faces.append((face.timeRange.start.seconds, face.boundingBox.midX))
        }
        let poseRequest = VNDetectHumanBodyPoseRequest { request, _ in
            for body in request.results as? [VNHumanBodyPoseObservation] ?? [] { poseTimes.append(body.timeRange.start.seconds) }
        }
        let processor = VNVideoProcessor(url: url)
        try processor.addRequest(faceRequest, processingOptions: VNVideoProcessor.RequestProcessingOptions())
        let fiveASecond = VNVideoProcessor.RequestProcessingOptions()
        fiveASecond.cadence = VNVideoProcessor.FrameRateCadence(5)
        try processor.addRequest(poseRequest, processingOptions: fiveASecond)
        try processor.analyze(CMTimeRange(start: .zero, end: .indefinite))

        // A face in each of the ten frames, at 0.1-s steps, moving right; the pose at five frames a second.
        #expect(faces.count == 10)
        #expect(faces.enumerated().allSatisfy { abs($1.time - Double($0) / 10) < 0.01 })
        #expect(zip(faces, faces.dropFirst()).allSatisfy { $0.x < $1.x })
        #expect(poseTimes.count == 5 && zip(poseTimes, poseTimes.dropFirst()).allSatisfy { abs($1 - $0 - 0.2) < 0.01 })
    }

    @Test func cameraSampleBuffersKeepTheirTiming() throws {
        // A capture output at 30 fps: each sample buffer goes to a sequence handler with its orientation.
        let picture = try Frames.picture("astronaut.png")
        let sequence = VNSequenceRequestHandler()
        let frameDuration = CMTime(value: 1, timescale: 30)
        for index in 0..<3 {
            let time = CMTimeAdd(CMTime(seconds: 100, preferredTimescale: 600), CMTimeMultiply(frameDuration, multiplier: Int32(index)))
            let sample = try Frames.sampleBuffer(try Frames.pixelBuffer(picture), at: time, duration: frameDuration)
            let bodies = VNDetectHumanRectanglesRequest(), faces = VNDetectFaceRectanglesRequest()
            try sequence.perform([bodies, faces], on: sample, orientation: .up)
            let face = try #require(faces.results?.first), person = try #require(bodies.results?.first)
            #expect(face.timeRange.start == CMSampleBufferGetPresentationTimeStamp(sample))
            #expect(person.timeRange.start == time && person.timeRange.duration == CMSampleBufferGetDuration(sample))
            // Apple's sample code pulls the pixel buffer out for a one-off handler: same face.
            let pixels = try #require(CMSampleBufferGetImageBuffer(sample))
            let again = VNDetectFaceRectanglesRequest()
            try VNImageRequestHandler(cvPixelBuffer: pixels, orientation: .up, options: [:]).perform([again])
            #expect(abs((again.results?.first?.boundingBox.midX ?? -1) - face.boundingBox.midX) < 0.01)
        }
    }

    /// The orientation of frames from a phone held upright: the sensor is landscape, so the back camera's frames
    /// are rotated (`.right`) and the front camera's rotated and mirrored (`.leftMirrored`).
    static func exifOrientation(frontCamera: Bool) -> CGImagePropertyOrientation { frontCamera ? .leftMirrored : .right }

    @Test func rotatedSensorFramesWithTheirOrientation() throws {
        let upright = try Frames.picture("camera.png")
        let reference = VNDetectFaceRectanglesRequest()
        try VNImageRequestHandler(ciImage: upright).perform([reference])
        let expected = try #require(reference.results?.first).boundingBox
        for frontCamera in [false, true] {
            let orientation = Self.exifOrientation(frontCamera: frontCamera)
            // What the sensor delivers: the upright scene turned back by the orientation (`.right` undone by `.left`;
            // `.leftMirrored` is its own inverse).
            let sensor = try Frames.pixelBuffer(upright.oriented(frontCamera ? .leftMirrored : .left))
            #expect(CVPixelBufferGetWidth(sensor) == 512)
            let faces = VNDetectFaceRectanglesRequest()
            try VNImageRequestHandler(cvPixelBuffer: sensor, orientation: orientation, options: [:]).perform([faces])
            // Vision reports the face in the upright picture: where it is in the upright image.
            let box = try #require(faces.results?.first).boundingBox
            #expect(abs(box.midX - expected.midX) < 0.02 && abs(box.midY - expected.midY) < 0.02, "\(frontCamera) \(box)")
        }
    }
}

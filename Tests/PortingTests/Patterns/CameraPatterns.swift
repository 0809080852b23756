// Camera-app patterns: a detector object fed sample buffers in the camera's own YCbCr format with the orientation of
// the camera in use, a photo library processed on a concurrent queue, iOS 14's point-key API, and the landmark
// constellations pinned by revision.
import AVFoundation
import CoreImage
import CoreVideo
import Foundation
import Synchronization
import Testing
import Vision

@Suite struct CameraPatterns {
    /// The body-pose detector of a fitness app: frames come in from the capture queue; the latest joints are kept.
    final class BodyDetection: NSObject {
        private(set) var bodyParts: [VNHumanBodyPoseObservation.JointName: VNRecognizedPoint] = [:]
        private(set) var frameTimes: [CMTime] = []
        private var orientation: CGImagePropertyOrientation = .right

        func updateOrientation(isFrontCamera: Bool) { orientation = isFrontCamera ? .leftMirrored : .right }

        func process(_ sampleBuffer: CMSampleBuffer) {
            let request = VNDetectHumanBodyPoseRequest(completionHandler: detectedBodyPose)
            let handler = VNImageRequestHandler(cmSampleBuffer: sampleBuffer, orientation: orientation)
            do {
                try handler.perform([request])
            } catch {
                bodyParts = [:]
            }
        }

        private func detectedBodyPose(request: VNRequest, error: Error?) {
            guard let body = (request.results as? [VNHumanBodyPoseObservation])?.first,
                let parts = try? body.recognizedPoints(.all)
            else { return }
            bodyParts = parts
            frameTimes.append(body.timeRange.start)
        }
    }

    @Test func detectorFedCameraFramesInTheirNativeFormat() throws {
        let upright = try Frames.picture("astronaut.png")
        let detector = BodyDetection()
        for (index, frontCamera) in [false, true].enumerated() {
            detector.updateOrientation(isFrontCamera: frontCamera)
            // The sensor's frame: the upright scene turned back by the orientation, in the camera's 4:2:0 format.
            let sensor = upright.oriented(frontCamera ? .leftMirrored : .left)
            let pixels = try Frames.pixelBuffer(sensor, format: kCVPixelFormatType_420YpCbCr8BiPlanarFullRange)
            #expect(CVPixelBufferIsPlanar(pixels) && CVPixelBufferGetPlaneCount(pixels) == 2)
            let time = CMTime(value: CMTimeValue(index), timescale: 30)
            detector.process(try Frames.sampleBuffer(pixels, at: time, duration: CMTime(value: 1, timescale: 30)))
            // Upright again for Vision: the nose above the neck, her face in the upper half.
            let nose = try #require(detector.bodyParts[.nose]), neck = try #require(detector.bodyParts[.neck])
            #expect(nose.confidence > 0.5 && nose.y > neck.y && nose.y > 0.5, "\(frontCamera)")
            // The front camera's mirror puts her nose on the other side of the frame.
            #expect(frontCamera ? nose.x > 0.5 - 0.1 : nose.x < 0.5 + 0.1)
        }
        #expect(detector.frameTimes == [CMTime(value: 0, timescale: 30), CMTime(value: 1, timescale: 30)])
    }

    @Test func photoLibraryOnAConcurrentQueue() throws {
        // Faces counted across a library, one handler per photo, photos processed side by side.
        let names = ["astronaut.png", "camera.png", "chelsea.png", "rocket.jpg"]
        let urls = try names.map { try Samples.image($0) }
        let faceCounts = Mutex<[String: Int]>([:])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: urls.count) { index in
            let request = VNDetectFaceRectanglesRequest()
            do {
                try VNImageRequestHandler(url: urls[index], options: [:]).perform([request])
                let count = request.results?.count ?? 0
                faceCounts.withLock { $0[names[index]] = count }
            } catch {
                failures.withLock { $0.append("\(names[index]): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        // Two portraits, a cat and a rocket.
        #expect(faceCounts.withLock { $0 } == ["astronaut.png": 1, "camera.png": 1, "chelsea.png": 0, "rocket.jpg": 0])
    }

    @Test func iOS14PointKeysMatchTheJointNames() throws {
        let request = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(url: try Samples.image("astronaut.png")).perform([request])
        let body = try #require(request.results?.first)
        // Code written for iOS 14 reads points by key and group key; the joint names are the same points.
        let byKey = try body.recognizedPoints(forGroupKey: .all)
        let byName = try body.recognizedPoints(.all)
        #expect(byKey.count == byName.count && byKey.count == body.availableKeys.count)
        let nose = try body.recognizedPoint(forKey: .bodyLandmarkKeyNose)
        #expect(nose == (try body.recognizedPoint(.nose)) && nose.identifier == .bodyLandmarkKeyNose)
        let face = try body.recognizedPoints(forGroupKey: .bodyLandmarkRegionKeyFace)
        #expect(Set(face.keys) == Set(try body.recognizedPoints(.face).keys.map(\.rawValue)))
    }

    @Test func landmarkConstellationsPinnedByRevision() throws {
        let url = try Samples.image("astronaut.png")
        #expect(VNDetectFaceLandmarksRequest.revision(VNDetectFaceLandmarksRequestRevision3, supportsConstellation: .constellation76Points))
        #expect(!VNDetectFaceLandmarksRequest.revision(VNDetectFaceLandmarksRequestRevision2, supportsConstellation: .constellation76Points))
        var counts: [Int] = []
        for constellation in [VNRequestFaceLandmarksConstellation.constellation65Points, .constellation76Points] {
            let request = VNDetectFaceLandmarksRequest()
            request.revision = VNDetectFaceLandmarksRequestRevision3
            request.constellation = constellation
            try VNImageRequestHandler(url: url).perform([request])
            let landmarks = try #require(request.results?.first?.landmarks)
            counts.append(try #require(landmarks.allPoints).pointCount)
            // Either way the regions hold the points of allPoints, and a pupil is one point.
            #expect(landmarks.leftPupil?.pointCount == 1 && landmarks.rightPupil?.pointCount == 1)
        }
        #expect(counts == [65, 76])
    }
}

// Capture-delegate patterns: a view controller's sample-buffer delegate that reads the camera intrinsics attached to
// each frame and hands them to Vision, and a slow delegate whose late frames are dropped.
import AVFoundation
import CoreMedia
import CoreVideo
import Foundation
import Synchronization
import Testing
import Vision
import simd

@Suite struct CapturePatterns {
    /// A 3D-pose camera delegate: each frame's intrinsics (when the connection delivers them) go to Vision.
    final class PoseCameraDelegate: NSObject, AVCaptureVideoDataOutputSampleBufferDelegate, @unchecked Sendable {
        let distances = Mutex<[Float]>([])
        let done = DispatchSemaphore(value: 0)

        func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
            defer { done.signal() }
            guard let pixelBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) else { return }
            var requestOptions: [VNImageOption: Any] = [:]
            if let cameraIntrinsicData = CMGetAttachment(
                sampleBuffer, key: kCMSampleBufferAttachmentKey_CameraIntrinsicMatrix, attachmentModeOut: nil) {
                requestOptions = [.cameraIntrinsics: cameraIntrinsicData]
            }
            let orientation: CGImagePropertyOrientation = connection.isVideoMirrored ? .upMirrored : .up
            let request = VNDetectHumanBodyPose3DRequest()
            let handler = VNImageRequestHandler(cvPixelBuffer: pixelBuffer, orientation: orientation, options: requestOptions)
            guard (try? handler.perform([request])) != nil, let body = request.results?.first else { return }
            // The camera's depth from the root joint: the z of the camera origin matrix's translation.
            let t = body.cameraOriginMatrix.columns.3
            distances.withLock { $0.append(abs(t.z)) }
        }
    }

    static func intrinsics(focal: Float, width: Int, height: Int) -> Data {
        var matrix = matrix_float3x3(
            simd_float3(focal, 0, 0), simd_float3(0, focal, 0), simd_float3(Float(width) / 2, Float(height) / 2, 1))
        return Data(bytes: &matrix, count: MemoryLayout<matrix_float3x3>.size)
    }

    @Test func intrinsicsAttachedToFramesReachVision() throws {
        let pixels = try Frames.pixelBuffer(Frames.picture("astronaut.png"))
        let width = CVPixelBufferGetWidth(pixels), height = CVPixelBufferGetHeight(pixels)
        let output = AVCaptureVideoDataOutput()
        output.alwaysDiscardsLateVideoFrames = false
        let delegate = PoseCameraDelegate()
        output.setSampleBufferDelegate(delegate, queue: DispatchQueue(label: "camera frames"))
        let connection = try #require(output.connection(with: .video))
        #expect(connection.isCameraIntrinsicMatrixDeliverySupported)
        connection.isCameraIntrinsicMatrixDeliveryEnabled = true
        // The same picture seen through a lens of focal length f, then 2f.
        for (i, focal) in [Float(500), 1000].enumerated() {
            let frame = try Frames.sampleBuffer(pixels, at: CMTime(value: CMTimeValue(i), timescale: 30), duration: CMTime(value: 1, timescale: 30))
            CMSetAttachment(frame, key: kCMSampleBufferAttachmentKey_CameraIntrinsicMatrix,
                            value: Self.intrinsics(focal: focal, width: width, height: height) as CFData,
                            attachmentMode: kCMAttachmentMode_ShouldNotPropagate)
            var mode: CMAttachmentMode = 99
            #expect(CMGetAttachment(frame, key: kCMSampleBufferAttachmentKey_CameraIntrinsicMatrix, attachmentModeOut: &mode) != nil)
            #expect(mode == kCMAttachmentMode_ShouldNotPropagate)
            #expect(output.deliver(frame))
            #expect(delegate.done.wait(timeout: .now() + 120) == .success)
        }
        let distances = delegate.distances.withLock { $0 }
        try #require(distances.count == 2)
        // Pinhole camera: a body of the same height spanning the same pixels is twice as deep through a lens twice as long
        // (its sideways offsets stay the same).
        #expect(abs(distances[1] / distances[0] - 2) < 0.2, "distances \(distances)")
    }

    /// A delegate that holds the capture queue until it is told to go on.
    final class SlowDelegate: NSObject, AVCaptureVideoDataOutputSampleBufferDelegate, @unchecked Sendable {
        let received = Mutex(0), dropped = Mutex(0)
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)

        func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
            received.withLock { $0 += 1 }
            started.signal()
            release.wait()
        }

        func captureOutput(_ output: AVCaptureOutput, didDrop sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
            dropped.withLock { $0 += 1 }
        }
    }

    @Test func lateFramesAreDroppedWhileTheDelegateIsBusy() throws {
        let pixels = try Frames.pixelBuffer(Frames.picture("chelsea.png"))
        let queue = DispatchQueue(label: "camera frames")
        for discards in [true, false] {
            let output = AVCaptureVideoDataOutput()
            output.alwaysDiscardsLateVideoFrames = discards
            let delegate = SlowDelegate()
            output.setSampleBufferDelegate(delegate, queue: queue)
            let frames = try (0..<4).map { try Frames.sampleBuffer(pixels, at: CMTime(value: CMTimeValue($0), timescale: 30), duration: CMTime(value: 1, timescale: 30)) }
            #expect(output.deliver(frames[0]))
            #expect(delegate.started.wait(timeout: .now() + 10) == .success)
            let accepted = frames.dropFirst().map { output.deliver($0) }
            #expect(accepted == Array(repeating: !discards, count: 3))
            for _ in 0..<4 { delegate.release.signal() }
            queue.sync {}
            queue.sync {}
            #expect(delegate.received.withLock { $0 } == (discards ? 1 : 4))
            #expect(delegate.dropped.withLock { $0 } == (discards ? 3 : 0))
        }
    }
}

import Foundation
import PVImaging

extension VNImageRequestHandler {
    /// A camera or video frame, as Vision's `VNImageRequestHandler(cmSampleBuffer:options:)`: its image
    /// buffer, upright.
    ///
    /// Observations carry the frame's time: their `timeRange` starts at the buffer's presentation
    /// time and lasts its duration (zero when the buffer has none).
    ///
    /// The buffer is read at the first `perform`. A buffer whose data is not ready is made ready
    /// then (`CMSampleBufferMakeDataReady`); one that was invalidated, or cannot be made ready,
    /// makes `perform` throw ``VNErrorCode/invalidImage`` (Apple does not document the code).
    public convenience init(cmSampleBuffer sampleBuffer: CMSampleBuffer, options: [VNImageOption: Any] = [:]) {
        self.init(cmSampleBuffer: sampleBuffer, orientation: .up, options: options)
    }

    /// A camera or video frame whose pixels have the given orientation, as Vision's
    /// `VNImageRequestHandler(cmSampleBuffer:orientation:options:)`: a back camera held in portrait
    /// delivers `.right` frames.
    ///
    /// ```swift
    /// func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
    ///     let handler = VNImageRequestHandler(cmSampleBuffer: sampleBuffer, orientation: .right)
    ///     try? handler.perform([bodyPoseRequest])
    /// }
    /// ```
    public convenience init(
        cmSampleBuffer sampleBuffer: CMSampleBuffer, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]
    ) {
        self.init(source: .sampleBuffer(sampleBuffer), orientation: orientation, options: options, frameTime: sampleBuffer.visionTimeRange)
    }

    /// A camera frame with the depth captured with it, as Vision's
    /// `VNImageRequestHandler(cmSampleBuffer:depthData:orientation:options:)`: the depth is used as
    /// ``init(cvPixelBuffer:depthData:orientation:options:)`` describes.
    public convenience init(
        cmSampleBuffer sampleBuffer: CMSampleBuffer, depthData: AVDepthData, orientation: CGImagePropertyOrientation,
        options: [VNImageOption: Any] = [:]
    ) {
        self.init(
            source: .sampleBuffer(sampleBuffer), orientation: orientation, options: options, frameTime: sampleBuffer.visionTimeRange,
            depthData: depthData)
    }
}

extension CMSampleBuffer {
    /// The time range observations of this frame carry, or nil when the frame has no presentation time.
    var visionTimeRange: CMTimeRange? {
        let start = presentationTimeStamp
        guard start.isNumeric else { return nil }
        let length = duration
        return CMTimeRange(start: start, duration: length.isNumeric && length.value >= 0 ? length : .zero)
    }

    /// The frame's pixels as stored, or Vision's error when there are none.
    func visionPixels() throws -> PixelBuffer {
        let status = CMSampleBufferMakeDataReady(self)
        guard status == noErr32 else {
            throw NSError(
                vision: .invalidImage,
                status == kCMSampleBufferError_Invalidated
                    ? "the sample buffer was invalidated" : "the sample buffer's data could not be made ready (OSStatus \(status))")
        }
        guard let image = imageBuffer else { throw NSError(vision: .invalidImage, "the sample buffer holds no image buffer") }
        return image.pixelBuffer
    }
}

extension VNSequenceRequestHandler {
    /// Performs `requests` on a camera or video frame, as Vision's `perform(_:on:)` for a `CMSampleBuffer`
    /// (see ``VNImageRequestHandler/init(cmSampleBuffer:options:)``).
    public func perform(_ requests: [VNRequest], on sampleBuffer: CMSampleBuffer) throws {
        try VNImageRequestHandler(cmSampleBuffer: sampleBuffer).perform(requests)
    }

    /// Performs `requests` on a frame whose pixels have the given orientation, as Vision's
    /// `perform(_:on:orientation:)` for a `CMSampleBuffer`.
    public func perform(_ requests: [VNRequest], on sampleBuffer: CMSampleBuffer, orientation: CGImagePropertyOrientation) throws {
        try VNImageRequestHandler(cmSampleBuffer: sampleBuffer, orientation: orientation).perform(requests)
    }
}

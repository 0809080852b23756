extension VNSequenceRequestHandler {
    /// Performs `requests` on a camera or video frame, as Vision's `perform(_:on:)` for a `CMSampleBuffer`
    /// (see ``VNImageRequestHandler/init(cmSampleBuffer:options:)``).
    public func perform(_ requests: [VNRequest], on sampleBuffer: CMSampleBuffer) throws {
        try perform(requests, frame: VNImageRequestHandler(cmSampleBuffer: sampleBuffer))
    }

    /// Performs `requests` on a frame whose pixels have the given orientation, as Vision's
    /// `perform(_:on:orientation:)` for a `CMSampleBuffer`.
    public func perform(_ requests: [VNRequest], on sampleBuffer: CMSampleBuffer, orientation: CGImagePropertyOrientation) throws {
        try perform(requests, frame: VNImageRequestHandler(cmSampleBuffer: sampleBuffer, orientation: orientation))
    }
}

extension VNSequenceRequestHandler {
    /// PeopleVision extension: an image request handler that is the next frame of this sequence.
    ///
    /// For work that performs more than once on a frame (a request that takes another's results, code that reads the
    /// handler afterwards): every perform on the handler counts as this one frame of the sequence, so landmarks are
    /// smoothed and people followed as by ``perform(_:on:)``, and the requests share the frame's work as on any
    /// image handler. Make each frame's handler after the previous frame's performs.
    ///
    /// ```swift
    /// let frame = sequence.imageRequestHandler(for: sampleBuffer)
    /// try frame.perform([faceRectangles])
    /// landmarks.inputFaceObservations = faceRectangles.results
    /// try frame.perform([landmarks])
    /// ```
    public func imageRequestHandler(for sampleBuffer: CMSampleBuffer, orientation: CGImagePropertyOrientation = .up)
        -> VNImageRequestHandler
    {
        let handler = VNImageRequestHandler(cmSampleBuffer: sampleBuffer, orientation: orientation)
        handler.sequence = sequence
        return handler
    }
}

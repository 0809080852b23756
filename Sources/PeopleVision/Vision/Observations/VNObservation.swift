import Foundation

/// The abstract base of every result, as Apple's `VNObservation`.
open class VNObservation: NSObject, VNRequestRevisionProviding, @unchecked Sendable {
    /// A unique identifier.
    public let uuid: UUID
    /// Confidence in [0, 1]; 1 where the observation has no meaningful confidence.
    public let confidence: VNConfidence
    /// The frame time, or zero start and duration for still images (set by ``VNVideoProcessor`` for video frames).
    public internal(set) var timeRange: CMTimeRange
    /// The revision of the request that produced the observation.
    public let requestRevision: Int

    init(confidence: VNConfidence = 1, requestRevision: Int, timeRange: CMTimeRange = .zero, uuid: UUID = UUID()) {
        self.uuid = uuid
        self.confidence = confidence
        self.requestRevision = requestRevision
        self.timeRange = timeRange
        super.init()
    }
}

/// An observation holding an image-like result (a mask), as Apple's `VNPixelBufferObservation`.
open class VNPixelBufferObservation: VNObservation, @unchecked Sendable {
    /// The result pixels.
    public let pixelBuffer: CVPixelBuffer
    /// The Core ML feature name; nil for Vision's own requests.
    public let featureName: String?

    init(pixelBuffer: CVPixelBuffer, featureName: String? = nil, requestRevision: Int) {
        self.pixelBuffer = pixelBuffer
        self.featureName = featureName
        super.init(confidence: 1, requestRevision: requestRevision)
    }
}

/// An object found in an image with a bounding box, as Apple's `VNDetectedObjectObservation`.
open class VNDetectedObjectObservation: VNObservation, @unchecked Sendable {
    /// Normalized bounding box, lower-left origin.
    public let boundingBox: CGRect

    /// An observation with confidence 1 (for feeding requests that accept observations).
    public convenience init(boundingBox: CGRect) {
        self.init(boundingBox: boundingBox, confidence: 1, requestRevision: VNRequestRevisionUnspecified)
    }

    /// An observation for a given request revision.
    public convenience init(requestRevision: Int, boundingBox: CGRect) {
        self.init(boundingBox: boundingBox, confidence: 1, requestRevision: requestRevision)
    }

    init(boundingBox: CGRect, confidence: VNConfidence, requestRevision: Int, uuid: UUID = UUID()) {
        self.boundingBox = boundingBox
        super.init(confidence: confidence, requestRevision: requestRevision, uuid: uuid)
    }

    /// The object's segmentation mask over the whole image, for requests that make one. None of the people
    /// requests here does (as on Apple platforms, where it comes with object-detection models), so it is `nil`.
    public var globalSegmentationMask: VNPixelBufferObservation? { nil }
}

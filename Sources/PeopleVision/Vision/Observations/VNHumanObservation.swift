import Foundation

/// A person's box, as Apple's `VNHumanObservation` (iOS 15): the result of ``VNDetectHumanRectanglesRequest``.
public final class VNHumanObservation: VNDetectedObjectObservation, @unchecked Sendable {
    /// Whether ``VNDetectedObjectObservation/boundingBox`` covers only the upper body (head and shoulders down to
    /// the chest) rather than the whole visible body.
    public let upperBodyOnly: Bool

    init(boundingBox: CGRect, confidence: VNConfidence, upperBodyOnly: Bool, requestRevision: Int) {
        self.upperBodyOnly = upperBodyOnly
        super.init(boundingBox: boundingBox, confidence: confidence, requestRevision: requestRevision)
    }
}

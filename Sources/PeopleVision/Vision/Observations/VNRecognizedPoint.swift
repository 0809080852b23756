import Foundation

/// A named point with a confidence, as Apple's `VNRecognizedPoint`: one joint of a body or hand pose.
///
/// Body and hand points are normalized to the image (or the request's region of interest) with a lower-left
/// origin.
open class VNRecognizedPoint: VNDetectedPoint, @unchecked Sendable {
    /// The joint's key (for example `"left_hand_joint"` for a body's left wrist).
    public let identifier: VNRecognizedPointKey

    init(x: Double, y: Double, confidence: VNConfidence, identifier: VNRecognizedPointKey) {
        self.identifier = identifier
        super.init(x: x, y: y, confidence: confidence)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? VNRecognizedPoint else { return false }
        return identifier == other.identifier
    }

    open override var hash: Int { super.hash ^ identifier.hashValue }

    open override var description: String {
        "VNRecognizedPoint(\(identifier.rawValue): x: \(x), y: \(y), confidence: \(confidence))"
    }
}

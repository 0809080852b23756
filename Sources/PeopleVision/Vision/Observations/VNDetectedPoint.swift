import Foundation

/// A point with a confidence, as Apple's `VNDetectedPoint`.
open class VNDetectedPoint: VNPoint, @unchecked Sendable {
    /// How sure the detector is of the point, 0…1.
    public let confidence: VNConfidence

    init(x: Double, y: Double, confidence: VNConfidence) {
        self.confidence = confidence
        super.init(x: x, y: y)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? VNDetectedPoint else { return false }
        return confidence == other.confidence
    }

    open override var hash: Int { super.hash ^ confidence.hashValue }

    open override var description: String { "VNDetectedPoint(x: \(x), y: \(y), confidence: \(confidence))" }
}

import Foundation
import PVPerception

/// A face found in an image, as Apple's `VNFaceObservation`.
///
/// Produced by ``VNDetectFaceRectanglesRequest`` (box, confidence, head pose), ``VNDetectFaceLandmarksRequest``
/// (plus ``landmarks``) and ``VNDetectFaceCaptureQualityRequest`` (plus ``faceCaptureQuality``).
///
/// Angles are radians with Vision's conventions: in a frame with x to the right, y up and z toward the
/// viewer each is a right-handed rotation — `roll` positive counter-clockwise on screen (−π…π), `yaw`
/// positive when the nose turns toward the image's right, i.e. the subject's own left (−π/2…π/2), `pitch`
/// positive when the head nods down (−π/2…π/2). They are `nil` when the producing revision does not
/// compute them.
open class VNFaceObservation: VNDetectedObjectObservation, @unchecked Sendable {
    /// In-plane rotation of the face, radians; nil when not computed.
    public let roll: NSNumber?
    /// Rotation about the vertical axis, radians; nil when not computed.
    public let yaw: NSNumber?
    /// Rotation about the horizontal axis (positive nods down), radians; nil when not computed.
    public let pitch: NSNumber?
    /// The face landmarks; set only by ``VNDetectFaceLandmarksRequest``.
    public let landmarks: VNFaceLandmarks2D?
    /// Capture quality in [0, 1], comparable only between captures of the same face; set only by
    /// ``VNDetectFaceCaptureQualityRequest``.
    public let faceCaptureQuality: Float?

    /// What the detector found, in pixels of the analysed region (reused by landmark requests on the same image).
    let source: FaceRecord?

    /// An observation for feeding requests that accept face observations (iOS 15 initializer).
    public convenience init(requestRevision: Int, boundingBox: CGRect, roll: NSNumber?, yaw: NSNumber?, pitch: NSNumber?) {
        self.init(
            boundingBox: boundingBox, confidence: 1, requestRevision: requestRevision, roll: roll, yaw: yaw, pitch: pitch,
            landmarks: nil, faceCaptureQuality: nil, source: nil)
    }

    /// The older initializer without pitch.
    @available(*, deprecated, message: "use init(requestRevision:boundingBox:roll:yaw:pitch:)")
    public convenience init(requestRevision: Int, boundingBox: CGRect, roll: NSNumber?, yaw: NSNumber?) {
        self.init(requestRevision: requestRevision, boundingBox: boundingBox, roll: roll, yaw: yaw, pitch: nil)
    }

    init(
        boundingBox: CGRect, confidence: VNConfidence, requestRevision: Int, roll: NSNumber?, yaw: NSNumber?,
        pitch: NSNumber?, landmarks: VNFaceLandmarks2D?, faceCaptureQuality: Float?, source: FaceRecord?,
        uuid: UUID = UUID()
    ) {
        self.roll = roll
        self.yaw = yaw
        self.pitch = pitch
        self.landmarks = landmarks
        self.faceCaptureQuality = faceCaptureQuality
        self.source = source
        super.init(boundingBox: boundingBox, confidence: confidence, requestRevision: requestRevision, uuid: uuid)
    }
}

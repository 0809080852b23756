import Foundation

/// One request's outcome in ``ImageRequestHandler/performAll(_:)``, as Vision's `VisionResult` (iOS 18): the
/// request with its result, or with its error.
public enum VisionResult: Sendable, Equatable, CustomStringConvertible {
    case detectFaceCaptureQuality(DetectFaceCaptureQualityRequest, [FaceObservation])
    case detectFaceLandmarks(DetectFaceLandmarksRequest, [FaceObservation])
    case detectFaceRectangles(DetectFaceRectanglesRequest, [FaceObservation])
    case detectHumanBodyPose(DetectHumanBodyPoseRequest, [HumanBodyPoseObservation])
    case detectHumanBodyPose3D(DetectHumanBodyPose3DRequest, [HumanBodyPose3DObservation])
    case detectHumanHandPose(DetectHumanHandPoseRequest, [HumanHandPoseObservation])
    case detectHumanRectangles(DetectHumanRectanglesRequest, [HumanObservation])
    case error(any VisionRequest, any Error)
    case generatePersonInstanceMask(GeneratePersonInstanceMaskRequest, InstanceMaskObservation?)
    case generatePersonSegmentation(GeneratePersonSegmentationRequest, PixelBufferObservation)

    /// Equal when the same case holds equal requests and equal results; two errors are equal when their requests are
    /// and the errors describe themselves alike (errors are not `Equatable`).
    public static func == (lhs: VisionResult, rhs: VisionResult) -> Bool {
        switch (lhs, rhs) {
        case let (.detectFaceCaptureQuality(a, x), .detectFaceCaptureQuality(b, y)): a == b && x == y
        case let (.detectFaceLandmarks(a, x), .detectFaceLandmarks(b, y)): a == b && x == y
        case let (.detectFaceRectangles(a, x), .detectFaceRectangles(b, y)): a == b && x == y
        case let (.detectHumanBodyPose(a, x), .detectHumanBodyPose(b, y)): a == b && x == y
        case let (.detectHumanBodyPose3D(a, x), .detectHumanBodyPose3D(b, y)): a == b && x == y
        case let (.detectHumanHandPose(a, x), .detectHumanHandPose(b, y)): a == b && x == y
        case let (.detectHumanRectangles(a, x), .detectHumanRectangles(b, y)): a == b && x == y
        case let (.generatePersonInstanceMask(a, x), .generatePersonInstanceMask(b, y)): a == b && x == y
        case let (.generatePersonSegmentation(a, x), .generatePersonSegmentation(b, y)): a == b && x == y
        case let (.error(a, x), .error(b, y)): AnyHashable(a) == AnyHashable(b) && String(describing: x) == String(describing: y)
        default: false
        }
    }

    /// The request this outcome belongs to.
    var request: any VisionRequest {
        switch self {
        case .detectFaceCaptureQuality(let r, _): r
        case .detectFaceLandmarks(let r, _): r
        case .detectFaceRectangles(let r, _): r
        case .detectHumanBodyPose(let r, _): r
        case .detectHumanBodyPose3D(let r, _): r
        case .detectHumanHandPose(let r, _): r
        case .detectHumanRectangles(let r, _): r
        case .error(let r, _): r
        case .generatePersonInstanceMask(let r, _): r
        case .generatePersonSegmentation(let r, _): r
        }
    }

    public var description: String {
        switch self {
        case .error(let r, let e): "VisionResult.error(\(r), \(e))"
        case .generatePersonInstanceMask(let r, let o): "VisionResult(\(r): \(o.map { "\($0.allInstances.count) instances" } ?? "nobody"))"
        case .generatePersonSegmentation(let r, let o): "VisionResult(\(r): \(o))"
        case .detectFaceCaptureQuality(_, let o), .detectFaceLandmarks(_, let o), .detectFaceRectangles(_, let o):
            "VisionResult(\(request): \(o.count) faces)"
        case .detectHumanBodyPose(_, let o): "VisionResult(\(request): \(o.count) bodies)"
        case .detectHumanBodyPose3D(_, let o): "VisionResult(\(request): \(o.count) bodies)"
        case .detectHumanHandPose(_, let o): "VisionResult(\(request): \(o.count) hands)"
        case .detectHumanRectangles(_, let o): "VisionResult(\(request): \(o.count) people)"
        }
    }
}

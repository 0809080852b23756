import Foundation
import PVImaging
import PVPerception

/// Finds every person's 2-D body pose, as Apple's `VNDetectHumanBodyPoseRequest` (revision 1).
///
/// ```swift
/// let request = VNDetectHumanBodyPoseRequest()
/// try VNImageRequestHandler(url: url).perform([request])
/// for body in request.results ?? [] {
///     let points = try body.recognizedPoints(.all).filter { $0.value.confidence > 0.3 }
/// }
/// ```
///
/// One ``VNHumanBodyPoseObservation`` per person (up to 32), not only the most prominent one: MediaPipe's pose
/// detector finds the people on the whole image (score ≥ 0.3) and, unless the people found already fill the picture,
/// on overlapping tiles of about 320 px as well, so that small people in large frames and people partly hidden by
/// others are found; BlazePose's landmark model places 33 points on each (kept when its presence is above 0.5), and
/// results describing one person twice are merged. See ``VNHumanBodyPoseObservation`` for the joints and their
/// confidences.
///
/// Performed on the frames of a ``VNSequenceRequestHandler`` or a ``VNVideoProcessor``, the landmarks are smoothed
/// over time with MediaPipe's video-mode filters (see ``VNSequenceRequestHandler/smoothsLandmarks``).
///
/// With a `regionOfInterest`, the people are those of the whole image lying mostly inside the region (at least 40 %
/// of their box), in coordinates normalized to the region: a region is not searched as a picture of its own, where,
/// enlarged, a cat's face can pass for a person.
public final class VNDetectHumanBodyPoseRequest: VNImageBasedRequest, @unchecked Sendable {
    /// The people found: one observation each, by descending detection score.
    public var results: [VNHumanBodyPoseObservation]? { storedResults as? [VNHumanBodyPoseObservation] }

    public override class var supportedRevisions: IndexSet { IndexSet(integer: VNDetectHumanBodyPoseRequestRevision1) }

    /// The 19 joints this revision reports.
    public var supportedJointNames: [VNHumanBodyPoseObservation.JointName] {
        get throws { try Self.supportedJointNames(forRevision: revision) }
    }

    /// The seven joint groups this revision reports.
    public var supportedJointsGroupNames: [VNHumanBodyPoseObservation.JointsGroupName] {
        get throws { try Self.supportedJointsGroupNames(forRevision: revision) }
    }

    /// The joints a revision reports (deprecated by Apple in iOS 17 in favour of the instance property).
    /// - Throws: ``VNErrorCode/unsupportedRevision`` for an unknown revision.
    public class func supportedJointNames(forRevision revision: Int) throws -> [VNHumanBodyPoseObservation.JointName] {
        try checkSupported(revision: revision)
        return VNHumanBodyPoseObservation.JointName.all
    }

    /// The joint groups a revision reports.
    /// - Throws: ``VNErrorCode/unsupportedRevision`` for an unknown revision.
    public class func supportedJointsGroupNames(forRevision revision: Int) throws -> [VNHumanBodyPoseObservation.JointsGroupName] {
        try checkSupported(revision: revision)
        return VNHumanBodyPoseObservation.JointsGroupName.members.map(\.0)
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        var (people, width, height) = try image.people(in: regionOfInterest)
        if let (sequence, time) = image.sequence { people = sequence.smoothed(people, for: self, timestamp: time) }
        return people.map { Self.observation($0, width: width, height: height, revision: revision) }
    }

    /// MediaPipe landmark index of each of the 17 model joints.
    static let landmarkIndex: [VNHumanBodyPoseObservation.JointName: Int] = [
        .nose: 0, .leftEye: 2, .rightEye: 5, .leftEar: 7, .rightEar: 8, .leftShoulder: 11, .rightShoulder: 12,
        .leftElbow: 13, .rightElbow: 14, .leftWrist: 15, .rightWrist: 16, .leftHip: 23, .rightHip: 24, .leftKnee: 25,
        .rightKnee: 26, .leftAnkle: 27, .rightAnkle: 28,
    ]

    /// A joint's confidence: the smaller of visibility and presence.
    static func confidence(_ l: Landmark) -> Float {
        Float(min(1, max(0, min(l.visibility ?? 0, l.presence ?? 0))))
    }

    static func observation(_ person: PersonPose, width: Int, height: Int, revision: Int) -> VNHumanBodyPoseObservation {
        let points = VNHumanBodyPoseObservation.JointName.all.map { name -> VNRecognizedPoint in
            let position: SIMD2<Double>, confidence: Float
            switch name {
            case .neck, .root:
                let (a, b) = name == .neck ? (11, 12) : (23, 24)
                let la = person.landmarks[a], lb = person.landmarks[b]
                position = (la.position + lb.position) / 2
                confidence = (Self.confidence(la) + Self.confidence(lb)) / 2
            default:
                let l = person.landmarks[landmarkIndex[name]!]
                position = l.position
                confidence = Self.confidence(l)
            }
            let p = VisionCoordinates.point(position, width: width, height: height)
            let inside = (0...1).contains(p.x) && (0...1).contains(p.y)
            return VNRecognizedPoint(x: p.x, y: p.y, confidence: inside ? confidence : 0, identifier: name.rawValue)
        }
        return VNHumanBodyPoseObservation(
            points: points, confidence: Float(min(1, max(0, person.presence))), requestRevision: revision)
    }
}

/// Revision 1 of the body-pose request.
public let VNDetectHumanBodyPoseRequestRevision1: Int = 1

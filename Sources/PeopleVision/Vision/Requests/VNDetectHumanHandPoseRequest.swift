import Foundation
import PVCore
import PVImaging
import PVPerception

/// Finds hands and their 21 joints, as Apple's `VNDetectHumanHandPoseRequest` (revision 1).
///
/// ```swift
/// let request = VNDetectHumanHandPoseRequest()
/// request.maximumHandCount = 4
/// try VNImageRequestHandler(url: url).perform([request])
/// for hand in request.results ?? [] { print(hand.chirality, try hand.recognizedPoint(.indexTip).location) }
/// ```
///
/// MediaPipe's palm detector finds palms in the whole image and the hand landmark model places 21 joints on each
/// (its ROI then rebuilt from those joints and the model run once more). When that finds fewer hands than
/// ``maximumHandCount``, the people the body-pose pipeline finds are searched as well: a ROI around each visible
/// wrist, so that hands too small for the whole-image palm pass (people in full-body photos) are found too.
/// As Apple does, hands are ranked by size and only the largest ``maximumHandCount`` are returned.
public final class VNDetectHumanHandPoseRequest: VNImageBasedRequest, @unchecked Sendable {
    private let count = Locked(2)

    /// Most hands returned, largest first. Default 2. Values outside 1…64 make `perform` fail with
    /// ``VNErrorCode/invalidOption``.
    public var maximumHandCount: Int {
        get { count.withLock { $0 } }
        set { count.withLock { $0 = newValue } }
    }

    /// The hands found, largest first.
    public var results: [VNHumanHandPoseObservation]? { storedResults as? [VNHumanHandPoseObservation] }

    public override class var supportedRevisions: IndexSet { IndexSet(integer: VNDetectHumanHandPoseRequestRevision1) }

    /// The 21 joints this revision reports.
    public var supportedJointNames: [VNHumanHandPoseObservation.JointName] {
        get throws { try Self.supportedJointNames(forRevision: revision) }
    }

    /// The six joint groups this revision reports.
    public var supportedJointsGroupNames: [VNHumanHandPoseObservation.JointsGroupName] {
        get throws { try Self.supportedJointsGroupNames(forRevision: revision) }
    }

    /// The joints a revision reports (deprecated by Apple in iOS 17 in favour of the instance property).
    /// - Throws: ``VNErrorCode/unsupportedRevision`` for an unknown revision.
    public class func supportedJointNames(forRevision revision: Int) throws -> [VNHumanHandPoseObservation.JointName] {
        try checkSupported(revision: revision)
        return VNHumanHandPoseObservation.JointName.all
    }

    /// The joint groups a revision reports.
    /// - Throws: ``VNErrorCode/unsupportedRevision`` for an unknown revision.
    public class func supportedJointsGroupNames(forRevision revision: Int) throws -> [VNHumanHandPoseObservation.JointsGroupName] {
        try checkSupported(revision: revision)
        return VNHumanHandPoseObservation.JointsGroupName.members.map(\.0)
    }

    override func validate() throws {
        try super.validate()
        let n = maximumHandCount
        guard (1...64).contains(n) else {
            throw NSError(vision: .invalidOption, "maximumHandCount \(n) is outside 1…64")
        }
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let analysis = try image.analysis(of: regionOfInterest)
        let region = analysis.image
        var hands = try analysis.hands(maxHands: maximumHandCount)
        if let (sequence, time) = image.sequence { hands = sequence.smoothed(hands, for: self, timestamp: time) }
        return hands.map { Self.observation($0, width: region.width, height: region.height, revision: revision) }
    }

    static func observation(_ hand: HandPose, width: Int, height: Int, revision: Int) -> VNHumanHandPoseObservation {
        let confidence = Float(min(1, max(0, hand.presence)))
        let points = zip(VNHumanHandPoseObservation.JointName.all, hand.landmarks).map { name, l in
            let p = VisionCoordinates.point(l.position, width: width, height: height)
            return VNRecognizedPoint(x: p.x, y: p.y, confidence: confidence, identifier: name.rawValue)
        }
        return VNHumanHandPoseObservation(
            points: points, chirality: hand.side == .left ? .left : .right, confidence: confidence,
            requestRevision: revision)
    }
}

/// Revision 1 of the hand-pose request.
public let VNDetectHumanHandPoseRequestRevision1: Int = 1

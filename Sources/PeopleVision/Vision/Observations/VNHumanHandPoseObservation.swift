import Foundation

/// Which hand, as Apple's `VNChirality`: the subject's own left or right hand.
@frozen public enum VNChirality: Int, Sendable {
    case unknown = 0
    case left = -1
    case right = 1
}

/// One hand's 2-D pose, as Apple's `VNHumanHandPoseObservation` (revision 1): 21 joints normalized to the image
/// (lower-left origin) and the hand's ``chirality``.
///
/// ```swift
/// let request = VNDetectHumanHandPoseRequest()
/// request.maximumHandCount = 4
/// try VNImageRequestHandler(url: url).perform([request])
/// for hand in request.results ?? [] {
///     let tip = try hand.recognizedPoint(.indexTip)
///     print(hand.chirality == .left ? "left" : "right", tip.location)
/// }
/// ```
///
/// The hand landmark model has no per-joint confidence: every joint carries the hand's presence probability
/// (also the observation's `confidence`). ``chirality`` is the subject's anatomical hand on an **unmirrored**
/// image, as Apple's is; MediaPipe's own label assumes a mirrored selfie and is the opposite.
public final class VNHumanHandPoseObservation: VNRecognizedPointsObservation, @unchecked Sendable {
    /// A hand joint's name, as Apple's `VNHumanHandPoseObservation.JointName`.
    public struct JointName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: VNRecognizedPointKey
        public init(rawValue: VNRecognizedPointKey) { self.rawValue = rawValue }
        init(_ key: String) { rawValue = VNRecognizedPointKey(rawValue: key) }
        public var description: String { rawValue.rawValue }

        public static let wrist = JointName("VNHLKWRI")
        public static let thumbCMC = JointName("VNHLKTCMC")
        public static let thumbMP = JointName("VNHLKTMP")
        /// The thumb's IP joint (`"VNHLKTIP"`, not a tip).
        public static let thumbIP = JointName("VNHLKTIP")
        public static let thumbTip = JointName("VNHLKTTIP")
        public static let indexMCP = JointName("VNHLKIMCP")
        public static let indexPIP = JointName("VNHLKIPIP")
        public static let indexDIP = JointName("VNHLKIDIP")
        public static let indexTip = JointName("VNHLKITIP")
        public static let middleMCP = JointName("VNHLKMMCP")
        public static let middlePIP = JointName("VNHLKMPIP")
        public static let middleDIP = JointName("VNHLKMDIP")
        public static let middleTip = JointName("VNHLKMTIP")
        public static let ringMCP = JointName("VNHLKRMCP")
        public static let ringPIP = JointName("VNHLKRPIP")
        public static let ringDIP = JointName("VNHLKRDIP")
        public static let ringTip = JointName("VNHLKRTIP")
        public static let littleMCP = JointName("VNHLKPMCP")
        public static let littlePIP = JointName("VNHLKPPIP")
        public static let littleDIP = JointName("VNHLKPDIP")
        public static let littleTip = JointName("VNHLKPTIP")

        /// The 21 joints in the framework's order, which is also MediaPipe's landmark order (MODELS.md §12.6).
        static let all: [JointName] = [
            .wrist, .thumbCMC, .thumbMP, .thumbIP, .thumbTip, .indexMCP, .indexPIP, .indexDIP, .indexTip, .middleMCP,
            .middlePIP, .middleDIP, .middleTip, .ringMCP, .ringPIP, .ringDIP, .ringTip, .littleMCP, .littlePIP,
            .littleDIP, .littleTip,
        ]
    }

    /// A group of hand joints, as Apple's `VNHumanHandPoseObservation.JointsGroupName`.
    public struct JointsGroupName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: VNRecognizedPointGroupKey
        public init(rawValue: VNRecognizedPointGroupKey) { self.rawValue = rawValue }
        init(_ key: String) { rawValue = VNRecognizedPointGroupKey(rawValue: key) }
        public var description: String { rawValue.rawValue }

        public static let thumb = JointsGroupName("VNHLRKT")
        public static let indexFinger = JointsGroupName("VNHLRKI")
        public static let middleFinger = JointsGroupName("VNHLRKM")
        public static let ringFinger = JointsGroupName("VNHLRKR")
        public static let littleFinger = JointsGroupName("VNHLRKP")
        /// All 21 joints (the wrist belongs to this group only).
        public static let all = JointsGroupName(rawValue: .all)

        static let members: [(JointsGroupName, [JointName])] = [
            (.thumb, [.thumbCMC, .thumbMP, .thumbIP, .thumbTip]),
            (.indexFinger, [.indexMCP, .indexPIP, .indexDIP, .indexTip]),
            (.middleFinger, [.middleMCP, .middlePIP, .middleDIP, .middleTip]),
            (.ringFinger, [.ringMCP, .ringPIP, .ringDIP, .ringTip]),
            (.littleFinger, [.littleMCP, .littlePIP, .littleDIP, .littleTip]),
            (.all, JointName.all),
        ]
    }

    /// The subject's hand: `.left` or `.right` (`.unknown` is not produced by this build: the model always
    /// decides).
    public let chirality: VNChirality

    init(points: [VNRecognizedPoint], chirality: VNChirality, confidence: VNConfidence, requestRevision: Int) {
        self.chirality = chirality
        super.init(
            points: points,
            groups: RecognizedPointGroups(JointsGroupName.members),
            confidence: confidence, requestRevision: requestRevision)
    }

    /// The 21 joint names, in the framework's order.
    public var availableJointNames: [JointName] { availableKeys.map(JointName.init(rawValue:)) }

    /// The six group names (`.all` last).
    public var availableJointsGroupNames: [JointsGroupName] { availableGroupKeys.map(JointsGroupName.init(rawValue:)) }

    /// One joint.
    /// - Throws: ``VNErrorCode/invalidArgument`` for a name that is not one of the 21 joints.
    public func recognizedPoint(_ jointName: JointName) throws -> VNRecognizedPoint {
        try recognizedPoint(forKey: jointName.rawValue)
    }

    /// The joints of a group, by name.
    /// - Throws: ``VNErrorCode/invalidArgument`` for an unknown group.
    public func recognizedPoints(_ jointsGroupName: JointsGroupName) throws -> [JointName: VNRecognizedPoint] {
        try recognizedPoints(forGroupKey: jointsGroupName.rawValue, keyedAs: JointName.self)
    }
}

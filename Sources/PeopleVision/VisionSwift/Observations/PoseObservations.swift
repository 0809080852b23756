import Foundation

/// One joint of a 2-D pose, as Vision's `Joint` (iOS 18).
public struct Joint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The joint's name (the raw value of the observation's joint-name enum).
    public let jointName: String
    /// Where the joint is, normalized to the image (or the request's region of interest), lower-left origin.
    public let location: NormalizedPoint
    /// How sure the model is of the joint, 0…1.
    public let confidence: Float

    init(_ point: VNRecognizedPoint) {
        jointName = point.identifier.rawValue
        location = NormalizedPoint(x: point.x, y: point.y)
        confidence = point.confidence
    }

    /// The distance to `joint`, in normalized units.
    public func distance(to joint: Joint) -> CGFloat {
        let dx = location.x - joint.location.x, dy = location.y - joint.location.y
        return (dx * dx + dy * dy).squareRoot()
    }

    public var description: String { "Joint(\(jointName): \(location.x), \(location.y), confidence: \(confidence))" }
}

/// Observations made of named joints in named groups, as Vision's `PoseProviding` (iOS 18).
public protocol PoseProviding {
    /// The joints' names.
    associatedtype PoseJointName: Codable, Hashable, RawRepresentable where PoseJointName.RawValue == String
    /// The groups' names.
    associatedtype PoseJointsGroupName: CaseIterable, RawRepresentable where PoseJointsGroupName.RawValue == String
    /// The names of the joints this observation has.
    var availableJointNames: [PoseJointName] { get }
    /// The names of the groups this observation has.
    var availableJointsGroupNames: [PoseJointsGroupName] { get }
    /// The joint named `jointName`, nil when the observation has none.
    func joint(for jointName: PoseJointName) -> Joint?
    /// The joints of a group, every joint when `groupName` is nil.
    func allJoints(in groupName: PoseJointsGroupName?) -> [PoseJointName: Joint]
}

/// A body's 2-D pose, as Vision's `HumanBodyPoseObservation` (iOS 18), converted from a
/// ``VNHumanBodyPoseObservation`` with the same numbers: every joint is present, a joint the model could not place
/// with a low or zero confidence. Joint-name raw values are the `VN…` keys' (``VNRecognizedPointKey``).
public struct HumanBodyPoseObservation: VisionObservation, PoseProviding {
    /// A body joint.
    public enum JointName: String, Sendable, Hashable, Codable, CaseIterable {
        case nose = "head_joint", leftEye = "left_eye_joint", rightEye = "right_eye_joint", leftEar = "left_ear_joint"
        case rightEar = "right_ear_joint", leftShoulder = "left_shoulder_1_joint", rightShoulder = "right_shoulder_1_joint"
        case neck = "neck_1_joint", leftElbow = "left_forearm_joint", rightElbow = "right_forearm_joint"
        case leftWrist = "left_hand_joint", rightWrist = "right_hand_joint", leftHip = "left_upLeg_joint"
        case rightHip = "right_upLeg_joint", root = "root", leftKnee = "left_leg_joint", rightKnee = "right_leg_joint"
        case leftAnkle = "left_foot_joint", rightAnkle = "right_foot_joint"
    }

    /// A group of body joints.
    public enum JointsGroupName: String, Sendable, Hashable, Codable, CaseIterable {
        case face = "VNBLKFACE", torso = "VNBLKTORSO", leftArm = "VNBLKLARM", rightArm = "VNBLKRARM"
        case leftLeg = "VNBLKLLEG", rightLeg = "VNBLKRLEG"

        var members: [JointName] { jointNames(ofGroup: rawValue, in: VNHumanBodyPoseObservation.JointsGroupName.members) }
    }

    public typealias PoseJointName = JointName
    public typealias PoseJointsGroupName = JointsGroupName

    public let uuid: UUID
    public let confidence: Float
    public let originatingRequestDescriptor: RequestDescriptor?
    public let timeRange: CMTimeRange?
    /// The subject's left hand, with ``DetectHumanBodyPoseRequest/detectsHands``.
    public let leftHand: HumanHandPoseObservation?
    /// The subject's right hand, with ``DetectHumanBodyPoseRequest/detectsHands``.
    public let rightHand: HumanHandPoseObservation?
    private let joints: [JointName: Joint]

    /// The same body as a `VNHumanBodyPoseObservation`'s (no hands).
    public init(_ observation: VNHumanBodyPoseObservation) {
        self.init(observation, descriptor: nil, leftHand: nil, rightHand: nil)
    }

    init(
        _ observation: VNHumanBodyPoseObservation, descriptor: RequestDescriptor?, leftHand: HumanHandPoseObservation?,
        rightHand: HumanHandPoseObservation?
    ) {
        uuid = observation.uuid
        confidence = observation.confidence
        originatingRequestDescriptor = descriptor
        timeRange = observation.frameTimeRange
        self.leftHand = leftHand
        self.rightHand = rightHand
        joints = jointsByName(observation)
    }

    public var availableJointNames: [JointName] { JointName.allCases.filter { joints[$0] != nil } }
    public var availableJointsGroupNames: [JointsGroupName] { JointsGroupName.allCases }
    public func joint(for jointName: JointName) -> Joint? { joints[jointName] }
    public func allJoints(in groupName: JointsGroupName? = nil) -> [JointName: Joint] {
        guard let groupName else { return joints }
        return joints.filter { groupName.members.contains($0.key) }
    }

    /// The joints as a `[1, 3, 18]` array (x, y, confidence rows), in ``VNHumanBodyPoseObservation``'s
    /// `keypointsMultiArray()` column order. Never throws here; declared throwing as Apple's is.
    public var keypoints: MLMultiArray {
        get throws {
            let shoulders = min(joints[.leftShoulder]?.confidence ?? 0, joints[.rightShoulder]?.confidence ?? 0)
            return poseMultiArray(
                VNHumanBodyPoseObservation.multiArrayOrder.map { name in
                    let joint = JointName(rawValue: name.rawValue.rawValue).flatMap { joints[$0] }
                    return (joint, name == .neck ? shoulders : joint?.confidence ?? 0)
                })
        }
    }
}

/// A hand's pose, as Vision's `HumanHandPoseObservation` (iOS 18), converted from a ``VNHumanHandPoseObservation``.
public struct HumanHandPoseObservation: VisionObservation, PoseProviding {
    /// A hand joint.
    public enum JointName: String, Sendable, Hashable, Codable, CaseIterable {
        case wrist = "VNHLKWRI", thumbCMC = "VNHLKTCMC", thumbMP = "VNHLKTMP", thumbIP = "VNHLKTIP", thumbTip = "VNHLKTTIP"
        case indexMCP = "VNHLKIMCP", indexPIP = "VNHLKIPIP", indexDIP = "VNHLKIDIP", indexTip = "VNHLKITIP"
        case middleMCP = "VNHLKMMCP", middlePIP = "VNHLKMPIP", middleDIP = "VNHLKMDIP", middleTip = "VNHLKMTIP"
        case ringMCP = "VNHLKRMCP", ringPIP = "VNHLKRPIP", ringDIP = "VNHLKRDIP", ringTip = "VNHLKRTIP"
        case littleMCP = "VNHLKPMCP", littlePIP = "VNHLKPPIP", littleDIP = "VNHLKPDIP", littleTip = "VNHLKPTIP"
    }

    /// A group of hand joints (one per finger).
    public enum JointsGroupName: String, Sendable, Hashable, Codable, CaseIterable {
        case thumb = "VNHLRKT", indexFinger = "VNHLRKI", middleFinger = "VNHLRKM", ringFinger = "VNHLRKR"
        case littleFinger = "VNHLRKP"

        var members: [JointName] { jointNames(ofGroup: rawValue, in: VNHumanHandPoseObservation.JointsGroupName.members) }
    }

    /// Which hand, as Vision's `HumanHandPoseObservation.Chirality`.
    public enum Chirality: Sendable, Hashable, Codable {
        case left
        case right
    }

    public typealias PoseJointName = JointName
    public typealias PoseJointsGroupName = JointsGroupName

    public let uuid: UUID
    public let confidence: Float
    public let originatingRequestDescriptor: RequestDescriptor?
    public let timeRange: CMTimeRange?
    /// The subject's own hand (the engine always decides; nil only for `VNChirality.unknown`).
    public let chirality: Chirality?
    private let joints: [JointName: Joint]

    /// The same hand as a `VNHumanHandPoseObservation`'s.
    public init(_ observation: VNHumanHandPoseObservation) { self.init(observation, descriptor: nil) }

    init(_ observation: VNHumanHandPoseObservation, descriptor: RequestDescriptor?) {
        uuid = observation.uuid
        confidence = observation.confidence
        originatingRequestDescriptor = descriptor
        timeRange = observation.frameTimeRange
        chirality = switch observation.chirality {
        case .left: .left
        case .right: .right
        default: nil
        }
        joints = jointsByName(observation)
    }

    public var availableJointNames: [JointName] { JointName.allCases.filter { joints[$0] != nil } }
    public var availableJointsGroupNames: [JointsGroupName] { JointsGroupName.allCases }
    public func joint(for jointName: JointName) -> Joint? { joints[jointName] }
    public func allJoints(in groupName: JointsGroupName? = nil) -> [PoseJointName: Joint] {
        guard let groupName else { return joints }
        return joints.filter { groupName.members.contains($0.key) }
    }

    /// The joints as a `[1, 3, 21]` array (x, y, confidence rows), wrist first, then each finger from its base.
    /// Never throws here; declared throwing as Apple's is.
    public var keypoints: MLMultiArray {
        get throws { poseMultiArray(JointName.allCases.map { (joints[$0], joints[$0]?.confidence ?? 0) }) }
    }
}

/// The joints of a `VN…` pose observation by their Swift-API names.
func jointsByName<Name: RawRepresentable & Hashable>(_ observation: VNRecognizedPointsObservation) -> [Name: Joint]
where Name.RawValue == String {
    var joints: [Name: Joint] = [:]
    for p in observation.orderedPoints { if let n = Name(rawValue: p.identifier.rawValue) { joints[n] = Joint(p) } }
    return joints
}

/// The Swift-API names of the members of the group `groupKey` in a `VN…` pose observation's group table (none for
/// a group the table lacks).
func jointNames<Group: RawRepresentable, EngineName: RawRepresentable, Name: RawRepresentable>(
    ofGroup groupKey: String, in table: [(Group, [EngineName])]
) -> [Name]
where Group.RawValue == VNRecognizedPointGroupKey, EngineName.RawValue == VNRecognizedPointKey, Name.RawValue == String {
    table.first { $0.0.rawValue.rawValue == groupKey }?.1.compactMap { Name(rawValue: $0.rawValue.rawValue) } ?? []
}

/// The `[1, 3, N]` array of the given joints: row 0 x, row 1 y, row 2 confidence (a missing joint is all zeros).
private func poseMultiArray(_ columns: [(joint: Joint?, confidence: Float)]) -> MLMultiArray {
    let n = columns.count
    var values = [Double](repeating: 0, count: 3 * n)
    for (i, c) in columns.enumerated() {
        values[i] = Double(c.joint?.location.x ?? 0)
        values[n + i] = Double(c.joint?.location.y ?? 0)
        values[2 * n + i] = Double(c.confidence)
    }
    return MLMultiArray(shape: [1, 3, n], values: values)
}

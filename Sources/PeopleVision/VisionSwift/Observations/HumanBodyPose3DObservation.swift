import Foundation

/// One joint of a 3-D pose, as Vision's `Joint3D` (iOS 18).
public struct Joint3D: Sendable, Hashable, Codable {
    /// The joint's name (the raw value of ``HumanBodyPose3DObservation/JointName``).
    public let identifier: String
    /// The joint's pose relative to the skeleton's root, metres.
    public let position: simd_float4x4
    /// The joint's pose relative to its parent joint.
    public let localPosition: simd_float4x4
    /// The parent joint's name.
    public let parentJoint: String

    /// A joint made by hand (Apple's spelling of the `identifer` label).
    public init(position: simd_float4x4, localPosition: simd_float4x4, identifer: String, parentJoint: String) {
        self.position = position
        self.localPosition = localPosition
        identifier = identifer
        self.parentJoint = parentJoint
    }
}

/// The most prominent person's 3-D body pose, as Vision's `HumanBodyPose3DObservation` (iOS 18), converted from a
/// ``VNHumanBodyPose3DObservation`` with the same numbers. Joint-name raw values are the `VN…` keys'.
public struct HumanBodyPose3DObservation: VisionObservation {
    /// A 3-D body joint.
    public enum JointName: String, Sendable, Hashable, Codable, CaseIterable {
        case topHead = "human_top_head_3D", centerHead = "human_center_head_3D"
        case centerShoulder = "human_center_shoulder_3D", leftShoulder = "human_left_shoulder_3D"
        case rightShoulder = "human_right_shoulder_3D", spine = "human_spine_3D", leftElbow = "human_left_elbow_3D"
        case rightElbow = "human_right_elbow_3D", leftWrist = "human_left_wrist_3D", rightWrist = "human_right_wrist_3D"
        case root = "human_root_3D", leftHip = "human_left_hip_3D", rightHip = "human_right_hip_3D"
        case leftKnee = "human_left_knee_3D", rightKnee = "human_right_knee_3D", leftAnkle = "human_left_ankle_3D"
        case rightAnkle = "human_right_ankle_3D"

        var engineName: VNHumanBodyPose3DObservation.JointName { .init(rawValue: VNRecognizedPointKey(rawValue: rawValue)) }
    }

    /// A group of 3-D joints.
    public enum JointsGroupName: String, Sendable, Hashable, Codable, CaseIterable {
        case head = "human_joint_group_head_3D", torso = "human_joint_group_torso_3D"
        case leftArm = "human_joint_group_left_arm_3D", rightArm = "human_joint_group_right_arm_3D"
        case leftLeg = "human_joint_group_left_leg_3D", rightLeg = "human_joint_group_right_leg_3D"

        var members: [JointName] { jointNames(ofGroup: rawValue, in: VNHumanBodyPose3DObservation.JointsGroupName.members) }
    }

    /// How the body's height was found.
    public enum EstimationTechnique: Sendable, Hashable, Codable {
        /// From depth data.
        case measured
        /// The reference height, 1.8 m (the image came without usable depth).
        case reference
    }

    public let uuid: UUID
    public let confidence: Float
    public let originatingRequestDescriptor: RequestDescriptor?
    public let timeRange: CMTimeRange?
    /// The body's height.
    public let bodyHeight: Measurement<UnitLength>
    /// How ``bodyHeight`` was found.
    public let heightEstimationTechnique: EstimationTechnique
    /// The camera's pose relative to the skeleton's root.
    public let cameraOriginMatrix: simd_float4x4
    private let joints: [JointName: Joint3D]
    private let imagePoints: [JointName: NormalizedPoint]
    private let cameraRelative: [JointName: simd_float4x4]

    /// The same body as a `VNHumanBodyPose3DObservation`'s.
    public init(_ observation: VNHumanBodyPose3DObservation) { self.init(observation, descriptor: nil) }

    init(_ observation: VNHumanBodyPose3DObservation, descriptor: RequestDescriptor?) {
        uuid = observation.uuid
        confidence = observation.confidence
        originatingRequestDescriptor = descriptor
        timeRange = observation.frameTimeRange
        bodyHeight = Measurement(value: Double(observation.bodyHeight), unit: .meters)
        heightEstimationTechnique = observation.heightEstimation == .measured ? .measured : .reference
        cameraOriginMatrix = observation.cameraOriginMatrix
        var joints: [JointName: Joint3D] = [:], points: [JointName: NormalizedPoint] = [:]
        var relative: [JointName: simd_float4x4] = [:]
        for name in JointName.allCases {
            guard let p = try? observation.recognizedPoint(name.engineName) else { continue }
            joints[name] = Joint3D(
                position: p.position, localPosition: p.localPosition, identifer: name.rawValue,
                parentJoint: p.parentJoint.rawValue.rawValue)
            if let image = try? observation.pointInImage(name.engineName) { points[name] = NormalizedPoint(x: image.x, y: image.y) }
            if let m = try? observation.cameraRelativePosition(name.engineName) { relative[name] = m }
        }
        self.joints = joints
        imagePoints = points
        cameraRelative = relative
    }

    /// The names of the joints this observation has.
    public var availableJointNames: [JointName] { JointName.allCases.filter { joints[$0] != nil } }
    /// The names of the groups this observation has.
    public var availableJointsGroupNames: [JointsGroupName] { JointsGroupName.allCases }
    /// The joint named `jointName`.
    public func joint(for jointName: JointName) -> Joint3D? { joints[jointName] }
    /// The joints of a group, every joint when `groupName` is nil.
    public func allJoints(in groupName: JointsGroupName? = nil) -> [JointName: Joint3D] {
        guard let groupName else { return joints }
        return joints.filter { groupName.members.contains($0.key) }
    }

    /// The parent of `jointName` in the skeleton (the root's is itself).
    public func parentJointName(for jointName: JointName) -> JointName {
        VNHumanBodyPose3DObservation.JointName.parents[jointName.engineName].flatMap { JointName(rawValue: $0.rawValue.rawValue) }
            ?? .root
    }

    /// Where the joint appears in the image, normalized, lower-left origin (`.zero` for a joint the observation lacks).
    public func pointInImage(for jointName: JointName) -> NormalizedPoint { imagePoints[jointName] ?? .zero }

    /// The joint's pose relative to the camera (zero matrix for a joint the observation lacks).
    public func cameraRelativePosition(for jointName: JointName) -> simd_float4x4 { cameraRelative[jointName] ?? simd_float4x4() }
}

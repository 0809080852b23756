import Foundation

/// The name of a recognized point, as Apple's `VNRecognizedPointKey` (a `String` wrapper). Body and hand joint
/// names wrap one of these: `VNHumanBodyPoseObservation.JointName.nose.rawValue.rawValue == "head_joint"`.
public struct VNRecognizedPointKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// The name of a group of recognized points, as Apple's `VNRecognizedPointGroupKey`.
public struct VNRecognizedPointGroupKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Every point of an observation (`"VNIPOAll"`).
    public static let all = VNRecognizedPointGroupKey(rawValue: "VNIPOAll")
}

/// The body-landmark keys of Apple's first body-pose API (iOS 14), which its `JointName`s wrap:
/// `VNHumanBodyPoseObservation.JointName.nose.rawValue == .bodyLandmarkKeyNose`.
extension VNRecognizedPointKey {
    public static let bodyLandmarkKeyNose = VNRecognizedPointKey(rawValue: "head_joint")
    public static let bodyLandmarkKeyLeftEye = VNRecognizedPointKey(rawValue: "left_eye_joint")
    public static let bodyLandmarkKeyRightEye = VNRecognizedPointKey(rawValue: "right_eye_joint")
    public static let bodyLandmarkKeyLeftEar = VNRecognizedPointKey(rawValue: "left_ear_joint")
    public static let bodyLandmarkKeyRightEar = VNRecognizedPointKey(rawValue: "right_ear_joint")
    public static let bodyLandmarkKeyLeftShoulder = VNRecognizedPointKey(rawValue: "left_shoulder_1_joint")
    public static let bodyLandmarkKeyRightShoulder = VNRecognizedPointKey(rawValue: "right_shoulder_1_joint")
    public static let bodyLandmarkKeyNeck = VNRecognizedPointKey(rawValue: "neck_1_joint")
    public static let bodyLandmarkKeyLeftElbow = VNRecognizedPointKey(rawValue: "left_forearm_joint")
    public static let bodyLandmarkKeyRightElbow = VNRecognizedPointKey(rawValue: "right_forearm_joint")
    public static let bodyLandmarkKeyLeftWrist = VNRecognizedPointKey(rawValue: "left_hand_joint")
    public static let bodyLandmarkKeyRightWrist = VNRecognizedPointKey(rawValue: "right_hand_joint")
    public static let bodyLandmarkKeyLeftHip = VNRecognizedPointKey(rawValue: "left_upLeg_joint")
    public static let bodyLandmarkKeyRightHip = VNRecognizedPointKey(rawValue: "right_upLeg_joint")
    public static let bodyLandmarkKeyRoot = VNRecognizedPointKey(rawValue: "root")
    public static let bodyLandmarkKeyLeftKnee = VNRecognizedPointKey(rawValue: "left_leg_joint")
    public static let bodyLandmarkKeyRightKnee = VNRecognizedPointKey(rawValue: "right_leg_joint")
    public static let bodyLandmarkKeyLeftAnkle = VNRecognizedPointKey(rawValue: "left_foot_joint")
    public static let bodyLandmarkKeyRightAnkle = VNRecognizedPointKey(rawValue: "right_foot_joint")
}

/// The body-region keys of Apple's first body-pose API, which its `JointsGroupName`s wrap.
extension VNRecognizedPointGroupKey {
    public static let bodyLandmarkRegionKeyFace = VNRecognizedPointGroupKey(rawValue: "VNBLKFACE")
    public static let bodyLandmarkRegionKeyTorso = VNRecognizedPointGroupKey(rawValue: "VNBLKTORSO")
    public static let bodyLandmarkRegionKeyLeftArm = VNRecognizedPointGroupKey(rawValue: "VNBLKLARM")
    public static let bodyLandmarkRegionKeyRightArm = VNRecognizedPointGroupKey(rawValue: "VNBLKRARM")
    public static let bodyLandmarkRegionKeyLeftLeg = VNRecognizedPointGroupKey(rawValue: "VNBLKLLEG")
    public static let bodyLandmarkRegionKeyRightLeg = VNRecognizedPointGroupKey(rawValue: "VNBLKRLEG")
    /// Every point of a 3-D observation (the same key as ``all``).
    public static let point3DGroupKeyAll = VNRecognizedPointGroupKey.all
}

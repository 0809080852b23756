import Foundation
import PVPerception

/// A point in 3-D, as Apple's `VNPoint3D`: a transform whose translation (`columns.3`) is the point.
open class VNPoint3D: NSObject, NSCopying, @unchecked Sendable {
    /// The point's transform.
    public let position: simd_float4x4

    /// A point with the transform `position`.
    public init?(position: simd_float4x4) {
        self.position = position
        super.init()
    }

    init(transform: simd_float4x4) {
        position = transform
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// A named 3-D point, as Apple's `VNRecognizedPoint3D` (no confidence, as Apple's).
open class VNRecognizedPoint3D: VNPoint3D, @unchecked Sendable {
    /// The point's name.
    public let identifier: VNRecognizedPointKey

    init(transform: simd_float4x4, identifier: VNRecognizedPointKey) {
        self.identifier = identifier
        super.init(transform: transform)
    }
}

/// A body joint in 3-D, as Apple's `VNHumanBodyRecognizedPoint3D`.
public final class VNHumanBodyRecognizedPoint3D: VNRecognizedPoint3D, @unchecked Sendable {
    /// The joint relative to ``parentJoint`` (translation in `columns.3`, no rotation), metres.
    public let localPosition: simd_float4x4
    /// The joint this one hangs from (`.root` for the root itself).
    public let parentJoint: VNHumanBodyPose3DObservation.JointName

    init(position: simd_float4x4, localPosition: simd_float4x4, joint: VNHumanBodyPose3DObservation.JointName,
         parent: VNHumanBodyPose3DObservation.JointName) {
        self.localPosition = localPosition
        parentJoint = parent
        super.init(transform: position, identifier: joint.rawValue)
    }
}

/// An observation made of named 3-D points, as Apple's `VNRecognizedPoints3DObservation`.
open class VNRecognizedPoints3DObservation: VNObservation, @unchecked Sendable {
    private let table: RecognizedPointTable<VNRecognizedPoint3D>

    init(points: [VNRecognizedPoint3D], groups: RecognizedPointGroups, confidence: VNConfidence, requestRevision: Int) {
        table = RecognizedPointTable(points, groups: groups, noun: "3D point")
        super.init(confidence: confidence, requestRevision: requestRevision)
    }

    /// The keys of every point, in the framework's order.
    public var availableKeys: [VNRecognizedPointKey] { table.keys }
    /// The keys of every group (`.all` last).
    public var availableGroupKeys: [VNRecognizedPointGroupKey] { table.groups.groupKeys }

    /// The point named `pointKey`.
    /// - Throws: ``VNErrorCode/invalidArgument`` when the observation has no such point.
    public func recognizedPoint(forKey pointKey: VNRecognizedPointKey) throws -> VNRecognizedPoint3D {
        try table.point(forKey: pointKey)
    }

    /// The points of the group `groupKey`, by key (`.all` gives every point).
    /// - Throws: ``VNErrorCode/invalidArgument`` for a group the observation does not have.
    public func recognizedPoints(forGroupKey groupKey: VNRecognizedPointGroupKey) throws -> [VNRecognizedPointKey: VNRecognizedPoint3D] {
        try table.points(inGroup: groupKey)
    }
}

/// One person's 3-D body pose, as Apple's `VNHumanBodyPose3DObservation` (revision 1): 17 joints in metres.
///
/// Frames (Apple documents neither axis directions nor the camera model; these are PeopleVision's):
/// - **model space** (``recognizedPoint(_:)``'s `position`, `localPosition`): origin at the root (between the hips),
///   axes those of the camera: x to the image's right, y up, z toward the camera;
/// - **camera space** (``cameraRelativePosition(_:)``): origin at the camera, same axes (the camera looks along −z);
/// - ``cameraOriginMatrix``: the camera in model space (a translation: the skeleton's axes are the camera's).
///
/// Joint transforms carry no rotation. Without depth, ``bodyHeight`` is Vision's reference height, 1.8 m
/// (``heightEstimation`` `.reference`): the skeleton is scaled to it, so distances to the camera are those of a
/// 1.8-m person. With depth it is measured (`.measured`) and the skeleton stands at the measured distance
/// (``VNDetectHumanBodyPose3DRequest`` says how). ``pointInImage(_:)`` projects through the handler's camera intrinsics
/// (`VNImageOption.cameraIntrinsics`) or, without them, the file's EXIF 35 mm-equivalent focal length, else a 26
/// mm-equivalent lens (a phone's main camera).
public final class VNHumanBodyPose3DObservation: VNRecognizedPoints3DObservation, @unchecked Sendable {
    /// A 3-D body joint's name, as Apple's `VNHumanBodyPose3DObservation.JointName`.
    public struct JointName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: VNRecognizedPointKey
        public init(rawValue: VNRecognizedPointKey) { self.rawValue = rawValue }
        init(_ key: String) { rawValue = VNRecognizedPointKey(rawValue: key) }
        public var description: String { rawValue.rawValue }

        public static let root = JointName("human_root_3D")
        public static let rightHip = JointName("human_right_hip_3D")
        public static let rightKnee = JointName("human_right_knee_3D")
        public static let rightAnkle = JointName("human_right_ankle_3D")
        public static let leftHip = JointName("human_left_hip_3D")
        public static let leftKnee = JointName("human_left_knee_3D")
        public static let leftAnkle = JointName("human_left_ankle_3D")
        public static let spine = JointName("human_spine_3D")
        public static let centerShoulder = JointName("human_center_shoulder_3D")
        public static let centerHead = JointName("human_center_head_3D")
        public static let topHead = JointName("human_top_head_3D")
        public static let leftShoulder = JointName("human_left_shoulder_3D")
        public static let leftElbow = JointName("human_left_elbow_3D")
        public static let leftWrist = JointName("human_left_wrist_3D")
        public static let rightShoulder = JointName("human_right_shoulder_3D")
        public static let rightElbow = JointName("human_right_elbow_3D")
        public static let rightWrist = JointName("human_right_wrist_3D")

        /// The 17 joints in the framework's supported-joint order, with the engine's joint.
        static let all: [(JointName, BodyPose3D.Joint)] = [
            (.topHead, .topHead), (.centerHead, .centerHead), (.centerShoulder, .centerShoulder),
            (.leftShoulder, .leftShoulder), (.rightShoulder, .rightShoulder), (.spine, .spine), (.leftElbow, .leftElbow),
            (.rightElbow, .rightElbow), (.leftWrist, .leftWrist), (.rightWrist, .rightWrist), (.root, .root),
            (.leftHip, .leftHip), (.rightHip, .rightHip), (.leftKnee, .leftKnee), (.rightKnee, .rightKnee),
            (.leftAnkle, .leftAnkle), (.rightAnkle, .rightAnkle),
        ]

        /// Each joint's parent (the root's is itself).
        static let parents: [JointName: JointName] = [
            .root: .root, .rightHip: .root, .rightKnee: .rightHip, .rightAnkle: .rightKnee, .leftHip: .root,
            .leftKnee: .leftHip, .leftAnkle: .leftKnee, .spine: .root, .centerShoulder: .spine, .centerHead: .centerShoulder,
            .topHead: .centerHead, .leftShoulder: .centerShoulder, .leftElbow: .leftShoulder, .leftWrist: .leftElbow,
            .rightShoulder: .centerShoulder, .rightElbow: .rightShoulder, .rightWrist: .rightElbow,
        ]
    }

    /// A group of 3-D joints, as Apple's `VNHumanBodyPose3DObservation.JointsGroupName`.
    public struct JointsGroupName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: VNRecognizedPointGroupKey
        public init(rawValue: VNRecognizedPointGroupKey) { self.rawValue = rawValue }
        init(_ key: String) { rawValue = VNRecognizedPointGroupKey(rawValue: key) }
        public var description: String { rawValue.rawValue }

        /// Top and centre of the head.
        public static let head = JointsGroupName("human_joint_group_head_3D")
        /// Shoulders, centre shoulder, spine, hips, root.
        public static let torso = JointsGroupName("human_joint_group_torso_3D")
        /// Left shoulder, elbow, wrist.
        public static let leftArm = JointsGroupName("human_joint_group_left_arm_3D")
        /// Right shoulder, elbow, wrist.
        public static let rightArm = JointsGroupName("human_joint_group_right_arm_3D")
        /// Left hip, knee, ankle.
        public static let leftLeg = JointsGroupName("human_joint_group_left_leg_3D")
        /// Right hip, knee, ankle.
        public static let rightLeg = JointsGroupName("human_joint_group_right_leg_3D")
        /// All 17 joints.
        public static let all = JointsGroupName(rawValue: .point3DGroupKeyAll)

        /// Groups in order, with their members.
        static let members: [(JointsGroupName, [JointName])] = [
            (.head, [.topHead, .centerHead]),
            (.torso, [.leftShoulder, .rightShoulder, .centerShoulder, .spine, .leftHip, .root, .rightHip]),
            (.leftArm, [.leftShoulder, .leftElbow, .leftWrist]),
            (.rightArm, [.rightShoulder, .rightElbow, .rightWrist]),
            (.leftLeg, [.leftHip, .leftKnee, .leftAnkle]),
            (.rightLeg, [.rightHip, .rightKnee, .rightAnkle]),
            (.all, JointName.all.map(\.0)),
        ]
    }

    /// How ``bodyHeight`` was found, as Apple's `HeightEstimation`.
    public enum HeightEstimation: Int, Sendable {
        /// No depth: Vision's reference height (1.8 m).
        case reference = 0
        /// Measured from depth.
        case measured = 1
    }

    private let skeleton: BodyPose3D
    /// The size of the region the skeleton's camera coordinates are for (pixels; for ``pointInImage(_:)``).
    private let region: (width: Double, height: Double)

    /// The body height, metres: exactly 1.8 with ``HeightEstimation/reference``, measured from depth with
    /// ``HeightEstimation/measured``.
    public let bodyHeight: Float
    /// How ``bodyHeight`` was found.
    public let heightEstimation: HeightEstimation

    init(skeleton: BodyPose3D, region: (width: Double, height: Double), confidence: VNConfidence,
         heightEstimation: HeightEstimation = .reference, requestRevision: Int) {
        self.skeleton = skeleton
        self.region = region
        bodyHeight = Float(skeleton.height)
        self.heightEstimation = heightEstimation
        let root = Self.camera(skeleton.position(.root))
        let model = Dictionary(uniqueKeysWithValues: JointName.all.map { ($0.0, Self.camera(skeleton.position($0.1)) - root) })
        let points = JointName.all.map { name, _ -> VNRecognizedPoint3D in
            let parent = JointName.parents[name]!
            return VNHumanBodyRecognizedPoint3D(
                position: simd_float4x4(translation: model[name]!), localPosition: simd_float4x4(translation: model[name]! - model[parent]!),
                joint: name, parent: parent)
        }
        super.init(
            points: points, groups: RecognizedPointGroups(JointsGroupName.members), confidence: confidence,
            requestRevision: requestRevision)
    }

    /// A camera-frame point of the engine (x right, y down, z forward) in Vision's (x right, y up, z toward the
    /// viewer).
    static func camera(_ p: SIMD3<Double>) -> SIMD3<Double> { SIMD3(p.x, -p.y, -p.z) }

    /// The joints' names, in the framework's order.
    public var availableJointNames: [JointName] { JointName.all.map(\.0) }
    /// The groups' names (`.all` last).
    public var availableJointsGroupNames: [JointsGroupName] { JointsGroupName.members.map(\.0) }

    /// The joint `jointName` in model space.
    /// - Throws: ``VNErrorCode/invalidArgument`` for a name that is not one of the 17.
    public func recognizedPoint(_ jointName: JointName) throws -> VNHumanBodyRecognizedPoint3D {
        // Every point is a body point.
        try recognizedPoint(forKey: jointName.rawValue) as! VNHumanBodyRecognizedPoint3D
    }

    /// The joints of a group, by name.
    /// - Throws: ``VNErrorCode/invalidArgument`` for an unknown group.
    public func recognizedPoints(_ jointsGroupName: JointsGroupName) throws -> [JointName: VNHumanBodyRecognizedPoint3D] {
        var out: [JointName: VNHumanBodyRecognizedPoint3D] = [:]
        for (k, p) in try recognizedPoints(forGroupKey: jointsGroupName.rawValue) {
            out[JointName(rawValue: k)] = p as? VNHumanBodyRecognizedPoint3D
        }
        return out
    }

    /// The joint `jointName` hangs from (`.root` for the root), or nil for a name that is not one of the 17.
    public func parentJointName(_ jointName: JointName) -> JointName? { JointName.parents[jointName] }

    private func engineJoint(_ name: JointName) throws -> BodyPose3D.Joint {
        guard let j = JointName.all.first(where: { $0.0 == name })?.1 else {
            throw NSError(vision: .invalidArgument, "no 3D joint named '\(name.rawValue.rawValue)'")
        }
        return j
    }

    /// Where `jointName` projects in the image: normalized to the request's region of interest, lower-left origin.
    /// - Throws: ``VNErrorCode/invalidArgument`` for an unknown joint.
    public func pointInImage(_ jointName: JointName) throws -> VNPoint {
        let p = skeleton.projection(try engineJoint(jointName))
        return VNPoint(x: p.x / region.width, y: 1 - p.y / region.height)
    }

    /// The joint relative to the camera (translation in `columns.3`, metres; x right, y up, z toward the viewer).
    /// - Throws: ``VNErrorCode/invalidArgument`` for an unknown joint.
    public func cameraRelativePosition(_ jointName: JointName) throws -> simd_float4x4 {
        simd_float4x4(translation: Self.camera(skeleton.position(try engineJoint(jointName))))
    }

    /// The camera's transform in model space (the root at the origin): a translation, since the skeleton's axes are
    /// the camera's.
    public var cameraOriginMatrix: simd_float4x4 {
        simd_float4x4(translation: -Self.camera(skeleton.position(.root)))
    }
}

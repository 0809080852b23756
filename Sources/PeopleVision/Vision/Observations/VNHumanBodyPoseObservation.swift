import Foundation

/// One person's 2-D body pose, as Apple's `VNHumanBodyPoseObservation` (revision 1): 19 joints, normalized to
/// the image (lower-left origin), each with a confidence.
///
/// ```swift
/// let request = VNDetectHumanBodyPoseRequest()
/// try VNImageRequestHandler(url: url).perform([request])
/// for body in request.results ?? [] {
///     let wrist = try body.recognizedPoint(.leftWrist)
///     if wrist.confidence > 0.3 { print(wrist.location) }
/// }
/// ```
///
/// Left and right are the **subject's** own. All 19 joints are always present: 17 come from the pose model, `neck`
/// is the midpoint of the shoulders and `root` the midpoint of the hips, each with the mean of the two
/// confidences. A joint's confidence is the landmark model's probability that the point is visible and inside
/// the image (the smaller of the two), reported however low it is: an occluded joint keeps its best-guess location
/// and a low confidence, which the usual thresholds of sample code (0.1–0.3) filter out. A joint whose location
/// falls outside the image has confidence 0 (its location is still the model's guess).
public final class VNHumanBodyPoseObservation: VNRecognizedPointsObservation, @unchecked Sendable {
    /// A body joint's name, as Apple's `VNHumanBodyPoseObservation.JointName`.
    public struct JointName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: VNRecognizedPointKey
        public init(rawValue: VNRecognizedPointKey) { self.rawValue = rawValue }
        init(_ key: String) { rawValue = VNRecognizedPointKey(rawValue: key) }
        public var description: String { rawValue.rawValue }

        public static let nose = JointName(rawValue: .bodyLandmarkKeyNose)
        public static let leftEye = JointName(rawValue: .bodyLandmarkKeyLeftEye)
        public static let rightEye = JointName(rawValue: .bodyLandmarkKeyRightEye)
        public static let leftEar = JointName(rawValue: .bodyLandmarkKeyLeftEar)
        public static let rightEar = JointName(rawValue: .bodyLandmarkKeyRightEar)
        public static let leftShoulder = JointName(rawValue: .bodyLandmarkKeyLeftShoulder)
        public static let rightShoulder = JointName(rawValue: .bodyLandmarkKeyRightShoulder)
        public static let neck = JointName(rawValue: .bodyLandmarkKeyNeck)
        public static let leftElbow = JointName(rawValue: .bodyLandmarkKeyLeftElbow)
        public static let rightElbow = JointName(rawValue: .bodyLandmarkKeyRightElbow)
        public static let leftWrist = JointName(rawValue: .bodyLandmarkKeyLeftWrist)
        public static let rightWrist = JointName(rawValue: .bodyLandmarkKeyRightWrist)
        public static let leftHip = JointName(rawValue: .bodyLandmarkKeyLeftHip)
        public static let rightHip = JointName(rawValue: .bodyLandmarkKeyRightHip)
        public static let root = JointName(rawValue: .bodyLandmarkKeyRoot)
        public static let leftKnee = JointName(rawValue: .bodyLandmarkKeyLeftKnee)
        public static let rightKnee = JointName(rawValue: .bodyLandmarkKeyRightKnee)
        public static let leftAnkle = JointName(rawValue: .bodyLandmarkKeyLeftAnkle)
        public static let rightAnkle = JointName(rawValue: .bodyLandmarkKeyRightAnkle)

        /// The 19 joints in the framework's supported-joint order.
        static let all: [JointName] = [
            .nose, .leftEye, .rightEye, .leftEar, .rightEar, .leftShoulder, .rightShoulder, .neck, .leftElbow,
            .rightElbow, .leftWrist, .rightWrist, .leftHip, .rightHip, .root, .leftKnee, .rightKnee, .leftAnkle,
            .rightAnkle,
        ]
    }

    /// A group of body joints, as Apple's `VNHumanBodyPoseObservation.JointsGroupName`.
    public struct JointsGroupName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: VNRecognizedPointGroupKey
        public init(rawValue: VNRecognizedPointGroupKey) { self.rawValue = rawValue }
        init(_ key: String) { rawValue = VNRecognizedPointGroupKey(rawValue: key) }
        public var description: String { rawValue.rawValue }

        /// Nose, eyes, ears.
        public static let face = JointsGroupName(rawValue: .bodyLandmarkRegionKeyFace)
        /// Shoulders, neck, hips, root.
        public static let torso = JointsGroupName(rawValue: .bodyLandmarkRegionKeyTorso)
        /// Left shoulder, elbow, wrist.
        public static let leftArm = JointsGroupName(rawValue: .bodyLandmarkRegionKeyLeftArm)
        /// Right shoulder, elbow, wrist.
        public static let rightArm = JointsGroupName(rawValue: .bodyLandmarkRegionKeyRightArm)
        /// Left hip, knee, ankle.
        public static let leftLeg = JointsGroupName(rawValue: .bodyLandmarkRegionKeyLeftLeg)
        /// Right hip, knee, ankle.
        public static let rightLeg = JointsGroupName(rawValue: .bodyLandmarkRegionKeyRightLeg)
        /// All 19 joints.
        public static let all = JointsGroupName(rawValue: .all)

        /// Groups in order, with their members.
        static let members: [(JointsGroupName, [JointName])] = [
            (.face, [.nose, .leftEye, .rightEye, .leftEar, .rightEar]),
            (.torso, [.leftShoulder, .rightShoulder, .neck, .leftHip, .rightHip, .root]),
            (.leftArm, [.leftShoulder, .leftElbow, .leftWrist]),
            (.rightArm, [.rightShoulder, .rightElbow, .rightWrist]),
            (.leftLeg, [.leftHip, .leftKnee, .leftAnkle]),
            (.rightLeg, [.rightHip, .rightKnee, .rightAnkle]),
            (.all, JointName.all),
        ]
    }

    /// Column order of ``keypointsMultiArray()`` (OpenPose-18; no root).
    static let multiArrayOrder: [JointName] = [
        .nose, .neck, .rightShoulder, .rightElbow, .rightWrist, .leftShoulder, .leftElbow, .leftWrist, .rightHip,
        .rightKnee, .rightAnkle, .leftHip, .leftKnee, .leftAnkle, .rightEye, .leftEye, .rightEar, .leftEar,
    ]

    init(points: [VNRecognizedPoint], confidence: VNConfidence, requestRevision: Int) {
        super.init(
            points: points,
            groups: RecognizedPointGroups(JointsGroupName.members),
            confidence: confidence, requestRevision: requestRevision)
    }

    /// The 19 joint names, in the framework's order.
    public var availableJointNames: [JointName] { availableKeys.map(JointName.init(rawValue:)) }

    /// The seven group names (`.all` last).
    public var availableJointsGroupNames: [JointsGroupName] { availableGroupKeys.map(JointsGroupName.init(rawValue:)) }

    /// One joint.
    /// - Throws: ``VNErrorCode/invalidArgument`` for a name that is not one of the 19 joints.
    public func recognizedPoint(_ jointName: JointName) throws -> VNRecognizedPoint {
        try recognizedPoint(forKey: jointName.rawValue)
    }

    /// The joints of a group, by name.
    /// - Throws: ``VNErrorCode/invalidArgument`` for an unknown group.
    public func recognizedPoints(_ jointsGroupName: JointsGroupName) throws -> [JointName: VNRecognizedPoint] {
        try recognizedPoints(forGroupKey: jointsGroupName.rawValue, keyedAs: JointName.self)
    }

    /// The joints as a `[1, 3, 18]` array of doubles: row 0 x, row 1 y, row 2 confidence; columns in OpenPose-18
    /// order (nose, neck, right shoulder, elbow, wrist, left shoulder, elbow, wrist, right hip, knee, ankle, left
    /// hip, knee, ankle, right eye, left eye, right ear, left ear; no root). The neck's confidence here is the
    /// **smaller** of the two shoulders', as Apple's is.
    public override func keypointsMultiArray() throws -> MLMultiArray {
        let columns = try Self.multiArrayOrder.map { name -> (x: Double, y: Double, confidence: Double) in
            let p = try recognizedPoint(name)
            if name == .neck {
                let l = try recognizedPoint(.leftShoulder), r = try recognizedPoint(.rightShoulder)
                return (p.x, p.y, Double(min(l.confidence, r.confidence)))
            }
            return (p.x, p.y, Double(p.confidence))
        }
        return multiArray(columns: columns)
    }
}

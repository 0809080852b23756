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

import Foundation

/// A stage of a request's work that can be given a compute device, as Vision's `ComputeStage` (iOS 18).
public enum ComputeStage: Sendable, Hashable, Codable {
    /// The request's main work (here: every model run and image operation).
    case main
    /// Work after the main stage (decoding, merging, refinement).
    case postProcessing

    /// The same stage in the `VN…` API.
    var vnStage: VNComputeStage { self == .main ? .main : .postProcessing }
}

/// Which hand, as Vision's `Chirality` (iOS 18): the subject's own side.
public enum Chirality: Sendable, Hashable, Codable {
    case left
    case right
}

/// The scalar type of a multi-array, as Vision's `ElementType` (iOS 18).
public enum ElementType: Sendable, Hashable, Codable {
    case double
    case float
}

/// Observations that have a bounding box, as Vision's `BoundingBoxProviding` (iOS 18).
public protocol BoundingBoxProviding {
    /// The box, normalized to the image (or the request's region of interest), lower-left origin.
    var boundingBox: NormalizedRect { get }
}

/// What every observation of the Swift API offers, as Vision's `VisionObservation` (iOS 18): values that can be
/// shared between tasks, compared, hashed and archived (`Codable`).
public protocol VisionObservation: CustomStringConvertible, Codable, Hashable, Sendable {
    /// How sure the request is, 0…1; 1 where the observation has no meaningful confidence.
    var confidence: Float { get }
    /// The request (kind and revision) that produced the observation; nil for one made by hand.
    var originatingRequestDescriptor: RequestDescriptor? { get }
    /// The video frame's time; nil for still images.
    var timeRange: CMTimeRange? { get }
    /// A unique identifier (kept by requests that refine an observation given to them).
    var uuid: UUID { get }
    /// Hashes the observation's values.
    func hash(into hasher: inout Hasher)
}

extension VisionObservation {
    public var description: String { "\(Self.self)(uuid: \(uuid), confidence: \(confidence))" }
}

/// An object found in an image, with a box, as Vision's `DetectedObjectObservation` (iOS 18), converted from a
/// ``VNDetectedObjectObservation``.
public struct DetectedObjectObservation: VisionObservation, BoundingBoxProviding {
    public let uuid: UUID
    public let confidence: Float
    public let originatingRequestDescriptor: RequestDescriptor?
    public let timeRange: CMTimeRange?
    /// The box, normalized to the image (or the request's region of interest), lower-left origin.
    public var boundingBox: NormalizedRect

    /// A box made by hand (confidence 1).
    public init(boundingBox: NormalizedRect) {
        uuid = UUID()
        confidence = 1
        originatingRequestDescriptor = nil
        timeRange = nil
        self.boundingBox = boundingBox
    }

    /// The same object as a `VNDetectedObjectObservation`'s.
    public init(_ observation: VNDetectedObjectObservation) {
        uuid = observation.uuid
        confidence = observation.confidence
        originatingRequestDescriptor = nil
        timeRange = observation.frameTimeRange
        boundingBox = NormalizedRect(normalizedRect: observation.boundingBox)
    }
}

extension VNObservation {
    /// The time range as the Swift API's observations give it: the frame's, nil for a still image (a zero range).
    var frameTimeRange: CMTimeRange? { timeRange == .zero ? nil : timeRange }
}

/// The `VN…` object an observation was converted from, kept so that a request given the observation back (or an
/// instance mask asked for a full-size mask) uses the engine's own record of it. It takes no part in equality,
/// hashing or coding: a decoded observation has none, and the requests then rebuild what they need from its values.
struct EngineLink<Object: AnyObject & Sendable>: Hashable, Sendable {
    var object: Object?
    init(_ object: Object? = nil) { self.object = object }
    static func == (lhs: EngineLink, rhs: EngineLink) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

// Observations carry times and matrices, so those types are coded: a time as its four fields, a matrix as its
// sixteen floats, column by column.

extension CMTime: Codable {
    private enum CodingKeys: String, CodingKey { case value, timescale, flags, epoch }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            value: try c.decode(CMTimeValue.self, forKey: .value), timescale: try c.decode(CMTimeScale.self, forKey: .timescale),
            flags: CMTimeFlags(rawValue: try c.decode(CMTimeFlags.RawValue.self, forKey: .flags)),
            epoch: try c.decode(CMTimeEpoch.self, forKey: .epoch))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(value, forKey: .value)
        try c.encode(timescale, forKey: .timescale)
        try c.encode(flags.rawValue, forKey: .flags)
        try c.encode(epoch, forKey: .epoch)
    }
}

extension CMTimeRange: Codable {
    private enum CodingKeys: String, CodingKey { case start, duration }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(start: try c.decode(CMTime.self, forKey: .start), duration: try c.decode(CMTime.self, forKey: .duration))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start, forKey: .start)
        try c.encode(duration, forKey: .duration)
    }
}

extension simd_float4x4: Codable, Hashable {
    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        var columns = [SIMD4<Float>]()
        for _ in 0..<4 { columns.append(try c.decode(SIMD4<Float>.self)) }
        self.init(columns[0], columns[1], columns[2], columns[3])
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        for i in 0..<4 { try c.encode(self[i]) }
    }
    public func hash(into hasher: inout Hasher) {
        for i in 0..<4 { hasher.combine(self[i]) }
    }
}

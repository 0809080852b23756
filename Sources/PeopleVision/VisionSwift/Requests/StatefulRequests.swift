import Foundation
import PVCore

/// Finds the most prominent person's 3D body pose, as Vision's `DetectHumanBodyPose3DRequest` (iOS 18): the engine
/// of ``VNDetectHumanBodyPose3DRequest`` at revision 1.
///
/// A class, as Apple's is; its settings are guarded, so one request may be performed from several tasks at once.
/// Each perform stands alone (see ``StatefulRequest``). Equality is identity.
public final class DetectHumanBodyPose3DRequest: ImageProcessingRequest, StatefulRequest, EngineRequest {
    public typealias Result = [HumanBodyPose3DObservation]

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// ``VNDetectHumanBodyPose3DRequestRevision1``.
        case revision1
    }

    private struct Settings {
        var regionOfInterest = NormalizedRect.fullImage
        var devices = ComputeDeviceChoice()
    }
    private let settings = Locked(Settings())

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision1]
    /// The revision performed.
    public final let revision: Revision
    /// The time between analysed frames (default `.zero`).
    public final let frameAnalysisSpacing: CMTime

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil, frameAnalysisSpacing: CMTime? = nil) {
        self.revision = revision ?? .revision1
        self.frameAnalysisSpacing = frameAnalysisSpacing ?? .zero
    }

    public final var regionOfInterest: NormalizedRect {
        get { settings.withLock { $0.regionOfInterest } }
        set { settings.withLock { $0.regionOfInterest = newValue } }
    }

    /// Frames needed before the first observation: 0 (each image is analysed alone).
    public final var minimumLatencyFrameCount: Int { 0 }
    /// The joints the request reports.
    public final var supportedJointNames: [HumanBodyPose3DObservation.JointName] {
        HumanBodyPose3DObservation.JointName.allCases
    }
    /// The joint groups the request reports.
    public final var supportedJointsGroupNames: [HumanBodyPose3DObservation.JointsGroupName] {
        HumanBodyPose3DObservation.JointsGroupName.allCases
    }

    public final var descriptor: RequestDescriptor { .detectHumanBodyPose3DRequest(revision) }
    public var description: String { "DetectHumanBodyPose3DRequest(\(revision), regionOfInterest: \(regionOfInterest))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { settings.withLock { $0.devices[computeStage] } }
    public final func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        settings.withLock { $0.devices[computeStage] = computeDevice }
    }

    public static func == (lhs: DetectHumanBodyPose3DRequest, rhs: DetectHumanBodyPose3DRequest) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    func makeEngineRequests() throws -> [VNRequest] {
        let s = settings.withLock { $0 }
        return [VNDetectHumanBodyPose3DRequest().configured(
            revision: VNDetectHumanBodyPose3DRequestRevision1, regionOfInterest: s.regionOfInterest, devices: s.devices)]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        performed.observations(VNHumanBodyPose3DObservation.self).map { HumanBodyPose3DObservation($0, descriptor: descriptor) }
    }

    func visionResult(_ result: Result) -> VisionResult { .detectHumanBodyPose3D(self, result) }
}

/// Makes a mask of the people in an image, as Vision's `GeneratePersonSegmentationRequest` (iOS 18): the engine of
/// ``VNGeneratePersonSegmentationRequest`` at revision 1.
///
/// A class, as Apple's is; its settings are guarded, so one request may be performed from several tasks at once.
/// Each perform stands alone: the `VN…` request's temporal smoothing of a reused request does not apply. Equality is
/// identity.
public final class GeneratePersonSegmentationRequest: ImageProcessingRequest, StatefulRequest, EngineRequest {
    public typealias Result = PixelBufferObservation

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// ``VNGeneratePersonSegmentationRequestRevision1``.
        case revision1
    }

    /// Speed versus quality, as ``VNGeneratePersonSegmentationRequest/QualityLevel``.
    public enum QualityLevel: Sendable, Hashable, Codable, CaseIterable {
        case accurate
        case balanced
        case fast

        var engineLevel: VNGeneratePersonSegmentationRequest.QualityLevel {
            switch self {
            case .accurate: .accurate
            case .balanced: .balanced
            case .fast: .fast
            }
        }
    }

    private struct Settings {
        var regionOfInterest = NormalizedRect.fullImage
        var devices = ComputeDeviceChoice()
        var qualityLevel = QualityLevel.accurate
        var format: OSType = kCVPixelFormatType_OneComponent8
    }
    private let settings = Locked(Settings())

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision1]
    /// The revision performed.
    public final let revision: Revision
    /// The time between analysed frames (default `.zero`).
    public final let frameAnalysisSpacing: CMTime

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil, frameAnalysisSpacing: CMTime? = nil) {
        self.revision = revision ?? .revision1
        self.frameAnalysisSpacing = frameAnalysisSpacing ?? .zero
    }

    public final var regionOfInterest: NormalizedRect {
        get { settings.withLock { $0.regionOfInterest } }
        set { settings.withLock { $0.regionOfInterest = newValue } }
    }

    /// Speed versus quality. Default `.accurate`.
    public final var qualityLevel: QualityLevel {
        get { settings.withLock { $0.qualityLevel } }
        set { settings.withLock { $0.qualityLevel = newValue } }
    }

    /// The mask's format: `kCVPixelFormatType_OneComponent8` (default), `OneComponent16Half` or
    /// `OneComponent32Float`; another makes performing fail with ``VisionError/invalidArgument(_:)``.
    public final var outputPixelFormatType: OSType {
        get { settings.withLock { $0.format } }
        set { settings.withLock { $0.format = newValue } }
    }

    /// The formats ``outputPixelFormatType`` accepts.
    public final var supportedOutputPixelFormats: [OSType] { VNGeneratePersonSegmentationRequest.formats }

    /// Frames needed before the first observation: 0.
    public final var minimumLatencyFrameCount: Int { 0 }

    public final var descriptor: RequestDescriptor { .generatePersonSegmentationRequest(revision) }
    public var description: String { "GeneratePersonSegmentationRequest(\(revision), qualityLevel: \(qualityLevel))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { settings.withLock { $0.devices[computeStage] } }
    public final func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        settings.withLock { $0.devices[computeStage] = computeDevice }
    }

    public static func == (lhs: GeneratePersonSegmentationRequest, rhs: GeneratePersonSegmentationRequest) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    func makeEngineRequests() throws -> [VNRequest] {
        let s = settings.withLock { $0 }
        let r = VNGeneratePersonSegmentationRequest().configured(
            revision: VNGeneratePersonSegmentationRequestRevision1, regionOfInterest: s.regionOfInterest, devices: s.devices)
        r.qualityLevel = s.qualityLevel.engineLevel
        r.outputPixelFormat = s.format
        return [r]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        guard let mask = performed.observations(VNPixelBufferObservation.self).first else {
            throw VisionError.internalError("the person segmentation produced no mask")
        }
        return PixelBufferObservation(mask, descriptor: descriptor)
    }

    func visionResult(_ result: Result) -> VisionResult { .generatePersonSegmentation(self, result) }
}

/// Separates the people in an image, each with a mask, as Vision's `GeneratePersonInstanceMaskRequest` (iOS 18): the
/// engine of ``VNGeneratePersonInstanceMaskRequest`` at revision 1. The result is nil when nobody is found.
public struct GeneratePersonInstanceMaskRequest: ImageProcessingRequest, EngineRequest {
    public typealias Result = InstanceMaskObservation?

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// ``VNGeneratePersonInstanceMaskRequestRevision1``.
        case revision1
    }

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision1]
    /// The revision performed.
    public let revision: Revision
    public var regionOfInterest: NormalizedRect = .fullImage
    private var devices = ComputeDeviceChoice()

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil) { self.revision = revision ?? .revision1 }

    public var descriptor: RequestDescriptor { .generatePersonInstanceMaskRequest(revision) }
    public var description: String { "GeneratePersonInstanceMaskRequest(\(revision), regionOfInterest: \(regionOfInterest))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { devices[computeStage] }
    public mutating func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        devices[computeStage] = computeDevice
    }

    func makeEngineRequests() throws -> [VNRequest] {
        [VNGeneratePersonInstanceMaskRequest().configured(
            revision: VNGeneratePersonInstanceMaskRequestRevision1, regionOfInterest: regionOfInterest, devices: devices)]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        guard let observation = performed.observations(VNInstanceMaskObservation.self).first,
            !observation.allInstances.isEmpty
        else { return nil }
        return InstanceMaskObservation(observation, descriptor: descriptor)
    }

    func visionResult(_ result: Result) -> VisionResult { .generatePersonInstanceMask(self, result) }
}

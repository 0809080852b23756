import Foundation

/// Finds faces, as Vision's `DetectFaceRectanglesRequest` (iOS 18): the engine of ``VNDetectFaceRectanglesRequest``
/// at revision 3, so each face has a box, a confidence and roll, yaw and pitch.
///
/// ```swift
/// for face in try await DetectFaceRectanglesRequest().perform(on: url) { print(face.boundingBox, face.yaw) }
/// ```
public struct DetectFaceRectanglesRequest: ImageProcessingRequest, EngineRequest {
    public typealias Result = [FaceObservation]

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// ``VNDetectFaceRectanglesRequestRevision3``.
        case revision3
    }

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision3]
    /// The revision performed.
    public let revision: Revision
    public var regionOfInterest: NormalizedRect = .fullImage
    private var devices = ComputeDeviceChoice()

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil) { self.revision = revision ?? .revision3 }

    public var descriptor: RequestDescriptor { .detectFaceRectanglesRequest(revision) }
    public var description: String { "DetectFaceRectanglesRequest(\(revision), regionOfInterest: \(regionOfInterest))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { devices[computeStage] }
    public mutating func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        devices[computeStage] = computeDevice
    }

    func makeEngineRequests() throws -> [VNRequest] {
        [VNDetectFaceRectanglesRequest().configured(
            revision: VNDetectFaceRectanglesRequestRevision3, regionOfInterest: regionOfInterest, devices: devices)]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        performed.observations(VNFaceObservation.self).map { FaceObservation($0, descriptor: descriptor) }
    }

    func visionResult(_ result: Result) -> VisionResult { .detectFaceRectangles(self, result) }
}

/// Finds the landmarks of faces, as Vision's `DetectFaceLandmarksRequest` (iOS 18): the engine of
/// ``VNDetectFaceLandmarksRequest`` at revision 3 (76-point constellation).
///
/// With ``inputFaceObservations`` no detection runs: each given face is refined and keeps its `uuid`.
public struct DetectFaceLandmarksRequest: ImageProcessingRequest, EngineRequest {
    public typealias Result = [FaceObservation]

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// ``VNDetectFaceLandmarksRequestRevision3``.
        case revision3
    }

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision3]
    /// The revision performed.
    public let revision: Revision
    public var regionOfInterest: NormalizedRect = .fullImage
    /// Faces to analyse (from an earlier face request); nil (default) finds them first.
    public var inputFaceObservations: [FaceObservation]?
    private var devices = ComputeDeviceChoice()

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil) { self.revision = revision ?? .revision3 }

    public var descriptor: RequestDescriptor { .detectFaceLandmarksRequest(revision) }
    public var description: String { "DetectFaceLandmarksRequest(\(revision), regionOfInterest: \(regionOfInterest))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { devices[computeStage] }
    public mutating func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        devices[computeStage] = computeDevice
    }

    func makeEngineRequests() throws -> [VNRequest] {
        let r = VNDetectFaceLandmarksRequest().configured(
            revision: VNDetectFaceLandmarksRequestRevision3, regionOfInterest: regionOfInterest, devices: devices)
        r.inputFaceObservations = inputFaceObservations?.map(\.engineObservation)
        return [r]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        performed.observations(VNFaceObservation.self).map { FaceObservation($0, descriptor: descriptor) }
    }

    func visionResult(_ result: Result) -> VisionResult { .detectFaceLandmarks(self, result) }
}

/// Scores how well each face is captured, as Vision's `DetectFaceCaptureQualityRequest` (iOS 18): the engine of
/// ``VNDetectFaceCaptureQualityRequest`` at revision 3. Scores compare captures of the same face only.
public struct DetectFaceCaptureQualityRequest: ImageProcessingRequest, EngineRequest {
    public typealias Result = [FaceObservation]

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// ``VNDetectFaceCaptureQualityRequestRevision3``.
        case revision3
    }

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision3]
    /// The revision performed.
    public let revision: Revision
    public var regionOfInterest: NormalizedRect = .fullImage
    /// Faces to score (from an earlier face request); nil (default) finds them first.
    public var inputFaceObservations: [FaceObservation]?
    private var devices = ComputeDeviceChoice()

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil) { self.revision = revision ?? .revision3 }

    public var descriptor: RequestDescriptor { .detectFaceCaptureQualityRequest(revision) }
    public var description: String { "DetectFaceCaptureQualityRequest(\(revision), regionOfInterest: \(regionOfInterest))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { devices[computeStage] }
    public mutating func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        devices[computeStage] = computeDevice
    }

    func makeEngineRequests() throws -> [VNRequest] {
        let r = VNDetectFaceCaptureQualityRequest().configured(
            revision: VNDetectFaceCaptureQualityRequestRevision3, regionOfInterest: regionOfInterest, devices: devices)
        r.inputFaceObservations = inputFaceObservations?.map(\.engineObservation)
        return [r]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        performed.observations(VNFaceObservation.self).map { FaceObservation($0, descriptor: descriptor) }
    }

    func visionResult(_ result: Result) -> VisionResult { .detectFaceCaptureQuality(self, result) }
}

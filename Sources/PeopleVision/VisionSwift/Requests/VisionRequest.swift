import Foundation

/// A request of Vision's Swift API (iOS 18), as Vision's `VisionRequest`: a value that says what to find and how;
/// performing it returns its `Result` (observations are values too).
///
/// Perform one request on an image with ``ImageProcessingRequest/perform(on:orientation:)-(URL,_)``, or several
/// on one ``ImageRequestHandler``, where they share the image's decoding and analysis:
///
/// ```swift
/// let faces = try await DetectFaceRectanglesRequest().perform(on: photoURL)
/// ```
///
/// Every request here runs on the same engine as its `VN…` counterpart, with the same numbers.
public protocol VisionRequest: CustomStringConvertible, Hashable, Sendable {
    /// What performing the request returns.
    associatedtype Result
    /// The request and its settings, for logs.
    var description: String { get }
    /// The request's kind and revision.
    var descriptor: RequestDescriptor { get }
    /// The devices each stage can run on: the CPU for both stages here.
    var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { get }
    /// The device chosen for `computeStage`, nil when the request picks (the CPU here).
    func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice?
    /// Chooses the device for `computeStage` (nil: let the request pick). A device other than the CPU makes
    /// performing fail with ``VisionError/unsupportedComputeDevice(_:)``.
    mutating func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage)
}

/// A request that analyses one image, as Vision's `ImageProcessingRequest` (iOS 18).
public protocol ImageProcessingRequest: VisionRequest {
    /// The part of the image to analyse (lower-left origin); ``NormalizedRect/fullImage`` by default. Results are
    /// normalized to it. A rectangle outside the unit square makes performing fail with
    /// ``VisionError/invalidArgument(_:)``.
    var regionOfInterest: NormalizedRect { get set }
    /// Performs the request on an image file.
    func perform(on url: URL, orientation: CGImagePropertyOrientation?) async throws -> Result
    /// Performs the request on encoded image data.
    func perform(on data: Data, orientation: CGImagePropertyOrientation?) async throws -> Result
    /// Performs the request on a `CGImage`.
    func perform(on image: CGImage, orientation: CGImagePropertyOrientation?) async throws -> Result
    /// Performs the request on a `CIImage`.
    func perform(on image: CIImage, orientation: CGImagePropertyOrientation?) async throws -> Result
    /// Performs the request on a `CVPixelBuffer`.
    func perform(on pixelBuffer: CVPixelBuffer, orientation: CGImagePropertyOrientation?) async throws -> Result
    /// Performs the request on a camera or video frame.
    func perform(on sampleBuffer: CMSampleBuffer, orientation: CGImagePropertyOrientation?) async throws -> Result
}

/// A request that may keep state from frame to frame, as Vision's `StatefulRequest` (iOS 18).
///
/// Performed through ``ImageRequestHandler`` each image stands alone here: the person mask's temporal smoothing
/// of the `VN…` API's reused request does not apply; ``VideoProcessor`` performs requests over a video's frames.
public protocol StatefulRequest: VisionRequest {
    /// The time between analysed frames; `.zero` analyses every frame.
    var frameAnalysisSpacing: CMTime { get }
    /// The frames needed before the first observation.
    var minimumLatencyFrameCount: Int { get }
}

/// Which request produced an observation, with its revision, as Vision's `RequestDescriptor` (iOS 18).
public enum RequestDescriptor: Sendable, Hashable, Codable, CustomStringConvertible {
    case detectFaceCaptureQualityRequest(DetectFaceCaptureQualityRequest.Revision)
    case detectFaceLandmarksRequest(DetectFaceLandmarksRequest.Revision)
    case detectFaceRectanglesRequest(DetectFaceRectanglesRequest.Revision)
    case detectHumanBodyPose3DRequest(DetectHumanBodyPose3DRequest.Revision)
    case detectHumanBodyPoseRequest(DetectHumanBodyPoseRequest.Revision)
    case detectHumanHandPoseRequest(DetectHumanHandPoseRequest.Revision)
    case detectHumanRectanglesRequest(DetectHumanRectanglesRequest.Revision)
    case generatePersonInstanceMaskRequest(GeneratePersonInstanceMaskRequest.Revision)
    case generatePersonSegmentationRequest(GeneratePersonSegmentationRequest.Revision)

    public var description: String {
        switch self {
        case .detectFaceCaptureQualityRequest(let r): "DetectFaceCaptureQualityRequest(\(r))"
        case .detectFaceLandmarksRequest(let r): "DetectFaceLandmarksRequest(\(r))"
        case .detectFaceRectanglesRequest(let r): "DetectFaceRectanglesRequest(\(r))"
        case .detectHumanBodyPose3DRequest(let r): "DetectHumanBodyPose3DRequest(\(r))"
        case .detectHumanBodyPoseRequest(let r): "DetectHumanBodyPoseRequest(\(r))"
        case .detectHumanHandPoseRequest(let r): "DetectHumanHandPoseRequest(\(r))"
        case .detectHumanRectanglesRequest(let r): "DetectHumanRectanglesRequest(\(r))"
        case .generatePersonInstanceMaskRequest(let r): "GeneratePersonInstanceMaskRequest(\(r))"
        case .generatePersonSegmentationRequest(let r): "GeneratePersonSegmentationRequest(\(r))"
        }
    }
}

extension ImageProcessingRequest {
    /// Performs the request on an image file (JPEG, PNG, HEIC, WebP); nil `orientation` honours the file's EXIF
    /// orientation.
    public func perform(on url: URL, orientation: CGImagePropertyOrientation? = nil) async throws -> Result {
        try await ImageRequestHandler(url, orientation: orientation).perform(self)
    }

    /// Performs the request on encoded image data; nil `orientation` honours its EXIF orientation.
    public func perform(on data: Data, orientation: CGImagePropertyOrientation? = nil) async throws -> Result {
        try await ImageRequestHandler(data, orientation: orientation).perform(self)
    }

    /// Performs the request on a `CGImage` whose pixels have the given orientation (nil: `.up`).
    public func perform(on image: CGImage, orientation: CGImagePropertyOrientation? = nil) async throws -> Result {
        try await ImageRequestHandler(image, orientation: orientation).perform(self)
    }

    /// Performs the request on a `CIImage` (rendered once over its extent) with the given orientation (nil: `.up`).
    public func perform(on image: CIImage, orientation: CGImagePropertyOrientation? = nil) async throws -> Result {
        try await ImageRequestHandler(image, orientation: orientation).perform(self)
    }

    /// Performs the request on a `CVPixelBuffer` whose pixels have the given orientation (nil: `.up`).
    public func perform(on pixelBuffer: CVPixelBuffer, orientation: CGImagePropertyOrientation? = nil) async throws -> Result {
        try await ImageRequestHandler(pixelBuffer, orientation: orientation).perform(self)
    }

    /// Performs the request on a camera or video frame whose pixels have the given orientation (nil: `.up`); the
    /// observations carry the frame's time.
    public func perform(on sampleBuffer: CMSampleBuffer, orientation: CGImagePropertyOrientation? = nil) async throws -> Result {
        try await ImageRequestHandler(sampleBuffer, orientation: orientation).perform(self)
    }
}

/// The requests this package implements: each builds the `VN…` request that does its work and converts that
/// request's observations. A ``VisionRequest`` of another type fails with ``VisionError/unsupportedRequest(_:)``.
protocol EngineRequest: VisionRequest where Result: Sendable {
    /// New `VN…` requests configured as this one (made for each perform, so a request value may be performed on
    /// many handlers at once).
    func makeEngineRequests() throws -> [VNRequest]
    /// This request's result from its performed `VN…` requests.
    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result
    /// The result tagged with this request, for ``ImageRequestHandler/performAll(_:)``.
    func visionResult(_ result: Result) -> VisionResult
}

/// The compute devices a request was given: the storage behind every request's `setComputeDevice(_:for:)`.
struct ComputeDeviceChoice: Hashable, Sendable {
    private var devices: [ComputeStage: MLComputeDevice] = [:]

    static let supported: [ComputeStage: [MLComputeDevice]] = [
        .main: MLComputeDevice.allComputeDevices, .postProcessing: MLComputeDevice.allComputeDevices,
    ]

    subscript(stage: ComputeStage) -> MLComputeDevice? {
        get { devices[stage] }
        set { devices[stage] = newValue }
    }

    /// Gives the same choices to the `VN…` request that does the work (which checks them when performed).
    func apply(to request: VNRequest) {
        for (stage, device) in devices { request.setComputeDevice(device, for: stage.vnStage) }
    }
}

extension VNImageBasedRequest {
    /// The request set up as a Swift-API request asks: to run `revision` on `regionOfInterest` with the chosen devices.
    func configured(revision: Int, regionOfInterest: NormalizedRect, devices: ComputeDeviceChoice) -> Self {
        self.revision = revision
        self.regionOfInterest = regionOfInterest.cgRect
        devices.apply(to: self)
        return self
    }
}

extension [VNRequest] {
    /// The observations of the performed request at `index`, as the type it produces (none when it has none).
    func observations<Observation: VNObservation>(_: Observation.Type, at index: Int = 0) -> [Observation] {
        indices.contains(index) ? (self[index].storedResults as? [Observation]) ?? [] : []
    }
}

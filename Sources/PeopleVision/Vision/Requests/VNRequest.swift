import Foundation
import PVCore
import PVPerception

/// A confidence in [0, 1], as Apple's `VNConfidence`.
public typealias VNConfidence = Float
/// As Apple's `VNAspectRatio`.
public typealias VNAspectRatio = Float
/// As Apple's `VNDegrees`.
public typealias VNDegrees = Float

/// A revision value meaning "unknown / not applicable", as Apple's `VNRequestRevisionUnspecified`.
public let VNRequestRevisionUnspecified: Int = 0

/// The completion handler type, as Apple's `VNRequestCompletionHandler`: called on the thread that performs the request.
public typealias VNRequestCompletionHandler = (VNRequest, (any Error)?) -> Void

/// Types that report which request revision produced them, as Apple's `VNRequestRevisionProviding`.
public protocol VNRequestRevisionProviding {
    var requestRevision: Int { get }
}

/// Gives every request the untyped `results` accessor while each concrete request declares a typed one
/// (`VNGeneratePersonSegmentationRequest.results` is `[VNPixelBufferObservation]?`), as Apple's SDK does.
public protocol VNRequestResultsProviding: AnyObject {}

extension VNRequestResultsProviding where Self: VNRequest {
    /// The observations of the last perform: nil before performing and after a failure, otherwise zero or more.
    public var results: [VNObservation]? { storedResults }
}

/// The abstract base of every Vision request, as Apple's `VNRequest`.
///
/// Configure a concrete request, hand it to a ``VNImageRequestHandler`` or ``VNSequenceRequestHandler``,
/// then read its typed `results`. Mirrors Apple's semantics: `results` is nil before performing and
/// when the request failed; the completion handler runs on the performing thread before `perform`
/// returns; an unsupported `revision` fails with ``VNErrorCode/unsupportedRevision``.
open class VNRequest: NSObject, VNRequestResultsProviding, @unchecked Sendable {
    private let state = Locked<State>(State())
    private struct State {
        var results: [VNObservation]?
        var revision: Int?
        var cancelled = false
        /// Stops the engine between model runs while the request runs.
        var stop: StopRequest?
        var usesCPUOnly = false
        var preferBackgroundProcessing = false
        var computeDevices: [VNComputeStage: MLComputeDevice] = [:]
    }

    /// Devices chosen with ``setComputeDevice(_:for:)``.
    var computeDevices: [VNComputeStage: MLComputeDevice] {
        get { state.withLock { $0.computeDevices } }
        set { state.withLock { $0.computeDevices = newValue } }
    }

    /// The handler called after the request is performed (or fails).
    public let completionHandler: VNRequestCompletionHandler?

    /// Creates a request with no completion handler.
    public override convenience init() { self.init(completionHandler: nil) }

    /// Creates a request with a completion handler.
    public init(completionHandler: VNRequestCompletionHandler? = nil) {
        self.completionHandler = completionHandler
        super.init()
    }

    /// Revisions this build can run. Subclasses override.
    open class var supportedRevisions: IndexSet { IndexSet(integer: 1) }
    /// Checks that this class runs `revision`.
    /// - Throws: ``VNErrorCode/unsupportedRevision`` when it does not.
    class func checkSupported(revision: Int) throws {
        guard supportedRevisions.contains(revision) else {
            throw NSError(vision: .unsupportedRevision, "\(self) revision \(revision) is not supported")
        }
    }

    /// The revision used when none is set: the newest one, as an app linked against the newest SDK sees.
    open class var defaultRevision: Int { supportedRevisions.last ?? 1 }
    /// The newest revision this build supports.
    open class var currentRevision: Int { supportedRevisions.last ?? 1 }

    /// The algorithm revision to run. Setting an unsupported one makes `perform` fail with `unsupportedRevision`.
    public var revision: Int {
        get { state.withLock { $0.revision } ?? type(of: self).defaultRevision }
        set { state.withLock { $0.revision = newValue } }
    }

    /// Accepted for source compatibility; PeopleVision always runs on the CPU. Deprecated by Apple in iOS 17.
    public var usesCPUOnly: Bool {
        get { state.withLock { $0.usesCPUOnly } }
        set { state.withLock { $0.usesCPUOnly = newValue } }
    }

    /// A hint to trade speed for lower resource use; accepted and ignored.
    public var preferBackgroundProcessing: Bool {
        get { state.withLock { $0.preferBackgroundProcessing } }
        set { state.withLock { $0.preferBackgroundProcessing = newValue } }
    }

    /// Cancels the request: a perform under way stops before its next model run; the results become nil and the
    /// completion handler receives `requestCancelled`. A request cancelled before its perform starts runs normally.
    public func cancel() {
        state.withLock {
            $0.cancelled = true
            $0.results = nil
            $0.stop?.raise()
        }
    }

    var storedResults: [VNObservation]? { state.withLock { $0.results } }

    /// The longest image side this request needs, or nil for the image as given. When every request of a
    /// `perform` names one, a handler reading an encoded file may decode it smaller (JPEG's DCT scaling), as long as
    /// its longer side stays at least this.
    var sufficientImageSide: Int? { nil }

    /// Runs the request on a prepared image. Subclasses override; the base class is abstract.
    func process(_ image: HandlerImage) throws -> [VNObservation] {
        throw NSError(vision: .notImplemented, "\(type(of: self)) is abstract; perform a concrete request")
    }

    /// Checks options before any work (revision, subclass options).
    func validate() throws {
        for (stage, device) in computeDevices {
            guard stage == .main || stage == .postProcessing else {
                throw NSError(vision: .unsupportedComputeStage, "compute stage \(stage.rawValue) is not one this request has")
            }
            guard device.isCPU else {
                throw NSError(vision: .unsupportedComputeDevice, "\(type(of: self)) runs on the CPU only")
            }
        }
        let r = revision
        guard type(of: self).supportedRevisions.contains(r) else {
            throw NSError(vision: .unsupportedRevision, "\(type(of: self)) revision \(r) is not supported (supported: \(Array(type(of: self).supportedRevisions)))")
        }
    }

    /// Tells the image's analysis, before any request of a `perform` runs, what this request will ask of it (so that
    /// an earlier request's stage can start work for a later one). Subclasses override; the default says nothing.
    func announce(to image: HandlerImage) {}

    /// Performs the request on `image`, stores the results, calls the completion handler, and rethrows a failure.
    func run(on image: HandlerImage) throws {
        let stop = StopRequest()
        state.withLock { $0.cancelled = false; $0.results = nil; $0.stop = stop }
        defer { state.withLock { $0.stop = nil } }
        do {
            try validate()
            let observations = try stop.run { try process(image) }
            if let time = image.frameTime { for o in observations { o.timeRange = time } }
            let cancelled = state.withLock { s -> Bool in
                if !s.cancelled { s.results = observations }
                return s.cancelled
            }
            if cancelled { throw NSError(vision: .requestCancelled, "the request was cancelled") }
            completionHandler?(self, nil)
        } catch {
            let reported = Self.visionError(error)
            state.withLock { $0.results = nil }
            completionHandler?(self, reported)
            throw reported
        }
    }

    /// Converts engine errors into Vision's `NSError`s.
    static func visionError(_ error: Error) -> NSError {
        ErrorTranslation.visionError(error)
    }
}

/// The abstract base of requests that analyse an image, as Apple's `VNImageBasedRequest`.
open class VNImageBasedRequest: VNRequest, @unchecked Sendable {
    private let roi = Locked(CGRect(x: 0, y: 0, width: 1, height: 1))

    /// The part of the image to analyse, normalized with a lower-left origin. Default: the whole image.
    /// A rectangle outside the unit square is accepted here and makes `perform` fail, as on Apple platforms.
    public var regionOfInterest: CGRect {
        get { roi.withLock { $0 } }
        set { roi.withLock { $0 = newValue } }
    }

    override func validate() throws {
        try super.validate()
        let r = regionOfInterest
        let unit = CGRect(x: 0, y: 0, width: 1, height: 1)
        guard r.width > 0, r.height > 0, r.minX.isFinite, r.minY.isFinite,
            unit.insetBy(dx: -1e-6, dy: -1e-6).contains(r)
        else {
            throw NSError(vision: .invalidArgument, "regionOfInterest \(r) must be a non-empty rectangle inside (0, 0, 1, 1)")
        }
    }
}

/// The abstract base of requests that keep state across frames, as Apple's `VNStatefulRequest`.
open class VNStatefulRequest: VNImageBasedRequest, @unchecked Sendable {
    /// Frames between analyses; `.zero` analyses every frame.
    public let frameAnalysisSpacing: CMTime

    /// Creates a stateful request.
    public init(frameAnalysisSpacing: CMTime, completionHandler: VNRequestCompletionHandler? = nil) {
        self.frameAnalysisSpacing = frameAnalysisSpacing
        super.init(completionHandler: completionHandler)
    }

    public override init(completionHandler: VNRequestCompletionHandler? = nil) {
        frameAnalysisSpacing = .zero
        super.init(completionHandler: completionHandler)
    }

    /// Frames needed before the first observation.
    open var minimumLatencyFrameCount: Int { 0 }
}

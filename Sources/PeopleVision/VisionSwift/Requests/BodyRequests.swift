import Foundation

/// Finds people's boxes, as Vision's `DetectHumanRectanglesRequest` (iOS 18): the engine of
/// ``VNDetectHumanRectanglesRequest`` at revision 2.
public struct DetectHumanRectanglesRequest: ImageProcessingRequest, EngineRequest {
    public typealias Result = [HumanObservation]

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// ``VNDetectHumanRectanglesRequestRevision2``.
        case revision2
    }

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision2]
    /// The revision performed.
    public let revision: Revision
    public var regionOfInterest: NormalizedRect = .fullImage
    /// Upper-body boxes (default `true`) or full-body boxes.
    public var upperBodyOnly = true
    private var devices = ComputeDeviceChoice()

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil) { self.revision = revision ?? .revision2 }

    public var descriptor: RequestDescriptor { .detectHumanRectanglesRequest(revision) }
    public var description: String { "DetectHumanRectanglesRequest(\(revision), upperBodyOnly: \(upperBodyOnly))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { devices[computeStage] }
    public mutating func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        devices[computeStage] = computeDevice
    }

    func makeEngineRequests() throws -> [VNRequest] {
        let r = VNDetectHumanRectanglesRequest().configured(
            revision: VNDetectHumanRectanglesRequestRevision2, regionOfInterest: regionOfInterest, devices: devices)
        r.upperBodyOnly = upperBodyOnly
        return [r]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        performed.observations(VNHumanObservation.self).map { HumanObservation($0, descriptor: descriptor) }
    }

    func visionResult(_ result: Result) -> VisionResult { .detectHumanRectangles(self, result) }
}

/// Finds people's body poses, as Vision's `DetectHumanBodyPoseRequest` (iOS 18): the engine of
/// ``VNDetectHumanBodyPoseRequest`` (its one revision, here called revision 2 as Apple's Swift API names it).
///
/// With ``detectsHands``, a ``VNDetectHumanHandPoseRequest`` (up to 8 hands) runs on the same image analysis, and
/// each hand goes to the body whose wrist on the hand's side lies nearest its own wrist, within one forearm length
/// (elbow to wrist, at least 0.05 of the region) and with both wrists' confidence above 0.1; a hand no body claims is
/// left out. Apple does not document how it pairs them.
public struct DetectHumanBodyPoseRequest: ImageProcessingRequest, EngineRequest {
    public typealias Result = [HumanBodyPoseObservation]

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// The engine of ``VNDetectHumanBodyPoseRequestRevision1``.
        case revision2
    }

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision2]
    /// The revision performed.
    public let revision: Revision
    public var regionOfInterest: NormalizedRect = .fullImage
    /// Whether each body also gets its hands' poses (``HumanBodyPoseObservation/leftHand`` and `rightHand`).
    public var detectsHands = false
    private var devices = ComputeDeviceChoice()

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil) { self.revision = revision ?? .revision2 }

    /// The joints the request reports.
    public var supportedJointNames: [HumanBodyPoseObservation.JointName] { HumanBodyPoseObservation.JointName.allCases }
    /// The joint groups the request reports.
    public var supportedJointsGroupNames: [HumanBodyPoseObservation.JointsGroupName] {
        HumanBodyPoseObservation.JointsGroupName.allCases
    }

    public var descriptor: RequestDescriptor { .detectHumanBodyPoseRequest(revision) }
    public var description: String { "DetectHumanBodyPoseRequest(\(revision), detectsHands: \(detectsHands))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { devices[computeStage] }
    public mutating func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        devices[computeStage] = computeDevice
    }

    func makeEngineRequests() throws -> [VNRequest] {
        let body = VNDetectHumanBodyPoseRequest().configured(
            revision: VNDetectHumanBodyPoseRequestRevision1, regionOfInterest: regionOfInterest, devices: devices)
        guard detectsHands else { return [body] }
        let hands = VNDetectHumanHandPoseRequest().configured(
            revision: VNDetectHumanHandPoseRequestRevision1, regionOfInterest: regionOfInterest, devices: devices)
        hands.maximumHandCount = 8
        return [body, hands]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        let bodies = performed.observations(VNHumanBodyPoseObservation.self)
        let hands = performed.observations(VNHumanHandPoseObservation.self, at: 1)
        let handDescriptor = RequestDescriptor.detectHumanHandPoseRequest(.revision1)
        let pairs = Self.pairHands(hands, with: bodies)
        return bodies.enumerated().map { i, body in
            HumanBodyPoseObservation(
                body, descriptor: descriptor,
                leftHand: pairs[i]?.left.map { HumanHandPoseObservation($0, descriptor: handDescriptor) },
                rightHand: pairs[i]?.right.map { HumanHandPoseObservation($0, descriptor: handDescriptor) })
        }
    }

    func visionResult(_ result: Result) -> VisionResult { .detectHumanBodyPose(self, result) }

    /// Each body's hands, by body index: every hand goes to the nearest free wrist of its side within reach.
    static func pairHands(_ hands: [VNHumanHandPoseObservation], with bodies: [VNHumanBodyPoseObservation])
        -> [Int: (left: VNHumanHandPoseObservation?, right: VNHumanHandPoseObservation?)]
    {
        typealias Name = VNHumanBodyPoseObservation.JointName
        var result: [Int: (left: VNHumanHandPoseObservation?, right: VNHumanHandPoseObservation?)] = [:]
        var candidates: [(distance: Double, hand: Int, body: Int, left: Bool)] = []
        for (h, hand) in hands.enumerated() {
            guard let handWrist = try? hand.recognizedPoint(.wrist), handWrist.confidence > 0.1,
                hand.chirality != .unknown
            else { continue }
            let left = hand.chirality == .left
            for (b, body) in bodies.enumerated() {
                guard let wrist = try? body.recognizedPoint(left ? Name.leftWrist : .rightWrist), wrist.confidence > 0.1
                else { continue }
                let elbow = try? body.recognizedPoint(left ? Name.leftElbow : .rightElbow)
                let forearm = elbow.map { $0.confidence > 0.1 ? $0.distance(wrist) : 0 } ?? 0
                let d = wrist.distance(handWrist)
                if d <= max(0.05, forearm) { candidates.append((d, h, b, left)) }
            }
        }
        var usedHands = Set<Int>()
        for c in candidates.sorted(by: { $0.distance < $1.distance }) where !usedHands.contains(c.hand) {
            var entry = result[c.body] ?? (nil, nil)
            if c.left, entry.left == nil {
                entry.left = hands[c.hand]
            } else if !c.left, entry.right == nil {
                entry.right = hands[c.hand]
            } else {
                continue
            }
            result[c.body] = entry
            usedHands.insert(c.hand)
        }
        return result
    }
}

/// Finds hands' poses, as Vision's `DetectHumanHandPoseRequest` (iOS 18): the engine of
/// ``VNDetectHumanHandPoseRequest`` at revision 1.
public struct DetectHumanHandPoseRequest: ImageProcessingRequest, EngineRequest {
    public typealias Result = [HumanHandPoseObservation]

    /// The request's revisions.
    public enum Revision: Sendable, Hashable, Codable, CaseIterable {
        /// ``VNDetectHumanHandPoseRequestRevision1``.
        case revision1
    }

    /// Every revision this build runs.
    public static let supportedRevisions: [Revision] = [.revision1]
    /// The revision performed.
    public let revision: Revision
    public var regionOfInterest: NormalizedRect = .fullImage
    /// Most hands returned, largest first. Default 2; values outside 1…64 make performing fail with
    /// ``VisionError/invalidArgument(_:)``.
    public var maximumHandCount = 2
    private var devices = ComputeDeviceChoice()

    /// A request at `revision` (nil: the newest).
    public init(_ revision: Revision? = nil) { self.revision = revision ?? .revision1 }

    /// The joints the request reports.
    public var supportedJointNames: [HumanHandPoseObservation.JointName] { HumanHandPoseObservation.JointName.allCases }
    /// The joint groups the request reports. Never throws here; declared throwing as Apple's is.
    public var supportedJointsGroupNames: [HumanHandPoseObservation.JointsGroupName] {
        get throws { HumanHandPoseObservation.JointsGroupName.allCases }
    }

    public var descriptor: RequestDescriptor { .detectHumanHandPoseRequest(revision) }
    public var description: String { "DetectHumanHandPoseRequest(\(revision), maximumHandCount: \(maximumHandCount))" }
    public var supportedComputeStageDevices: [ComputeStage: [MLComputeDevice]] { ComputeDeviceChoice.supported }
    public func computeDevice(for computeStage: ComputeStage) -> MLComputeDevice? { devices[computeStage] }
    public mutating func setComputeDevice(_ computeDevice: MLComputeDevice?, for computeStage: ComputeStage) {
        devices[computeStage] = computeDevice
    }

    func makeEngineRequests() throws -> [VNRequest] {
        let r = VNDetectHumanHandPoseRequest().configured(
            revision: VNDetectHumanHandPoseRequestRevision1, regionOfInterest: regionOfInterest, devices: devices)
        r.maximumHandCount = maximumHandCount
        return [r]
    }

    func result(of performed: [VNRequest], on handler: ImageRequestHandler) throws -> Result {
        performed.observations(VNHumanHandPoseObservation.self).map { HumanHandPoseObservation($0, descriptor: descriptor) }
    }

    func visionResult(_ result: Result) -> VisionResult { .detectHumanHandPose(self, result) }
}

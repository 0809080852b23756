import Foundation

/// A stage of a request's work that can be given a compute device, as Apple's `VNComputeStage`.
public struct VNComputeStage: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The request's main work (here: every model run and image operation).
    public static let main = VNComputeStage(rawValue: "VNComputeStageMain")
    /// Work after the main stage (decoding, merging, refinement).
    public static let postProcessing = VNComputeStage(rawValue: "VNComputeStagePostProcessing")
}

/// The CPU, as Core ML's `MLCPUComputeDevice`: the only device PeopleVision computes on.
public final class MLCPUComputeDevice: NSObject, @unchecked Sendable {
    override init() { super.init() }
    public override func isEqual(_ object: Any?) -> Bool { object is MLCPUComputeDevice }
    public override var hash: Int { 1 }
}

/// A GPU, as Core ML's `MLGPUComputeDevice`. Declared so that code switching over ``MLComputeDevice`` compiles;
/// none is ever offered here.
public final class MLGPUComputeDevice: NSObject, @unchecked Sendable {
    private override init() { super.init() }
}

/// A neural engine, as Core ML's `MLNeuralEngineComputeDevice`. Declared so that code switching over
/// ``MLComputeDevice`` compiles; none is ever offered here.
public final class MLNeuralEngineComputeDevice: NSObject, @unchecked Sendable {
    private override init() { super.init() }
    /// Apple's property; never read here since no instance exists.
    public var totalCoreCount: Int { 0 }
}

/// A compute device, as Core ML's `MLComputeDevice`. Only ``cpu(_:)`` exists on this platform.
public enum MLComputeDevice: Hashable, Sendable {
    case cpu(MLCPUComputeDevice)
    case gpu(MLGPUComputeDevice)
    case neuralEngine(MLNeuralEngineComputeDevice)

    /// Every device available: the CPU.
    public static var allComputeDevices: [MLComputeDevice] { [.cpu(MLCPUComputeDevice())] }

    var isCPU: Bool { if case .cpu = self { true } else { false } }
}

extension VNRequest {
    /// The devices each stage of this request can run on: the CPU for both stages.
    public var supportedComputeStageDevices: [VNComputeStage: [MLComputeDevice]] {
        get throws { [.main: MLComputeDevice.allComputeDevices, .postProcessing: MLComputeDevice.allComputeDevices] }
    }

    /// The device chosen for `stage`, or nil when the request picks (always the CPU here).
    public func computeDevice(for stage: VNComputeStage) -> MLComputeDevice? {
        computeDevices[stage]
    }

    /// Chooses the device for `stage` (nil: let the request pick). A stage other than ``VNComputeStage/main`` and
    /// ``VNComputeStage/postProcessing`` makes `perform` fail with ``VNErrorCode/unsupportedComputeStage``, a device
    /// other than the CPU with ``VNErrorCode/unsupportedComputeDevice``.
    public func setComputeDevice(_ device: MLComputeDevice?, for stage: VNComputeStage) {
        computeDevices[stage] = device
    }
}

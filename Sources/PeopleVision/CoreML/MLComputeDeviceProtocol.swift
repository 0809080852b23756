import Foundation

/// What every compute device has in common, as Core ML's `MLComputeDeviceProtocol` (iOS 17).
///
/// ``MLCPUComputeDevice``, ``MLGPUComputeDevice`` and ``MLNeuralEngineComputeDevice`` conform; only the CPU is
/// ever offered here (``MLComputeDevice/allComputeDevices``).
public protocol MLComputeDeviceProtocol: NSObjectProtocol {}

extension MLCPUComputeDevice: MLComputeDeviceProtocol {}
extension MLGPUComputeDevice: MLComputeDeviceProtocol {}
extension MLNeuralEngineComputeDevice: MLComputeDeviceProtocol {}

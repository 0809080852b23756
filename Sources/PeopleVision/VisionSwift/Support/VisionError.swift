import Foundation

/// The errors of Vision's Swift API (iOS 18), as Vision's `VisionError`: each case carries a description of what
/// failed.
///
/// The requests run on the same engine as the `VN…` API; its `NSError`s in ``VNErrorDomain`` become the case of the
/// same name (`VNErrorCode.invalidOption` and `.missingOption`, which have no case here, become
/// ``invalidArgument(_:)``; `.notImplemented`, `.unknownError` and the rest ``internalError(_:)``).
public enum VisionError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    case dataUnavailable(String)
    case internalError(String)
    case invalidArgument(String)
    case invalidFormat(String)
    case invalidImage(String)
    case invalidModel(String)
    case invalidOperation(String)
    case ioError(String)
    case operationFailed(String)
    case outOfBoundsError(String)
    case outOfMemory(String)
    case pixelBufferCreationFailed(CVReturn)
    case requestCancelled(String)
    case timeStampNotFound(String)
    case timeout(String)
    case unsupportedComputeDevice(String)
    case unsupportedComputeStage(String)
    case unsupportedRequest(String)
    case unsupportedRevision(String)

    public var description: String {
        switch self {
        case .dataUnavailable(let m): "data unavailable: \(m)"
        case .internalError(let m): "internal error: \(m)"
        case .invalidArgument(let m): "invalid argument: \(m)"
        case .invalidFormat(let m): "invalid format: \(m)"
        case .invalidImage(let m): "invalid image: \(m)"
        case .invalidModel(let m): "invalid model: \(m)"
        case .invalidOperation(let m): "invalid operation: \(m)"
        case .ioError(let m): "I/O error: \(m)"
        case .operationFailed(let m): "operation failed: \(m)"
        case .outOfBoundsError(let m): "out of bounds: \(m)"
        case .outOfMemory(let m): "out of memory: \(m)"
        case .pixelBufferCreationFailed(let code): "pixel buffer creation failed (CVReturn \(code))"
        case .requestCancelled(let m): "request cancelled: \(m)"
        case .timeStampNotFound(let m): "time stamp not found: \(m)"
        case .timeout(let m): "timeout: \(m)"
        case .unsupportedComputeDevice(let m): "unsupported compute device: \(m)"
        case .unsupportedComputeStage(let m): "unsupported compute stage: \(m)"
        case .unsupportedRequest(let m): "unsupported request: \(m)"
        case .unsupportedRevision(let m): "unsupported revision: \(m)"
        }
    }

    public var errorDescription: String? { description }

    /// The Swift API's error for any failure of the engine or the `VN…` layer (cancellation passes through as is).
    static func from(_ error: any Error) -> any Error {
        if error is VisionError || error is CancellationError { return error }
        let e = VNRequest.visionError(error)
        let m = e.localizedDescription
        switch VNErrorCode(rawValue: e.code) {
        case .requestCancelled: return VisionError.requestCancelled(m)
        case .invalidFormat: return VisionError.invalidFormat(m)
        case .operationFailed: return VisionError.operationFailed(m)
        case .outOfBoundsError: return VisionError.outOfBoundsError(m)
        case .invalidOption, .missingOption, .invalidArgument: return VisionError.invalidArgument(m)
        case .ioError: return VisionError.ioError(m)
        case .outOfMemory: return VisionError.outOfMemory(m)
        case .invalidOperation: return VisionError.invalidOperation(m)
        case .invalidImage: return VisionError.invalidImage(m)
        case .invalidModel: return VisionError.invalidModel(m)
        case .unsupportedRevision: return VisionError.unsupportedRevision(m)
        case .dataUnavailable: return VisionError.dataUnavailable(m)
        case .timeStampNotFound: return VisionError.timeStampNotFound(m)
        case .unsupportedRequest: return VisionError.unsupportedRequest(m)
        case .timeout: return VisionError.timeout(m)
        case .unsupportedComputeStage: return VisionError.unsupportedComputeStage(m)
        case .unsupportedComputeDevice: return VisionError.unsupportedComputeDevice(m)
        default: return VisionError.internalError(m)
        }
    }
}

import Foundation

/// The error domain of every Vision failure (`"com.apple.Vision"`), as Apple's `VNErrorDomain`.
public let VNErrorDomain = "com.apple.Vision"

/// Vision's error codes, as Apple's `VNErrorCode`: failures are `NSError`s in ``VNErrorDomain`` with one of these codes.
public enum VNErrorCode: Int, Sendable {
    case turiCoreErrorCode = -1
    case OK = 0
    case requestCancelled = 1
    case invalidFormat = 2
    case operationFailed = 3
    case outOfBoundsError = 4
    case invalidOption = 5
    case ioError = 6
    case missingOption = 7
    case notImplemented = 8
    case internalError = 9
    case outOfMemory = 10
    case unknownError = 11
    case invalidOperation = 12
    case invalidImage = 13
    case invalidArgument = 14
    case invalidModel = 15
    case unsupportedRevision = 16
    case dataUnavailable = 17
    case timeStampNotFound = 18
    case unsupportedRequest = 19
    case timeout = 20
    case unsupportedComputeStage = 21
    case unsupportedComputeDevice = 22
}

extension NSError {
    /// The `NSError` Vision reports: domain ``VNErrorDomain``, the code's raw value, and a description.
    convenience init(vision code: VNErrorCode, _ message: String, underlying: Error? = nil) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        self.init(domain: VNErrorDomain, code: code.rawValue, userInfo: info)
    }
}

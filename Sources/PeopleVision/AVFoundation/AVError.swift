import Foundation

/// An AVFoundation error, as AVFoundation's `AVError`: a code in ``AVFoundationErrorDomain``.
///
/// Only the codes this package's AVFoundation subset throws are declared.
public struct AVError: Error, CustomNSError, Hashable, Sendable {
    /// AVFoundation's error codes (the subset thrown here).
    public enum Code: Int, Sendable {
        /// `AVErrorUnknown`.
        case unknown = -11800
        /// `AVErrorDecodeFailed`: the data could not be read (a malformed depth dictionary or description).
        case decodeFailed = -11821
        /// `AVErrorOperationNotAllowed`.
        case operationNotAllowed = -11862
    }

    /// The code.
    public let code: Code
    /// Why the operation failed.
    public let reason: String

    /// An error with a code and a reason.
    public init(_ code: Code, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// ``AVFoundationErrorDomain``.
    public static var errorDomain: String { AVFoundationErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedFailureReasonErrorKey: reason] }

    static func decode(_ reason: String) -> AVError { AVError(.decodeFailed, reason: reason) }
}

/// AVFoundation's error domain.
public let AVFoundationErrorDomain = "AVFoundationErrorDomain"

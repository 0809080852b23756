import Foundation
import PVCore
import PVImaging

/// The one place engine failures become the `NSError`s Vision reports (domain ``VNErrorDomain``).
enum ErrorTranslation {
    /// `error` as Vision reports it: an `NSError` in ``VNErrorDomain`` passes through; an engine error gets the
    /// `VNErrorCode` of its kind, with its message; anything else is `unknownError`.
    ///
    /// With `input` (what was being read: "the video /x.mp4"), any engine failure is `invalidImage`, as Vision reports
    /// an image or video it cannot read, and the message says which input failed.
    static func visionError(_ error: Error, readingInput input: String? = nil) -> NSError {
        let ns = error as NSError
        if ns.domain == VNErrorDomain { return ns }
        guard let e = error as? EngineError else {
            return NSError(vision: .unknownError, String(describing: error), underlying: error)
        }
        if let input { return NSError(vision: .invalidImage, "cannot read \(input): \(e.message)", underlying: e) }
        return NSError(vision: code(for: e.code), e.message, underlying: e)
    }

    /// Runs `body`, reporting its failures as ``visionError(_:readingInput:)`` does.
    static func translating<R>(readingInput input: String? = nil, _ body: () throws -> R) throws -> R {
        do { return try body() } catch { throw visionError(error, readingInput: input) }
    }

    /// Vision's code for an engine failure's kind.
    static func code(for code: EngineError.Code) -> VNErrorCode {
        switch code {
        case .cancelled: return .requestCancelled
        case .ioError: return .ioError
        case .invalidArgument: return .invalidArgument
        case .unsupportedPixelFormat, .unsupportedFormat: return .invalidFormat
        case .invalidDimensions, .tooLarge, .corruptData, .truncatedData, .encodingFailed: return .invalidImage
        default: return .internalError  // models missing or malformed, executor and pipeline failures
        }
    }
}

extension CIImage {
    /// Renders the image over its extent into pixels for analysis.
    /// - Throws: `invalidImage` for an infinite, empty or too large extent (crop such images first).
    func renderForVision() throws -> PixelBuffer {
        do {
            return try CIContext().renderPixels(self, format: .rgba32)
        } catch {
            throw NSError(vision: .invalidImage, "the CIImage (extent \(extent)) cannot be analysed: \(error.localizedDescription); crop it to a finite extent first", underlying: error)
        }
    }
}

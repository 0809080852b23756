import Foundation
import PVImaging
import PVInference

/// Maps engine errors to the `NSError`s Vision reports.
enum VNErrorMapping {
    static func map(_ error: Error) -> NSError {
        switch error {
        case let e as ImagingError:
            switch e.code {
            case .ioError: return VNError(.ioError, e.message, underlying: e)
            case .invalidArgument: return VNError(.invalidArgument, e.message, underlying: e)
            case .unsupportedPixelFormat, .unsupportedFormat: return VNError(.invalidFormat, e.message, underlying: e)
            default: return VNError(.invalidImage, e.message, underlying: e)
            }
        case let e as InferenceError:
            switch e.code {
            case .modelNotFound: return VNError(.internalError, e.message, underlying: e)
            case .invalidArgument: return VNError(.invalidArgument, e.message, underlying: e)
            default: return VNError(.internalError, e.message, underlying: e)
            }
        default:
            return VNError(.unknownError, String(describing: error), underlying: error)
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
            throw VNError(.invalidImage, "the CIImage (extent \(extent)) cannot be analysed: \(error.localizedDescription); crop it to a finite extent first", underlying: error)
        }
    }
}

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
    /// Renders the image over its (finite) extent into pixels for analysis.
    func renderForVision() throws -> PixelBuffer {
        let e = extent
        guard e.width.isFinite, e.height.isFinite, e.width >= 1, e.height >= 1 else {
            throw VNError(.invalidImage, "the CIImage's extent \(e) is not finite and non-empty; crop it first")
        }
        let w = Int(e.width.rounded()), h = Int(e.height.rounded())
        var out: CVPixelBuffer?
        guard CVPixelBufferCreate(nil, w, h, kCVPixelFormatType_32BGRA, nil, &out) == kCVReturnSuccess, let out else {
            throw VNError(.invalidImage, "the CIImage's extent \(e) is too large to analyse")
        }
        CIContext().render(transformed(by: CGAffineTransform(translationX: -e.minX, y: -e.minY)), to: out)
        return out.pixelBuffer
    }
}

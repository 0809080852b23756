// App-side helpers the patterns share, written as an iOS app writes them: a picture rendered into a pixel buffer the
// way a camera hands frames over, a sample buffer with timing around it, and pixels read back through Core Video.
import CoreImage
import CoreMedia
import CoreVideo

enum FrameError: Error { case noPixelBuffer, noSampleBuffer, noImage, unsupportedFormat }

enum Frames {
    static let context = CIContext()

    /// A picture from the app bundle (here: the installed samples).
    static func picture(_ name: String) throws -> CIImage {
        guard let image = CIImage(contentsOf: try Samples.image(name)) else { throw FrameError.noImage }
        return image
    }

    /// Renders `image`, moved to the origin, into a new pixel buffer of its size.
    static func pixelBuffer(_ image: CIImage, format: OSType = kCVPixelFormatType_32BGRA) throws -> CVPixelBuffer {
        let extent = image.extent.integral
        var buffer: CVPixelBuffer?
        let status = CVPixelBufferCreate(kCFAllocatorDefault, Int(extent.width), Int(extent.height), format, nil, &buffer)
        guard status == kCVReturnSuccess, let buffer else { throw FrameError.noPixelBuffer }
        context.render(image.transformed(by: CGAffineTransform(translationX: -extent.minX, y: -extent.minY)), to: buffer)
        return buffer
    }

    /// A ready sample buffer around `pixelBuffer`, as a capture output delivers it.
    static func sampleBuffer(_ pixelBuffer: CVPixelBuffer, at time: CMTime, duration: CMTime) throws -> CMSampleBuffer {
        var format: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreateForImageBuffer(allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer, formatDescriptionOut: &format)
        guard let format else { throw FrameError.noSampleBuffer }
        var timing = CMSampleTimingInfo(duration: duration, presentationTimeStamp: time, decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        let status = CMSampleBufferCreateReadyWithImageBuffer(
            allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer, formatDescription: format, sampleTiming: &timing,
            sampleBufferOut: &sample)
        guard status == noErr, let sample else { throw FrameError.noSampleBuffer }
        return sample
    }

    /// The mean of a one-component mask (8-bit, half or float; 0…1) over `rect`, normalized with Vision's lower-left
    /// origin.
    static func mean(of mask: CVPixelBuffer, in rect: CGRect) throws -> Double {
        let format = CVPixelBufferGetPixelFormatType(mask)
        guard CVPixelBufferLockBaseAddress(mask, .readOnly) == kCVReturnSuccess,
            let base = CVPixelBufferGetBaseAddress(mask)
        else { throw FrameError.noPixelBuffer }
        defer { CVPixelBufferUnlockBaseAddress(mask, .readOnly) }
        let width = CVPixelBufferGetWidth(mask), height = CVPixelBufferGetHeight(mask)
        let rowBytes = CVPixelBufferGetBytesPerRow(mask)
        let x0 = max(0, Int(rect.minX * CGFloat(width))), x1 = min(width, max(x0 + 1, Int(rect.maxX * CGFloat(width))))
        let y0 = max(0, Int((1 - rect.maxY) * CGFloat(height)))
        let y1 = min(height, max(y0 + 1, Int((1 - rect.minY) * CGFloat(height))))
        var sum = 0.0
        for y in y0..<y1 {
            let row = base + y * rowBytes
            for x in x0..<x1 {
                switch format {
                case kCVPixelFormatType_OneComponent8: sum += Double(row.load(fromByteOffset: x, as: UInt8.self)) / 255
                case kCVPixelFormatType_OneComponent32Float: sum += Double(row.load(fromByteOffset: 4 * x, as: Float.self))
                case kCVPixelFormatType_OneComponent16Half:
                    sum += Double(Float(Float16(bitPattern: row.load(fromByteOffset: 2 * x, as: UInt16.self))))
                default: throw FrameError.unsupportedFormat
                }
            }
        }
        return sum / Double((y1 - y0) * (x1 - x0))
    }

    /// The mean colour (red, green, blue, alpha; 0…255) of a BGRA buffer over `rect`, normalized, lower-left origin.
    static func meanColor(of buffer: CVPixelBuffer, in rect: CGRect) throws -> SIMD4<Double> {
        guard CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_32BGRA else { throw FrameError.unsupportedFormat }
        guard CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess,
            let base = CVPixelBufferGetBaseAddress(buffer)
        else { throw FrameError.noPixelBuffer }
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
        let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
        let x0 = max(0, Int(rect.minX * CGFloat(width))), x1 = min(width, max(x0 + 1, Int(rect.maxX * CGFloat(width))))
        let y0 = max(0, Int((1 - rect.maxY) * CGFloat(height)))
        let y1 = min(height, max(y0 + 1, Int((1 - rect.minY) * CGFloat(height))))
        var sum = SIMD4<Double>.zero
        for y in y0..<y1 {
            let row = (base + y * rowBytes).assumingMemoryBound(to: UInt8.self)
            for x in x0..<x1 {
                sum += SIMD4(Double(row[4 * x + 2]), Double(row[4 * x + 1]), Double(row[4 * x]), Double(row[4 * x + 3]))
            }
        }
        return sum / Double((y1 - y0) * (x1 - x0))
    }
}

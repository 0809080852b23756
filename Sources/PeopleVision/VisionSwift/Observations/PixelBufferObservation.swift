import Foundation
import PVImaging

/// An image-like result (a person mask), as Vision's `PixelBufferObservation` (iOS 18), converted from a
/// ``VNPixelBufferObservation``. Coding stores the pixels themselves (each row without padding); equality and
/// hashing compare them.
public struct PixelBufferObservation: VisionObservation {
    public let uuid: UUID
    public let confidence: Float
    public let originatingRequestDescriptor: RequestDescriptor?
    public let timeRange: CMTimeRange?
    /// The pixels. Treat them as read-only: observations are values.
    let buffer: CVPixelBuffer

    /// The same result as a `VNPixelBufferObservation`'s.
    public init?(_ observation: VNPixelBufferObservation) { self.init(observation, descriptor: nil) }

    init(_ observation: VNPixelBufferObservation, descriptor: RequestDescriptor?) {
        self.init(
            buffer: observation.pixelBuffer, uuid: observation.uuid, confidence: observation.confidence, descriptor: descriptor,
            timeRange: observation.frameTimeRange)
    }

    init(buffer: CVPixelBuffer, uuid: UUID = UUID(), confidence: Float = 1, descriptor: RequestDescriptor?, timeRange: CMTimeRange?) {
        self.buffer = buffer
        self.uuid = uuid
        self.confidence = confidence
        originatingRequestDescriptor = descriptor
        self.timeRange = timeRange
    }

    /// The pixel format (one of the masks' one-component formats).
    public var pixelFormat: OSType { buffer.pixelFormatType }
    /// The size in pixels.
    public var size: CGSize { CGSize(width: buffer.width, height: buffer.height) }

    /// The value at a normalized point (lower-left origin), 0…1: the nearest pixel's (8-bit values are divided by
    /// 255). A point outside the unit square takes the nearest edge pixel's value.
    public func pixel(at point: NormalizedPoint) -> Float {
        let p = buffer.pixelBuffer
        guard p.width > 0, p.height > 0 else { return 0 }
        let x = min(p.width - 1, max(0, Int((point.x * CGFloat(p.width)).rounded(.down))))
        let y = min(p.height - 1, max(0, Int(((1 - point.y) * CGFloat(p.height)).rounded(.down))))
        return p.withUnsafeBytes { raw in
            let row = y * p.bytesPerRow()
            switch p.format {
            case .oneComponent8: return Float(raw[row + x]) / 255
            case .oneComponent16Half: return Float(raw.loadUnaligned(fromByteOffset: row + 2 * x, as: Float16.self))
            case .oneComponent32Float: return raw.loadUnaligned(fromByteOffset: row + 4 * x, as: Float.self)
            default: return Float(raw[row + x * p.format.bytesPerPixel]) / 255
            }
        }
    }

    /// Calls `body` with the first byte of the pixels (rows of ``CVPixelBufferGetBytesPerRow(_:)`` bytes).
    public func withUnsafePointer<R>(_ body: (UnsafeRawPointer) -> R) -> R {
        buffer.pixelBuffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return withUnsafeBytes(of: 0) { body($0.baseAddress!) } }
            return body(base)
        }
    }

    /// The mask as an 8-bit grey image.
    /// - Throws: ``VisionError/invalidFormat(_:)`` when the pixels cannot be converted.
    public var cgImage: CGImage {
        get throws {
            do {
                return CGImage(buffer: try buffer.pixelBuffer.converted(to: .oneComponent8))
            } catch {
                throw VisionError.invalidFormat("the mask's pixels cannot be made a CGImage: \(error)")
            }
        }
    }

    /// The pixels' rows, each without padding.
    private var packedBytes: Data {
        let p = buffer.pixelBuffer
        let rowBytes = p.width * p.format.bytesPerPixel, stride = p.bytesPerRow()
        return p.withUnsafeBytes { raw in
            var data = Data(capacity: rowBytes * p.height)
            for y in 0..<p.height { data.append(contentsOf: raw[(y * stride)..<(y * stride + rowBytes)]) }
            return data
        }
    }

    private enum CodingKeys: String, CodingKey {
        case uuid, confidence, originatingRequestDescriptor, timeRange, width, height, pixelFormat, pixels
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let width = try c.decode(Int.self, forKey: .width), height = try c.decode(Int.self, forKey: .height)
        let type = try c.decode(OSType.self, forKey: .pixelFormat)
        let bytes = try c.decode(Data.self, forKey: .pixels)
        guard let format = CVPixelBuffer.layout(for: type), format.planeCount == 1,
            var pixels = try? PixelBuffer(width: width, height: height, format: format),
            bytes.count == width * height * format.bytesPerPixel
        else {
            throw DecodingError.dataCorruptedError(forKey: .pixels, in: c, debugDescription: "pixels do not match \(width)×\(height) of format \(type)")
        }
        let rowBytes = width * format.bytesPerPixel, stride = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { out in
            bytes.withUnsafeBytes { src in
                for y in 0..<height {
                    out[(y * stride)..<(y * stride + rowBytes)].copyBytes(from: src[(y * rowBytes)..<((y + 1) * rowBytes)])
                }
            }
        }
        self.init(
            buffer: CVPixelBuffer(pixels, formatType: type), uuid: try c.decode(UUID.self, forKey: .uuid),
            confidence: try c.decode(Float.self, forKey: .confidence),
            descriptor: try c.decodeIfPresent(RequestDescriptor.self, forKey: .originatingRequestDescriptor),
            timeRange: try c.decodeIfPresent(CMTimeRange.self, forKey: .timeRange))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid, forKey: .uuid)
        try c.encode(confidence, forKey: .confidence)
        try c.encodeIfPresent(originatingRequestDescriptor, forKey: .originatingRequestDescriptor)
        try c.encodeIfPresent(timeRange, forKey: .timeRange)
        try c.encode(buffer.width, forKey: .width)
        try c.encode(buffer.height, forKey: .height)
        try c.encode(pixelFormat, forKey: .pixelFormat)
        try c.encode(packedBytes, forKey: .pixels)
    }

    public static func == (lhs: PixelBufferObservation, rhs: PixelBufferObservation) -> Bool {
        lhs.uuid == rhs.uuid && lhs.confidence == rhs.confidence && lhs.originatingRequestDescriptor == rhs.originatingRequestDescriptor
            && lhs.timeRange == rhs.timeRange && lhs.size == rhs.size && lhs.pixelFormat == rhs.pixelFormat
            && lhs.packedBytes == rhs.packedBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(uuid)
        hasher.combine(pixelFormat)
        hasher.combine(buffer.width)
        hasher.combine(buffer.height)
    }
}

// Pixel-format plumbing shared by the encoders and decoders: which layouts a codec can take
// directly, and the few conversions needed when it cannot. Kept private to the codecs (names
// prefixed `codec`) so it never competes with the general kernels in Kernels/.
import PVCore

/// A one-component float buffer's samples as 0…1 floats, validated (NaN or out-of-range values
/// are an error, never clamped).
func codecUnitSamples(_ buffer: PixelBuffer, what: String) throws -> [Float] {
    let width = buffer.width, height = buffer.height, row = buffer.bytesPerRow()
    var samples = [Float](repeating: 0, count: width * height)
    try buffer.withUnsafeBytes { bytes in
        for y in 0..<height {
            for x in 0..<width {
                let value: Float
                switch buffer.format {
                case .oneComponent32Float: value = bytes.load(fromByteOffset: y * row + 4 * x, as: Float.self)
                case .oneComponent16Half:
                    value = codecHalfToFloat(bytes.load(fromByteOffset: y * row + 2 * x, as: UInt16.self))
                case .oneComponent8: value = Float(bytes[y * row + x]) / 255
                default: throw ImagingError(.unsupportedPixelFormat, "\(what) needs a one-component buffer, not \(buffer.format)")
                }
                guard value >= 0, value <= 1 else {
                    throw ImagingError(
                        .invalidArgument, "\(what): sample \(value) at (\(x), \(y)) is outside 0…1 (or NaN)")
                }
                samples[y * width + x] = value
            }
        }
    }
    return samples
}

/// IEEE 754 half (binary16) bits to Float, written out so it builds where `Float16` is unavailable.
func codecHalfToFloat(_ bits: UInt16) -> Float {
    let sign: UInt32 = UInt32(bits & 0x8000) << 16
    let exponent = Int((bits >> 10) & 0x1F)
    let mantissa = UInt32(bits & 0x3FF)
    if exponent == 0 {
        let magnitude = Float(mantissa) * (1.0 / 16_777_216.0)  // 2^-24
        return sign == 0 ? magnitude : -magnitude
    }
    if exponent == 31 { return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13) }
    return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | mantissa << 13)
}

/// An 8-bit view of `buffer` that a codec taking `accepted` formats can read: the buffer itself
/// when its format is accepted, otherwise a converted copy. One-component float buffers become
/// `.oneComponent8` (values must be in 0…1); colour formats become `.rgba32` when that is accepted.
func codecEightBit(_ buffer: PixelBuffer, accepted: Set<PixelFormat>, what: String) throws -> PixelBuffer {
    if accepted.contains(buffer.format) { return buffer }
    switch buffer.format {
    case .oneComponent16Half, .oneComponent32Float:
        let samples = try codecUnitSamples(buffer, what: what)
        var grey = try PixelBuffer(width: buffer.width, height: buffer.height, format: .oneComponent8, limits: codecNoLimits)
        let row = grey.bytesPerRow()
        grey.withUnsafeMutableBytes { bytes in
            for y in 0..<buffer.height {
                for x in 0..<buffer.width {
                    bytes[y * row + x] = UInt8((samples[y * buffer.width + x] * 255).rounded())
                }
            }
        }
        return accepted.contains(.oneComponent8) ? grey : try codecEightBit(grey, accepted: accepted, what: what)
    case .oneComponent8, .rgb24, .bgra32, .argb32, .rgba32:
        guard accepted.contains(.rgba32) else { break }
        return try codecRGBA(buffer)
    case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange:
        break
    }
    throw ImagingError(.unsupportedPixelFormat, "\(what) cannot encode \(buffer.format) pixels; convert to RGBA first")
}

/// `.rgba32` copy of an 8-bit interleaved buffer (grey is replicated, missing alpha is 255).
func codecRGBA(_ buffer: PixelBuffer) throws -> PixelBuffer {
    if buffer.format == .rgba32 { return buffer }
    guard [.oneComponent8, .rgb24, .bgra32, .argb32].contains(buffer.format) else {
        throw ImagingError(.unsupportedPixelFormat, "cannot convert \(buffer.format) to RGBA here")
    }
    var output = try PixelBuffer(width: buffer.width, height: buffer.height, format: .rgba32, limits: codecNoLimits)
    let inRow = buffer.bytesPerRow(), outRow = output.bytesPerRow(), format = buffer.format
    let bpp = format.bytesPerPixel
    buffer.withUnsafeBytes { source in
        output.withUnsafeMutableBytes { target in
            for y in 0..<buffer.height {
                for x in 0..<buffer.width {
                    let s = y * inRow + x * bpp, t = y * outRow + x * 4
                    let (r, g, b, a): (UInt8, UInt8, UInt8, UInt8)
                    switch format {
                    case .oneComponent8: (r, g, b, a) = (source[s], source[s], source[s], 255)
                    case .rgb24: (r, g, b, a) = (source[s], source[s + 1], source[s + 2], 255)
                    case .bgra32: (r, g, b, a) = (source[s + 2], source[s + 1], source[s], source[s + 3])
                    case .argb32: (r, g, b, a) = (source[s + 1], source[s + 2], source[s + 3], source[s])
                    default: (r, g, b, a) = (source[s], source[s + 1], source[s + 2], source[s + 3])
                    }
                    target[t] = r
                    target[t + 1] = g
                    target[t + 2] = b
                    target[t + 3] = a
                }
            }
        }
    }
    return output
}

/// Whether every alpha byte of an `.rgba32` buffer is 255 (other formats: whether they lack alpha).
func codecIsOpaque(_ buffer: PixelBuffer) -> Bool {
    guard buffer.format == .rgba32 else { return !(buffer.format == .bgra32 || buffer.format == .argb32) }
    let row = buffer.bytesPerRow()
    return buffer.withUnsafeBytes { bytes in
        for y in 0..<buffer.height {
            for x in 0..<buffer.width where bytes[y * row + 4 * x + 3] != 255 { return false }
        }
        return true
    }
}

/// The unlimited limits used when re-allocating a buffer whose size was already accepted.
let codecNoLimits = ImageLimits(maximumPixelCount: Int.max, maximumSide: Int.max)

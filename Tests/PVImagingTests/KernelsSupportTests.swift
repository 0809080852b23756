// Shared helpers for the kernel and tensor tests: generated images and reference readers written
// independently of the kernels (plain per-pixel code, Double maths).
import Testing

@testable import PVImaging

/// Deterministic pseudo-random numbers (SplitMix64).
struct TestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Channel byte offsets for the RGB-like formats, written out independently of the kernels.
func testOffsets(_ f: PixelFormat) -> (r: Int, g: Int, b: Int, a: Int?, bpp: Int) {
    switch f {
    case .rgba32: return (0, 1, 2, 3, 4)
    case .bgra32: return (2, 1, 0, 3, 4)
    case .argb32: return (1, 2, 3, 0, 4)
    case .rgb24: return (0, 1, 2, nil, 3)
    default: fatalError("not an RGB format: \(f)")
    }
}

/// Builds a buffer from per-pixel RGBA values (0…255). One-component formats store R (float: R/255).
func makeImage(
    _ w: Int, _ h: Int, _ f: PixelFormat, _ pixel: (Int, Int) -> (Double, Double, Double, Double)
) throws -> PixelBuffer {
    var b = try PixelBuffer(width: w, height: h, format: f)
    let stride = b.bytesPerRow()
    b.withUnsafeMutableBytes { raw in
        for y in 0..<h {
            for x in 0..<w {
                let (r, g, bl, a) = pixel(x, y)
                func q(_ v: Double) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }
                switch f {
                case .oneComponent8: raw[y * stride + x] = q(r)
                case .oneComponent16Half:
                    raw.storeBytes(of: Float16(r / 255), toByteOffset: y * stride + x * 2, as: Float16.self)
                case .oneComponent32Float:
                    raw.storeBytes(of: Float(r / 255), toByteOffset: y * stride + x * 4, as: Float.self)
                default:
                    let o = testOffsets(f)
                    let base = y * stride + x * o.bpp
                    raw[base + o.r] = q(r)
                    raw[base + o.g] = q(g)
                    raw[base + o.b] = q(bl)
                    if let ao = o.a { raw[base + ao] = q(a) }
                }
            }
        }
    }
    return b
}

/// Reads pixel (x, y) as R, G, B, A in 0…255 (grey formats: value replicated, float ×255; A = 255).
func readPixel(_ b: PixelBuffer, _ x: Int, _ y: Int) -> (Double, Double, Double, Double) {
    let stride = b.bytesPerRow()
    return b.withUnsafeBytes { raw in
        switch b.format {
        case .oneComponent8:
            let v = Double(raw[y * stride + x])
            return (v, v, v, 255)
        case .oneComponent16Half:
            let v = Double(raw.load(fromByteOffset: y * stride + x * 2, as: Float16.self)) * 255
            return (v, v, v, 255)
        case .oneComponent32Float:
            let v = Double(raw.load(fromByteOffset: y * stride + x * 4, as: Float.self)) * 255
            return (v, v, v, 255)
        default:
            let o = testOffsets(b.format)
            let base = y * stride + x * o.bpp
            return (
                Double(raw[base + o.r]), Double(raw[base + o.g]), Double(raw[base + o.b]),
                o.a.map { Double(raw[base + $0]) } ?? 255
            )
        }
    }
}

/// Raw sample `c` of pixel (x, y) of a one-plane buffer, as Double (8-bit: 0…255, half/float: as stored).
func readSample(_ b: PixelBuffer, _ x: Int, _ y: Int, _ c: Int = 0) -> Double {
    let stride = b.bytesPerRow()
    return b.withUnsafeBytes { raw in
        switch b.format {
        case .oneComponent16Half: return Double(raw.load(fromByteOffset: y * stride + x * 2, as: Float16.self))
        case .oneComponent32Float: return Double(raw.load(fromByteOffset: y * stride + x * 4, as: Float.self))
        default: return Double(raw[y * stride + x * b.format.bytesPerPixel + c])
        }
    }
}

/// A smooth colour pattern (gradients and slow waves), so bilinear sampling is well conditioned.
func smoothPattern(_ x: Int, _ y: Int) -> (Double, Double, Double, Double) {
    let fx = Double(x), fy = Double(y)
    let r = 128 + 100 * sin(fx * 0.05 + fy * 0.02)
    let g = 40 + (fx * 0.7 + fy * 0.3).truncatingRemainder(dividingBy: 170)
    let b = 128 + 90 * cos(fy * 0.045 - fx * 0.01)
    return (r, g, b, 200 + 50 * sin(fx * 0.1))
}

/// Uniform noise in every channel.
func noisePattern(seed: UInt64) -> (Int, Int) -> (Double, Double, Double, Double) {
    { x, y in
        var r = TestRandom(seed: seed &+ UInt64(y * 65_536 + x) &* 0x1234_5678_9ABC)
        _ = r.next()
        return (Double(r.byte()), Double(r.byte()), Double(r.byte()), Double(r.byte()))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Conversions between stored pixels and the renderer's premultiplied float RGBA.
import Foundation
import PVImaging

/// How a source buffer's bytes are read.
enum _SourceKind: Sendable {
    case rgba, bgra, argb, rgb24, grey8, greyHalf, greyFloat

    init(_ format: PixelFormat) {
        switch format {
        case .rgba32: self = .rgba
        case .bgra32: self = .bgra
        case .argb32: self = .argb
        case .rgb24: self = .rgb24
        case .oneComponent8: self = .grey8
        case .oneComponent16Half: self = .greyHalf
        case .oneComponent32Float: self = .greyFloat
        case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange:
            preconditionFailure("4:2:0 sources are converted to RGBA before rendering")
        }
    }
}

/// Channel positions inside 4 stored bytes, as compile-time constants. `i0…i3` are also the
/// store permutation: stored byte k holds channel `ik` (0 = R, 1 = G, 2 = B, 3 = A).
protocol _ByteOrder {
    static var i0: Int { get }
    static var i1: Int { get }
    static var i2: Int { get }
    static var i3: Int { get }
    /// Where R, G, B, A sit among the stored bytes.
    static var r: Int { get }
    static var g: Int { get }
    static var b: Int { get }
    static var a: Int { get }
}
enum _RGBAOrder: _ByteOrder {
    static var i0: Int { 0 }
    static var i1: Int { 1 }
    static var i2: Int { 2 }
    static var i3: Int { 3 }
    static var r: Int { 0 }
    static var g: Int { 1 }
    static var b: Int { 2 }
    static var a: Int { 3 }
}
enum _BGRAOrder: _ByteOrder {
    static var i0: Int { 2 }
    static var i1: Int { 1 }
    static var i2: Int { 0 }
    static var i3: Int { 3 }
    static var r: Int { 2 }
    static var g: Int { 1 }
    static var b: Int { 0 }
    static var a: Int { 3 }
}
enum _ARGBOrder: _ByteOrder {
    static var i0: Int { 3 }
    static var i1: Int { 0 }
    static var i2: Int { 1 }
    static var i3: Int { 2 }
    static var r: Int { 1 }
    static var g: Int { 2 }
    static var b: Int { 3 }
    static var a: Int { 0 }
}
enum _ABGROrder: _ByteOrder {
    static var i0: Int { 3 }
    static var i1: Int { 2 }
    static var i2: Int { 1 }
    static var i3: Int { 0 }
    static var r: Int { 3 }
    static var g: Int { 2 }
    static var b: Int { 1 }
    static var a: Int { 0 }
}

private let byteScale = _Pixel(repeating: 1 / 255)

@inline(__always) private func read4<O: _ByteOrder>(
    _: O.Type, _ source: UnsafeRawPointer, _ out: UnsafeMutablePointer<_Pixel>, _ n: Int, _ premultiply: Bool
) {
    if premultiply {
        for k in 0..<n {
            let v = _Pixel(SIMD4<Int32>(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt8>.self))) * byteScale
            let a = v[O.a]
            out[k] = _Pixel(v[O.r] * a, v[O.g] * a, v[O.b] * a, a)
        }
    } else {
        for k in 0..<n {
            let v = _Pixel(SIMD4<Int32>(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt8>.self))) * byteScale
            out[k] = _Pixel(v[O.r], v[O.g], v[O.b], v[O.a])
        }
    }
}

/// Reads `n` stored pixels as premultiplied float RGBA. One-component formats read as grey with
/// opaque alpha (value in R, G and B), as Core Image reads `L008`/`L00h`/`L00f` buffers; half and
/// float values are not clamped.
func _readSourceRow(
    _ kind: _SourceKind, _ source: UnsafeRawPointer, _ out: UnsafeMutablePointer<_Pixel>, _ n: Int, _ premultiply: Bool
) {
    switch kind {
    case .rgba: read4(_RGBAOrder.self, source, out, n, premultiply)
    case .bgra: read4(_BGRAOrder.self, source, out, n, premultiply)
    case .argb: read4(_ARGBOrder.self, source, out, n, premultiply)
    case .rgb24:
        let s = source.assumingMemoryBound(to: UInt8.self)
        for k in 0..<n {
            out[k] = _Pixel(Float(s[3 &* k]), Float(s[3 &* k &+ 1]), Float(s[3 &* k &+ 2]), 255) * byteScale
        }
    case .grey8:
        let s = source.assumingMemoryBound(to: UInt8.self)
        for k in 0..<n {
            let v = Float(s[k]) * (1 / 255)
            out[k] = _Pixel(v, v, v, 1)
        }
    case .greyHalf:
        let s = source.assumingMemoryBound(to: Float16.self)
        for k in 0..<n {
            let v = Float(s[k])
            out[k] = _Pixel(v, v, v, 1)
        }
    case .greyFloat:
        let s = source.assumingMemoryBound(to: Float.self)
        for k in 0..<n {
            let v = s[k]
            out[k] = _Pixel(v, v, v, 1)
        }
    }
}

/// What a one-channel output stores.
enum _Channel: Sendable {
    /// BT.601 luma of R, G, B: `0.299R + 0.587G + 0.114B` (exact for grey).
    case luma
    case red
    case alpha
}

/// The scalar type of a one-channel output.
enum _Scalar: Sendable {
    case uint8, half, float
    var size: Int {
        switch self {
        case .uint8: return 1
        case .half: return 2
        case .float: return 4
        }
    }
}

/// The byte layout of a render destination.
enum _PixelLayout: Sendable, Equatable {
    /// 8-bit, 4 channels; the order names the stored byte sequence.
    case rgba8(_Order)
    /// 8-bit R, G, B (`kCVPixelFormatType_24RGB`).
    case rgb8
    case rgbaHalf
    case rgbaFloat
    case one(_Channel, _Scalar)

    enum _Order: Sendable { case rgba, bgra, argb, abgr }

    var bytesPerPixel: Int {
        switch self {
        case .rgba8: return 4
        case .rgb8: return 3
        case .rgbaHalf: return 8
        case .rgbaFloat: return 16
        case .one(_, let s): return s.size
        }
    }

    /// The layout for a Core Video pixel format, or nil when it cannot be rendered to directly.
    init?(cvFormat type: OSType) {
        switch type {
        case kCVPixelFormatType_32BGRA: self = .rgba8(.bgra)
        case kCVPixelFormatType_32ARGB: self = .rgba8(.argb)
        case kCVPixelFormatType_32RGBA: self = .rgba8(.rgba)
        case kCVPixelFormatType_24RGB: self = .rgb8
        case kCVPixelFormatType_OneComponent8: self = .one(.luma, .uint8)
        case kCVPixelFormatType_OneComponent16Half: self = .one(.luma, .half)
        case kCVPixelFormatType_OneComponent32Float: self = .one(.luma, .float)
        case kCVPixelFormatType_DepthFloat16, kCVPixelFormatType_DisparityFloat16: self = .one(.red, .half)
        case kCVPixelFormatType_DepthFloat32, kCVPixelFormatType_DisparityFloat32: self = .one(.red, .float)
        default: return nil
        }
    }
}

/// `p` scaled to 0…255, rounded and clamped to bytes, in register (see ``_byteValues(_:)``).
@inline(__always) func _bytes(_ p: _Pixel) -> SIMD4<UInt8> {
    SIMD4<UInt8>(truncatingIfNeeded: _byteValues(p))
}

@inline(__always) func _unpremultiplied(_ p: _Pixel) -> _Pixel {
    let a = p[3]
    let inverse: Float = a > 0 ? 1 / a : 0
    return p * _Pixel(inverse, inverse, inverse, 1)
}

@inline(__always) private func write4<O: _ByteOrder>(
    _: O.Type, _ row: UnsafePointer<_Pixel>, _ n: Int, _ destination: UnsafeMutableRawPointer, _ unpremultiply: Bool
) {
    if unpremultiply {
        for k in 0..<n {
            let p = _unpremultiplied(row[k])
            destination.storeBytes(of: _bytes(_Pixel(p[O.i0], p[O.i1], p[O.i2], p[O.i3])), toByteOffset: k &* 4, as: SIMD4<UInt8>.self)
        }
    } else {
        for k in 0..<n {
            let p = row[k]
            destination.storeBytes(of: _bytes(_Pixel(p[O.i0], p[O.i1], p[O.i2], p[O.i3])), toByteOffset: k &* 4, as: SIMD4<UInt8>.self)
        }
    }
}

@inline(__always) private func channelValue(_ p: _Pixel, _ channel: _Channel) -> Float {
    switch channel {
    case .luma: return p[0] + 0.587 * (p[1] - p[0]) + 0.114 * (p[2] - p[0])
    case .red: return p[0]
    case .alpha: return p[3]
    }
}

/// Writes `n` float pixels in `layout`; `unpremultiply` stores straight alpha.
func _writeRow(
    _ layout: _PixelLayout, _ row: UnsafePointer<_Pixel>, _ n: Int, _ destination: UnsafeMutableRawPointer,
    unpremultiply: Bool
) {
    switch layout {
    case .rgba8(.rgba): write4(_RGBAOrder.self, row, n, destination, unpremultiply)
    case .rgba8(.bgra): write4(_BGRAOrder.self, row, n, destination, unpremultiply)
    case .rgba8(.argb): write4(_ARGBOrder.self, row, n, destination, unpremultiply)
    case .rgba8(.abgr): write4(_ABGROrder.self, row, n, destination, unpremultiply)
    case .rgb8:
        let d = destination.assumingMemoryBound(to: UInt8.self)
        for k in 0..<n {
            let b = _bytes(unpremultiply ? _unpremultiplied(row[k]) : row[k])
            d[3 &* k] = b[0]
            d[3 &* k &+ 1] = b[1]
            d[3 &* k &+ 2] = b[2]
        }
    case .rgbaHalf:
        let d = destination.assumingMemoryBound(to: Float16.self)
        for k in 0..<n {
            let p = unpremultiply ? _unpremultiplied(row[k]) : row[k]
            for c in 0..<4 { d[4 &* k &+ c] = Float16(p[c]) }
        }
    case .rgbaFloat:
        let d = destination.assumingMemoryBound(to: _Pixel.self)
        if unpremultiply {
            for k in 0..<n { d[k] = _unpremultiplied(row[k]) }
        } else {
            d.update(from: row, count: n)
        }
    case .one(let channel, let scalar):
        switch scalar {
        case .uint8:
            let d = destination.assumingMemoryBound(to: UInt8.self)
            for k in 0..<n {
                let p = unpremultiply ? _unpremultiplied(row[k]) : row[k]
                d[k] = _bytes(_Pixel(repeating: channelValue(p, channel)))[0]
            }
        case .half:
            let d = destination.assumingMemoryBound(to: Float16.self)
            for k in 0..<n {
                let p = unpremultiply ? _unpremultiplied(row[k]) : row[k]
                d[k] = Float16(channelValue(p, channel))
            }
        case .float:
            let d = destination.assumingMemoryBound(to: Float.self)
            for k in 0..<n {
                let p = unpremultiply ? _unpremultiplied(row[k]) : row[k]
                d[k] = channelValue(p, channel)
            }
        }
    }
}

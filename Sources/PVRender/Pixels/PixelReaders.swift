// Stored pixels read as the renderer's premultiplied float RGBA.
import Foundation
import PVImaging

/// How a source buffer's bytes are read.
enum SourceKind: Sendable {
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

private let byteScale = FloatPixel(repeating: 1 / 255)

@inline(__always) private func read4<O: FourChannelOrder>(
    _: O.Type, _ source: UnsafeRawPointer, _ out: UnsafeMutablePointer<FloatPixel>, _ n: Int, _ premultiply: Bool
) {
    if premultiply {
        for k in 0..<n {
            let v = FloatPixel(SIMD4<Int32>(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt8>.self))) * byteScale
            let a = v[O.a]
            out[k] = FloatPixel(v[O.r] * a, v[O.g] * a, v[O.b] * a, a)
        }
    } else {
        for k in 0..<n {
            let v = FloatPixel(SIMD4<Int32>(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt8>.self))) * byteScale
            out[k] = FloatPixel(v[O.r], v[O.g], v[O.b], v[O.a])
        }
    }
}

/// Reads `n` stored pixels as premultiplied float RGBA. One-component formats read as grey with
/// opaque alpha (value in R, G and B), as Core Image reads `L008`/`L00h`/`L00f` buffers; half and
/// float values are not clamped.
func readSourceRow(
    _ kind: SourceKind, _ source: UnsafeRawPointer, _ out: UnsafeMutablePointer<FloatPixel>, _ n: Int, _ premultiply: Bool
) {
    switch kind {
    case .rgba: read4(RGBAOrder.self, source, out, n, premultiply)
    case .bgra: read4(BGRAOrder.self, source, out, n, premultiply)
    case .argb: read4(ARGBOrder.self, source, out, n, premultiply)
    case .rgb24:
        let s = source.assumingMemoryBound(to: UInt8.self)
        for k in 0..<n {
            out[k] = FloatPixel(Float(s[3 &* k]), Float(s[3 &* k &+ 1]), Float(s[3 &* k &+ 2]), 255) * byteScale
        }
    case .grey8:
        let s = source.assumingMemoryBound(to: UInt8.self)
        for k in 0..<n {
            let v = Float(s[k]) * (1 / 255)
            out[k] = FloatPixel(v, v, v, 1)
        }
    case .greyHalf:
        let s = source.assumingMemoryBound(to: Float16.self)
        for k in 0..<n {
            let v = Float(s[k])
            out[k] = FloatPixel(v, v, v, 1)
        }
    case .greyFloat:
        let s = source.assumingMemoryBound(to: Float.self)
        for k in 0..<n {
            let v = s[k]
            out[k] = FloatPixel(v, v, v, 1)
        }
    }
}


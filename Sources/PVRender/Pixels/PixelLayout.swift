// The byte layouts a render writes, and float rows written in them.
import Foundation
import PVImaging

/// What a one-channel output stores.
package enum LayoutChannel: Sendable {
    /// BT.601 luma of R, G, B: `0.299R + 0.587G + 0.114B` (exact for grey).
    case luma
    case red
    case alpha
}

/// The scalar type of a one-channel output.
package enum LayoutScalar: Sendable {
    case uint8, half, float
    /// Bytes per value.
    package var size: Int {
        switch self {
        case .uint8: return 1
        case .half: return 2
        case .float: return 4
        }
    }
}

/// The byte layout of a render destination.
package enum PixelLayout: Sendable, Equatable {
    /// 8-bit, 4 channels; the order names the stored byte sequence.
    case rgba8(ByteOrder)
    /// 8-bit R, G, B (`kCVPixelFormatType_24RGB`).
    case rgb8
    /// 16-bit unsigned R, G, B, A (0…65535), native byte order.
    case rgba16
    case rgbaHalf
    case rgbaFloat
    case one(LayoutChannel, LayoutScalar)

    /// The stored byte sequence of a 4-channel 8-bit pixel.
    package enum ByteOrder: Sendable { case rgba, bgra, argb, abgr }

    /// Bytes per pixel.
    package var bytesPerPixel: Int {
        switch self {
        case .rgba8: return 4
        case .rgb8: return 3
        case .rgba16, .rgbaHalf: return 8
        case .rgbaFloat: return 16
        case .one(_, let s): return s.size
        }
    }
}

/// `p` scaled to 0…255, rounded and clamped to bytes, in register (see ``byteValues(_:)``).
@inline(__always) func byteClamped(_ p: FloatPixel) -> SIMD4<UInt8> {
    SIMD4<UInt8>(truncatingIfNeeded: byteValues(p))
}

@inline(__always) func unpremultiplied(_ p: FloatPixel) -> FloatPixel {
    let a = p[3]
    let inverse: Float = a > 0 ? 1 / a : 0
    return p * FloatPixel(inverse, inverse, inverse, 1)
}

@inline(__always) private func write4<O: FourChannelOrder>(
    _: O.Type, _ row: UnsafePointer<FloatPixel>, _ n: Int, _ destination: UnsafeMutableRawPointer, _ unpremultiply: Bool
) {
    if unpremultiply {
        for k in 0..<n {
            let p = unpremultiplied(row[k])
            destination.storeBytes(of: byteClamped(FloatPixel(p[O.channel(atByte: 0)], p[O.channel(atByte: 1)], p[O.channel(atByte: 2)], p[O.channel(atByte: 3)])), toByteOffset: k &* 4, as: SIMD4<UInt8>.self)
        }
    } else {
        for k in 0..<n {
            let p = row[k]
            destination.storeBytes(of: byteClamped(FloatPixel(p[O.channel(atByte: 0)], p[O.channel(atByte: 1)], p[O.channel(atByte: 2)], p[O.channel(atByte: 3)])), toByteOffset: k &* 4, as: SIMD4<UInt8>.self)
        }
    }
}

@inline(__always) private func channelValue(_ p: FloatPixel, _ channel: LayoutChannel) -> Float {
    switch channel {
    case .luma: return p[0] + 0.587 * (p[1] - p[0]) + 0.114 * (p[2] - p[0])
    case .red: return p[0]
    case .alpha: return p[3]
    }
}

/// Writes `n` float pixels in `layout`; `unpremultiply` stores straight alpha.
package func writeRow(
    _ layout: PixelLayout, _ row: UnsafePointer<FloatPixel>, _ n: Int, _ destination: UnsafeMutableRawPointer,
    unpremultiply: Bool
) {
    switch layout {
    case .rgba8(.rgba): write4(RGBAOrder.self, row, n, destination, unpremultiply)
    case .rgba8(.bgra): write4(BGRAOrder.self, row, n, destination, unpremultiply)
    case .rgba8(.argb): write4(ARGBOrder.self, row, n, destination, unpremultiply)
    case .rgba8(.abgr): write4(ABGROrder.self, row, n, destination, unpremultiply)
    case .rgb8:
        let d = destination.assumingMemoryBound(to: UInt8.self)
        for k in 0..<n {
            let b = byteClamped(unpremultiply ? unpremultiplied(row[k]) : row[k])
            d[3 &* k] = b[0]
            d[3 &* k &+ 1] = b[1]
            d[3 &* k &+ 2] = b[2]
        }
    case .rgba16:
        let d = destination.assumingMemoryBound(to: UInt16.self)
        for k in 0..<n {
            let p = unpremultiply ? unpremultiplied(row[k]) : row[k]
            for c in 0..<4 {
                let v = (p[c] * 65535).rounded()
                // NaN fails both comparisons and becomes 0.
                d[4 &* k &+ c] = v >= 65535 ? 65535 : (v > 0 ? UInt16(v) : 0)
            }
        }
    case .rgbaHalf:
        let d = destination.assumingMemoryBound(to: Float16.self)
        for k in 0..<n {
            let p = unpremultiply ? unpremultiplied(row[k]) : row[k]
            for c in 0..<4 { d[4 &* k &+ c] = Float16(p[c]) }
        }
    case .rgbaFloat:
        let d = destination.assumingMemoryBound(to: FloatPixel.self)
        if unpremultiply {
            for k in 0..<n { d[k] = unpremultiplied(row[k]) }
        } else {
            d.update(from: row, count: n)
        }
    case .one(let channel, let scalar):
        switch scalar {
        case .uint8:
            let d = destination.assumingMemoryBound(to: UInt8.self)
            for k in 0..<n {
                let p = unpremultiply ? unpremultiplied(row[k]) : row[k]
                d[k] = byteClamped(FloatPixel(repeating: channelValue(p, channel)))[0]
            }
        case .half:
            let d = destination.assumingMemoryBound(to: Float16.self)
            for k in 0..<n {
                let p = unpremultiply ? unpremultiplied(row[k]) : row[k]
                d[k] = Float16(channelValue(p, channel))
            }
        case .float:
            let d = destination.assumingMemoryBound(to: Float.self)
            for k in 0..<n {
                let p = unpremultiply ? unpremultiplied(row[k]) : row[k]
                d[k] = channelValue(p, channel)
            }
        }
    }
}

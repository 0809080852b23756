// The renderer's 8-bit fast path. When the destination is 8-bit premultiplied RGBA, nodes that
// can (sources, crops, whole-pixel moves, blends, composites, maximum component) work on
// premultiplied RGBA words — R in the low byte — in fixed point; any other node is rendered in
// float and quantised. Masks are read through the scalar channel path (one float per pixel).
// Each fixed-point step rounds to nearest, so results agree with the float path within 1 LSB.
import Foundation

/// Premultiplied RGBA8 words, R in the lowest byte (memory order R, G, B, A).
typealias _Word = UInt32

/// Float pixels to words (round to nearest, clamped, NaN → 0).
@inline(__always) func _quantize(_ source: UnsafePointer<_Pixel>, _ destination: UnsafeMutablePointer<_Word>, _ n: Int) {
    let raw = UnsafeMutableRawPointer(destination)
    for k in 0..<n { raw.storeBytes(of: _bytes(source[k]), toByteOffset: k &* 4, as: SIMD4<UInt8>.self) }
}

/// A float in 0…1 to a byte (round to nearest, clamped, NaN → 0); vectorisable.
@inline(__always) func _unitToByte(_ v: Float) -> UInt8 {
    let q = v > 0 ? min(v * 255, 255) : 0
    return UInt8(truncatingIfNeeded: (q + 12_582_912).bitPattern)
}

/// Stored 4-byte pixels to RGBA words.
@inline(__always) func _wordsFromBGRA(_ source: UnsafePointer<UInt32>, _ destination: UnsafeMutablePointer<_Word>, _ n: Int) {
    for k in 0..<n {
        let p = source[k]
        destination[k] = (p & 0xFF00_FF00) | ((p &>> 16) & 0xFF) | ((p & 0xFF) &<< 16)
    }
}

@inline(__always) func _wordsFromARGB(_ source: UnsafePointer<UInt32>, _ destination: UnsafeMutablePointer<_Word>, _ n: Int) {
    for k in 0..<n {
        let p = source[k]
        destination[k] = (p &>> 8) | (p &<< 24)
    }
}

/// Premultiplies straight-alpha RGBA words in place (`round(c·a/255)`); opaque pixels are untouched.
@inline(__always) func _premultiplyWords(_ words: UnsafeMutablePointer<_Word>, _ n: Int) {
    for k in 0..<n {
        let p = words[k]
        let a = p &>> 24
        if a == 255 { continue }
        @inline(__always) func scale(_ c: UInt32) -> UInt32 {
            let t = c &* a &+ 128
            return (t &+ (t &>> 8)) &>> 8
        }
        words[k] = scale(p & 0xFF) | scale((p &>> 8) & 0xFF) &<< 8 | scale((p &>> 16) & 0xFF) &<< 16 | a &<< 24
    }
}

/// Writes RGBA words in a destination byte order.
func _writeWords(_ order: _PixelLayout._Order, _ source: UnsafePointer<_Word>, _ n: Int, _ destination: UnsafeMutableRawPointer) {
    let d = destination.assumingMemoryBound(to: UInt32.self)
    switch order {
    case .rgba:
        destination.copyMemory(from: source, byteCount: n * 4)
    case .bgra:
        for k in 0..<n {
            let p = source[k]
            d[k] = (p & 0xFF00_FF00) | ((p &>> 16) & 0xFF) | ((p & 0xFF) &<< 16)
        }
    case .argb:
        for k in 0..<n {
            let p = source[k]
            d[k] = (p &<< 8) | (p &>> 24)
        }
    case .abgr:
        for k in 0..<n { d[k] = source[k].byteSwapped }
    }
}

/// `out = round(b + w·(f − b)/255)` per byte, with the pixel weight `w` repeated over its 4 bytes.
@inline(__always) func _blendBytes(
    _ f: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ w: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>,
    _ count: Int
) {
    for i in 0..<count {
        let wi = UInt16(w[i])
        let t = UInt16(f[i]) &* wi &+ UInt16(b[i]) &* (255 &- wi) &+ 128
        out[i] = UInt8(truncatingIfNeeded: (t &+ (t &>> 8)) &>> 8)
    }
}

/// `out = min(255, f + round(b·(255 − fa)/255))` per byte, with `fa` repeated over the pixel's 4 bytes.
@inline(__always) func _overBytes(
    _ f: UnsafeMutablePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ inverseAlpha: UnsafePointer<UInt8>, _ count: Int
) {
    for i in 0..<count {
        let t = UInt16(b[i]) &* UInt16(inverseAlpha[i]) &+ 128
        let s = UInt16(f[i]) &+ ((t &+ (t &>> 8)) &>> 8)
        f[i] = UInt8(truncatingIfNeeded: min(s, 255))
    }
}

/// Repeats each byte 4 times (a per-pixel value for each of its bytes).
@inline(__always) func _spread(_ values: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt32>, _ n: Int) {
    for k in 0..<n { destination[k] = UInt32(values[k]) &* 0x0101_0101 }
}

// The renderer's 8-bit fast path. When the destination is 8-bit premultiplied RGBA, nodes that
// can (sources, crops, whole-pixel moves, blends, composites, maximum component) work on
// premultiplied RGBA words — R in the low byte — in fixed point; any other node is rendered in
// float and quantised. Masks are read through the scalar channel path (one float per pixel).
// Each fixed-point step rounds to nearest, so results agree with the float path within 1 LSB.
import Foundation
import PVImaging

/// Premultiplied RGBA8 words, R in the lowest byte (memory order R, G, B, A).
typealias PixelWord = UInt32

/// Float pixels to words (round to nearest, clamped, NaN → 0).
@inline(__always) func quantize(_ source: UnsafePointer<FloatPixel>, _ destination: UnsafeMutablePointer<PixelWord>, _ n: Int) {
    let raw = UnsafeMutableRawPointer(destination)
    for k in 0..<n { raw.storeBytes(of: byteClamped(source[k]), toByteOffset: k &* 4, as: SIMD4<UInt8>.self) }
}

/// Floats in 0…1 to integers 0…255: `v·255` rounded to nearest (ties to even), clamped; NaN
/// gives 0 or 255. Written with integer min/max because `replace(with:where:)` and float
/// `pointwiseMin` do not lower to vector instructions.
@inline(__always) func byteValues(_ v: SIMD4<Float>) -> SIMD4<Int32> {
    // Adding 1.5·2²³ leaves the rounded value in the low mantissa bits.
    let bits = unsafeBitCast(v * 255 + 12_582_912, to: SIMD4<Int32>.self) &- 0x4B40_0000
    return pointwiseMax(pointwiseMin(bits, SIMD4(repeating: 255)), SIMD4(repeating: 0))
}

/// A float in 0…1 to a byte (round to nearest, clamped, NaN → 0); vectorisable.
@inline(__always) func unitToByte(_ v: Float) -> UInt8 {
    let q = v > 0 ? min(v * 255, 255) : 0
    return UInt8(truncatingIfNeeded: (q + 12_582_912).bitPattern)
}

/// Premultiplies straight-alpha RGBA words in place (`round(c·a/255)`); opaque pixels are untouched.
@inline(__always) func premultiplyWords(_ words: UnsafeMutablePointer<PixelWord>, _ n: Int) {
    // Opaque pixels stay as they are: skip them eight at a time (decoded photos are opaque throughout).
    let raw = UnsafeRawPointer(words)
    var k = 0
    while k < n {
        if k &+ 8 <= n, raw.loadUnaligned(fromByteOffset: k &* 4, as: SIMD8<UInt32>.self) & 0xFF00_0000 == SIMD8(repeating: 0xFF00_0000) {
            k &+= 8
            continue
        }
        let p = words[k]
        let a = p &>> 24
        if a == 255 {
            k &+= 1
            continue
        }
        @inline(__always) func scale(_ c: UInt32) -> UInt32 { divide255Rounded(c &* a) }
        words[k] = scale(p & 0xFF) | scale((p &>> 8) & 0xFF) &<< 8 | scale((p &>> 16) & 0xFF) &<< 16 | a &<< 24
        k &+= 1
    }
}

/// Reorders RGBA words in place into a destination byte order.
func reorderWords(_ order: PixelLayout.ByteOrder, _ words: UnsafeMutablePointer<PixelWord>, _ n: Int) {
    if order == .rgba { return }
    writeWords(order, words, n, UnsafeMutableRawPointer(words))
}

/// Writes RGBA words in a destination byte order.
func writeWords(_ order: PixelLayout.ByteOrder, _ source: UnsafePointer<PixelWord>, _ n: Int, _ destination: UnsafeMutableRawPointer) {
    switch order {
    case .rgba:
        if UnsafeRawPointer(destination) != UnsafeRawPointer(source) { destination.copyMemory(from: source, byteCount: n * 4) }
    case .bgra: RGBAWords.swapRedBlue(source, destination, n)
    case .argb: RGBAWords.toARGB(source, destination, n)
    case .abgr: RGBAWords.toABGR(source, destination, n)
    }
}

/// `f = round(b + w·(f − b)/255)` per byte of premultiplied words, with `w = mask·255` per pixel.
///
/// Four pixels per step in 16-bit lanes (SSE2 has 16-bit multiplies): a word's bytes R, G, B, A
/// are two 16-bit lanes; the even bytes (R, B) and odd bytes (G, A) are blended separately.
/// A float mask row as the byte weights ``blendRow(_:_:_:_:)`` derives from it (the same rounding, also for NaN).
@inline(__always) func weightBytes(_ mask: UnsafePointer<Float>, _ weights: UnsafeMutablePointer<UInt8>, _ n: Int) {
    let mr = UnsafeRawPointer(mask), wr = UnsafeMutableRawPointer(weights)
    var k = 0
    while k &+ 4 <= n {
        let w = byteValues(mr.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<Float>.self))
        wr.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: w), toByteOffset: k, as: SIMD4<UInt8>.self)
        k &+= 4
    }
    while k < n {
        weights[k] = unitToByte(mask[k])
        k &+= 1
    }
}

@inline(__always) func blendRow(
    _ f: UnsafeMutablePointer<PixelWord>, _ b: UnsafePointer<PixelWord>, _ mask: UnsafePointer<Float>, _ n: Int
) {
    let fr = UnsafeMutableRawPointer(f), br = UnsafeRawPointer(b), mr = UnsafeRawPointer(mask)
    var k = 0
    while k &+ 4 <= n {
        let w32 = unsafeBitCast(byteValues(mr.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<Float>.self)), to: SIMD4<UInt32>.self)
        let w = unsafeBitCast(w32 | (w32 &<< 16), to: SIMD8<UInt16>.self)
        let inverse = 255 &- w
        let fv = unsafeBitCast(fr.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt32>.self), to: SIMD8<UInt16>.self)
        let bv = unsafeBitCast(br.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt32>.self), to: SIMD8<UInt16>.self)
        var even = (fv & 0xFF) &* w &+ (bv & 0xFF) &* inverse &+ 128
        var odd = (fv &>> 8) &* w &+ (bv &>> 8) &* inverse &+ 128
        even = (even &+ (even &>> 8)) &>> 8
        odd = (odd &+ (odd &>> 8)) &>> 8
        fr.storeBytes(of: unsafeBitCast(even | (odd &<< 8), to: SIMD4<UInt32>.self), toByteOffset: k &* 4, as: SIMD4<UInt32>.self)
        k &+= 4
    }
    while k < n {
        let w = UInt32(unitToByte(mask[k]))
        var out: UInt32 = 0
        for shift in stride(from: 0 as UInt32, to: 32, by: 8) {
            out |= divide255Rounded(((f[k] &>> shift) & 0xFF) &* w &+ ((b[k] &>> shift) & 0xFF) &* (255 &- w)) &<< shift
        }
        f[k] = out
        k &+= 1
    }
}

/// `f = min(255, f + round(b·(255 − f.alpha)/255))` per byte of premultiplied words (source-over).
@inline(__always) func overRow(_ f: UnsafeMutablePointer<PixelWord>, _ b: UnsafePointer<PixelWord>, _ n: Int) {
    let fr = UnsafeMutableRawPointer(f), br = UnsafeRawPointer(b)
    var k = 0
    while k &+ 4 <= n {
        let fw = fr.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt32>.self)
        let i32 = 255 &- (fw &>> 24)
        let inverse = unsafeBitCast(i32 | (i32 &<< 16), to: SIMD8<UInt16>.self)
        let fv = unsafeBitCast(fw, to: SIMD8<UInt16>.self)
        let bv = unsafeBitCast(br.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt32>.self), to: SIMD8<UInt16>.self)
        var even = (bv & 0xFF) &* inverse &+ 128
        var odd = (bv &>> 8) &* inverse &+ 128
        even = (fv & 0xFF) &+ ((even &+ (even &>> 8)) &>> 8)
        odd = (fv &>> 8) &+ ((odd &+ (odd &>> 8)) &>> 8)
        // pointwiseMin on integer vectors lowers to a saturating subtract; `replace(with:where:)`
        // on them does not vectorise.
        even = pointwiseMin(even, SIMD8(repeating: 255))
        odd = pointwiseMin(odd, SIMD8(repeating: 255))
        fr.storeBytes(of: unsafeBitCast(even | (odd &<< 8), to: SIMD4<UInt32>.self), toByteOffset: k &* 4, as: SIMD4<UInt32>.self)
        k &+= 4
    }
    while k < n {
        let inverse = 255 &- (f[k] &>> 24)
        var out: UInt32 = 0
        for shift in stride(from: 0 as UInt32, to: 32, by: 8) {
            out |= min(255, ((f[k] &>> shift) & 0xFF) &+ divide255Rounded(((b[k] &>> shift) & 0xFF) &* inverse)) &<< shift
        }
        f[k] = out
        k &+= 1
    }
}

// RGBA words — one UInt32 a pixel, R in the low byte (memory order R, G, B, A) — to and from the other 8-bit
// layouts, four words at a time (explicit SIMD: the scalar loops do not auto-vectorise). Shared by the format
// conversions and the renderer's 8-bit path.

/// Conversions between RGBA words and stored 8-bit pixels. Sources and destinations may be the same memory.
package enum RGBAWords {
    /// Applies `f` to `n` words, four at a time.
    @inline(__always) package static func map(
        _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ n: Int,
        _ f: (SIMD4<UInt32>) -> SIMD4<UInt32>
    ) {
        var k = 0
        while k &+ 4 <= n {
            let v = source.loadUnaligned(fromByteOffset: k &* 4, as: SIMD4<UInt32>.self)
            destination.storeBytes(of: f(v), toByteOffset: k &* 4, as: SIMD4<UInt32>.self)
            k &+= 4
        }
        while k < n {
            let v = SIMD4<UInt32>(repeating: source.loadUnaligned(fromByteOffset: k &* 4, as: UInt32.self))
            destination.storeBytes(of: f(v)[0], toByteOffset: k &* 4, as: UInt32.self)
            k &+= 1
        }
    }

    /// Swaps bytes 0 and 2 of each word: BGRA to RGBA and back.
    @inline(__always) package static func swapRedBlue(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ n: Int) {
        map(source, destination, n) { p in (p & 0xFF00_FF00) | ((p &>> 16) & 0xFF) | ((p & 0xFF) &<< 16) }
    }

    /// Stored A, R, G, B pixels to RGBA words.
    @inline(__always) package static func fromARGB(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ n: Int) {
        map(source, destination, n) { p in (p &>> 8) | (p &<< 24) }
    }

    /// RGBA words to stored A, R, G, B pixels.
    @inline(__always) package static func toARGB(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ n: Int) {
        map(source, destination, n) { p in (p &<< 8) | (p &>> 24) }
    }

    /// RGBA words to stored A, B, G, R pixels (each word's bytes reversed).
    @inline(__always) package static func toABGR(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, _ n: Int) {
        map(source, destination, n) { p in
            (p &<< 24) | ((p &<< 8) & 0x00FF_0000) | ((p &>> 8) & 0x0000_FF00) | (p &>> 24)
        }
    }

    /// One-component bytes to opaque grey words.
    @inline(__always) package static func fromGrey(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt32>, _ n: Int) {
        let raw = UnsafeMutableRawPointer(destination)
        var k = 0
        while k &+ 4 <= n {
            let g = SIMD4<UInt32>(truncatingIfNeeded: UnsafeRawPointer(source + k).loadUnaligned(as: SIMD4<UInt8>.self))
            raw.storeBytes(of: g &* 0x0001_0101 | 0xFF00_0000, toByteOffset: k &* 4, as: SIMD4<UInt32>.self)
            k &+= 4
        }
        while k < n {
            destination[k] = UInt32(source[k]) &* 0x0001_0101 | 0xFF00_0000
            k &+= 1
        }
    }

    /// Stored R, G, B bytes to opaque RGBA words.
    @inline(__always) package static func fromRGB(_ source: UnsafePointer<UInt8>, _ destination: UnsafeMutablePointer<UInt32>, _ n: Int) {
        for k in 0..<n {
            destination[k] =
                UInt32(source[3 &* k]) | UInt32(source[3 &* k &+ 1]) &<< 8 | UInt32(source[3 &* k &+ 2]) &<< 16 | 0xFF00_0000
        }
    }
}

// Per-format RGB readers used by the samplers. Each is a small struct over plane pointers, so the
// generic sampling loops specialise into one tight loop per pixel format.

/// Reads pixels as R, G, B in 0–255 (lane 3 unused). Coordinates must be inside the image.
protocol RGBPixelSource {
    var width: Int { get }
    var height: Int { get }
    func rgb(_ x: Int, _ y: Int) -> SIMD4<Float>
    /// Bilinear RGB of the 2×2 block at `(x0, y0)`, which lies wholly inside the image.
    func bilinear(_ x0: Int, _ y0: Int, _ ax: Float, _ ay: Float) -> SIMD4<Float>
}

/// A 4-byte-per-pixel plane and the byte offsets of R, G and B in a pixel, for the C kernels.
struct Packed4Layout {
    let plane: PlaneView
    let r: Int32
    let g: Int32
    let b: Int32
}

extension RGBPixelSource {
    /// The plane and channel offsets when the source is 4 bytes per pixel; `nil` otherwise.
    @inline(__always) var packed4Layout: Packed4Layout? { (self as? any Packed4Plane)?.layout }

    @inline(__always) func bilinear(_ x0: Int, _ y0: Int, _ ax: Float, _ ay: Float) -> SIMD4<Float> {
        let p00 = rgb(x0, y0), p01 = rgb(x0 &+ 1, y0), p10 = rgb(x0, y0 &+ 1), p11 = rgb(x0 &+ 1, y0 &+ 1)
        let top = p00 + (p01 - p00) * ax
        let bottom = p10 + (p11 - p10) * ax
        return top + (bottom - top) * ay
    }
}

/// Two adjacent 4-byte pixels as floats in memory order.
@inline(__always) func loadPixelPair(_ p: UnsafeRawPointer) -> SIMD8<Float> {
    SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: p.loadUnaligned(as: SIMD8<UInt8>.self)))
}

/// Byte offsets of a 4-channel 8-bit format, as compile-time constants.
package protocol FourChannelOrder {
    /// Where R, G, B and A sit among a pixel's four bytes.
    static var offsets: (r: Int, g: Int, b: Int, a: Int) { get }
}

extension FourChannelOrder {
    @inline(__always) package static var r: Int { offsets.r }
    @inline(__always) package static var g: Int { offsets.g }
    @inline(__always) package static var b: Int { offsets.b }
    @inline(__always) package static var a: Int { offsets.a }
    /// The channel (0 = R, 1 = G, 2 = B, 3 = A) stored at byte `k`: the inverse of ``offsets``.
    @inline(__always) package static func channel(atByte k: Int) -> Int { r == k ? 0 : g == k ? 1 : b == k ? 2 : 3 }
}

/// Memory order R, G, B, A.
package enum RGBAOrder: FourChannelOrder { package static var offsets: (r: Int, g: Int, b: Int, a: Int) { (0, 1, 2, 3) } }
/// Memory order B, G, R, A.
package enum BGRAOrder: FourChannelOrder { package static var offsets: (r: Int, g: Int, b: Int, a: Int) { (2, 1, 0, 3) } }
/// Memory order A, R, G, B.
package enum ARGBOrder: FourChannelOrder { package static var offsets: (r: Int, g: Int, b: Int, a: Int) { (1, 2, 3, 0) } }
/// Memory order A, B, G, R.
package enum ABGROrder: FourChannelOrder { package static var offsets: (r: Int, g: Int, b: Int, a: Int) { (3, 2, 1, 0) } }

protocol Packed4Plane {
    var layout: Packed4Layout { get }
}

struct Packed4Source<Order: FourChannelOrder>: RGBPixelSource, Packed4Plane {
    let plane: PlaneView
    var layout: Packed4Layout { Packed4Layout(plane: plane, r: Int32(Order.r), g: Int32(Order.g), b: Int32(Order.b)) }
    var width: Int { plane.width }
    var height: Int { plane.height }
    @inline(__always) func rgb(_ x: Int, _ y: Int) -> SIMD4<Float> {
        let p = (plane.row(y) + x &* 4).assumingMemoryBound(to: UInt8.self)
        return SIMD4(Float(p[Order.r]), Float(p[Order.g]), Float(p[Order.b]), 0)
    }
    @inline(__always) func bilinear(_ x0: Int, _ y0: Int, _ ax: Float, _ ay: Float) -> SIMD4<Float> {
        let p = plane.row(y0) + x0 &* 4
        let top = loadPixelPair(p), bottom = loadPixelPair(p + plane.bytesPerRow)
        let t = top.lowHalf + (top.highHalf - top.lowHalf) * ax
        let b = bottom.lowHalf + (bottom.highHalf - bottom.lowHalf) * ax
        let v = t + (b - t) * ay
        return SIMD4(v[Order.r], v[Order.g], v[Order.b], 0)
    }
}

struct RGB24Source: RGBPixelSource {
    let plane: PlaneView
    var width: Int { plane.width }
    var height: Int { plane.height }
    @inline(__always) func rgb(_ x: Int, _ y: Int) -> SIMD4<Float> {
        let p = (plane.row(y) + x &* 3).assumingMemoryBound(to: UInt8.self)
        return SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), 0)
    }
    /// Bytes 0–3 and 2–5 of a pixel pair (never reads past the second pixel).
    @inline(__always) private func pair(_ p: UnsafeRawPointer) -> (SIMD4<Float>, SIMD4<Float>) {
        let a = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: p.loadUnaligned(as: SIMD4<UInt8>.self)))
        let b = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: p.loadUnaligned(fromByteOffset: 2, as: SIMD4<UInt8>.self)))
        return (a, SIMD4(b[1], b[2], b[3], 0))
    }
    @inline(__always) func bilinear(_ x0: Int, _ y0: Int, _ ax: Float, _ ay: Float) -> SIMD4<Float> {
        let p = plane.row(y0) + x0 &* 3
        let (p00, p01) = pair(p), (p10, p11) = pair(p + plane.bytesPerRow)
        let t = p00 + (p01 - p00) * ax
        let b = p10 + (p11 - p10) * ax
        let v = t + (b - t) * ay
        return SIMD4(v[0], v[1], v[2], 0)
    }
}

struct Grey8Source: RGBPixelSource {
    let plane: PlaneView
    var width: Int { plane.width }
    var height: Int { plane.height }
    @inline(__always) func rgb(_ x: Int, _ y: Int) -> SIMD4<Float> {
        SIMD4(repeating: Float(plane.row(y).assumingMemoryBound(to: UInt8.self)[x]))
    }
}

/// Half-float grey, 0–1 mapped to 0–255.
struct GreyHalfSource: RGBPixelSource {
    let plane: PlaneView
    var width: Int { plane.width }
    var height: Int { plane.height }
    @inline(__always) func rgb(_ x: Int, _ y: Int) -> SIMD4<Float> {
        SIMD4(repeating: Float(plane.row(y).assumingMemoryBound(to: Float16.self)[x]) * 255)
    }
}

/// Float grey, 0–1 mapped to 0–255.
struct GreyFloatSource: RGBPixelSource {
    let plane: PlaneView
    var width: Int { plane.width }
    var height: Int { plane.height }
    @inline(__always) func rgb(_ x: Int, _ y: Int) -> SIMD4<Float> {
        SIMD4(repeating: plane.row(y).assumingMemoryBound(to: Float.self)[x] * 255)
    }
}

/// Bi-planar 4:2:0: each pixel is converted with its 2×2 block's chroma (nearest), rounded to 8 bits,
/// exactly as ``PixelBuffer/converted(to:)`` converts it.
struct YUV420Source: RGBPixelSource {
    let luma: PlaneView
    let chroma: PlaneView
    let matrix: YCbCrMatrix
    var width: Int { luma.width }
    var height: Int { luma.height }
    @inline(__always) func rgb(_ x: Int, _ y: Int) -> SIMD4<Float> {
        let yv = Int32(luma.row(y).assumingMemoryBound(to: UInt8.self)[x])
        let c = chroma.row(y &>> 1).assumingMemoryBound(to: UInt8.self) + (x &>> 1) &* 2
        let (r, g, b) = matrix.rgb(y: yv, cb: Int32(c[0]), cr: Int32(c[1]))
        return SIMD4(Float(r), Float(g), Float(b), 0)
    }
    /// The four neighbours converted side by side (one SIMD lane each), then weighted.
    @inline(__always) func bilinear(_ x0: Int, _ y0: Int, _ ax: Float, _ ay: Float) -> SIMD4<Float> {
        let l0 = luma.row(y0).assumingMemoryBound(to: UInt8.self) + x0
        let l1 = l0 + luma.bytesPerRow
        let yv = SIMD4<Int32>(Int32(l0[0]), Int32(l0[1]), Int32(l1[0]), Int32(l1[1]))
        let c0 = chroma.row(y0 &>> 1).assumingMemoryBound(to: UInt8.self)
        let c1 = chroma.row((y0 &+ 1) &>> 1).assumingMemoryBound(to: UInt8.self)
        let i0 = (x0 &>> 1) &* 2, i1 = ((x0 &+ 1) &>> 1) &* 2
        // One SIMD operator per statement with explicit types (operator chains type-check very slowly).
        let k = YCbCrVector<SIMD4<Int32>>(matrix)
        let cb = SIMD4<Int32>(Int32(c0[i0]), Int32(c0[i1]), Int32(c1[i0]), Int32(c1[i1]))
        let cr = SIMD4<Int32>(Int32(c0[i0 &+ 1]), Int32(c0[i1 &+ 1]), Int32(c1[i0 &+ 1]), Int32(c1[i1 &+ 1]))
        let (r, g, b) = k.rgb(y: yv, cb: cb, cr: cr)
        // Weights (1−ax)(1−ay), ax(1−ay), (1−ax)ay, ax·ay built from broadcasts only: a vector
        // assembled lane by lane leaves junk in spare lanes, and junk denormals stall the multiply.
        let colBase = SIMD4<Float>(1, 0, 1, 0), colSign = SIMD4<Float>(-1, 1, -1, 1)
        let rowBase = SIMD4<Float>(1, 1, 0, 0), rowSign = SIMD4<Float>(-1, -1, 1, 1)
        var col: SIMD4<Float> = colSign * SIMD4<Float>(repeating: ax)
        col = col + colBase
        var rowW: SIMD4<Float> = rowSign * SIMD4<Float>(repeating: ay)
        rowW = rowW + rowBase
        let w: SIMD4<Float> = col * rowW
        let rf: SIMD4<Float> = SIMD4<Float>(r) * w
        let gf: SIMD4<Float> = SIMD4<Float>(g) * w
        let bf: SIMD4<Float> = SIMD4<Float>(b) * w
        return SIMD4<Float>(rf.sum(), gf.sum(), bf.sum(), 0)
    }
}

extension PixelBuffer {
    /// Calls the generic `body` with an RGB reader specialised for this buffer's format.
    @inline(__always)
    func withRGBSource<V: RGBPixelSourceVisitor>(_ body: V) -> V.Result {
        withPlanes { p0, p1 in
            switch format {
            case .rgba32: return body.visit(Packed4Source<RGBAOrder>(plane: p0))
            case .bgra32: return body.visit(Packed4Source<BGRAOrder>(plane: p0))
            case .argb32: return body.visit(Packed4Source<ARGBOrder>(plane: p0))
            case .rgb24: return body.visit(RGB24Source(plane: p0))
            case .oneComponent8: return body.visit(Grey8Source(plane: p0))
            case .oneComponent16Half: return body.visit(GreyHalfSource(plane: p0))
            case .oneComponent32Float: return body.visit(GreyFloatSource(plane: p0))
            case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange:
                return body.visit(YUV420Source(luma: p0, chroma: p1!, matrix: .forFormat(format)))
            }
        }
    }
}

/// A generic operation over any ``RGBPixelSource`` (Swift has no generic closures).
protocol RGBPixelSourceVisitor {
    associatedtype Result
    func visit<S: RGBPixelSource>(_ source: S) -> Result
}

// Shared plumbing for the per-pixel kernels: row-parallel loops, channel layouts, scratch memory.
#if canImport(Glibc)
import Glibc
import PVCore
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PVThreads

/// Row-parallel execution for kernels.
///
/// Large images are split into contiguous row bands run side by side on the shared worker pool;
/// small ones run on the calling thread. The number of bands is capped by
/// ``ImagingThreads/maximum``, which reads `PEOPLEVISION_IMAGING_THREADS` once (default: the
/// usable cores), so a benchmark can pin kernels to one core.
public enum ImagingThreads {
    /// Largest number of threads a kernel uses.
    public static let maximum: Int = {
        if let raw = getenv("PEOPLEVISION_IMAGING_THREADS"), let n = Int(String(cString: raw)), n > 0 {
            return n
        }
        return CPUBudget.available
    }()

    /// Below this many units of work (roughly pixel-taps) a kernel stays on the calling thread.
    static let minimumParallelWork = 1 << 18

    /// Calls `body` with disjoint row ranges that together cover `0..<rows`.
    ///
    /// `workPerRow` is an estimate of the cost of one row (pixels × taps); it decides whether the
    /// split is worth a thread hand-off. `body` must only write rows of its own range.
    @inline(__always)
    static func forEachBand(rows: Int, workPerRow: Int, _ body: (Range<Int>) -> Void) {
        guard rows > 0 else { return }
        let total = rows.multipliedReportingOverflow(by: max(1, workPerRow)).partialValue
        let threads = min(maximum, rows)
        if threads <= 1 || total < minimumParallelWork {
            body(0..<rows)
            return
        }
        // A few bands per thread smooth out uneven rows without much dispatch overhead.
        let bands = min(rows, threads * 3)
        // The bands touch disjoint rows of memory that outlives this call, which is what makes
        // handing the (pointer-capturing, hence non-Sendable) body to other threads sound.
        WorkerPool.shared.forEach(count: bands) { band in
            let start = rows * band / bands
            let end = rows * (band + 1) / bands
            if start < end { body(start..<end) }
        }
    }
}

/// Byte offsets of R, G, B (and A) inside one pixel of an 8-bit RGB-like format.
package struct RGBLayout: Sendable, Equatable {
    package let r: Int
    package let g: Int
    package let b: Int
    /// Offset of alpha, or -1 when the format has none.
    package let a: Int
    package let bytesPerPixel: Int

    var hasAlpha: Bool { a >= 0 }

    init(r: Int, g: Int, b: Int, a: Int, bytesPerPixel: Int) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
        self.bytesPerPixel = bytesPerPixel
    }

    package init?(_ format: PixelFormat) {
        switch format {
        case .rgba32: self.init(r: 0, g: 1, b: 2, a: 3, bytesPerPixel: 4)
        case .bgra32: self.init(r: 2, g: 1, b: 0, a: 3, bytesPerPixel: 4)
        case .argb32: self.init(r: 1, g: 2, b: 3, a: 0, bytesPerPixel: 4)
        case .rgb24: self.init(r: 0, g: 1, b: 2, a: -1, bytesPerPixel: 3)
        default: return nil
        }
    }
}

extension PixelFormat {
    /// Whether the format is one of the interleaved 8-bit RGB-like formats (rgba32, bgra32, argb32, rgb24).
    public var isRGB8: Bool { RGBLayout(self) != nil }
    /// Whether the format is one of the bi-planar 4:2:0 formats.
    public var isYUV420: Bool { planeCount == 2 }
    /// Whether the format is a 4-channel 8-bit format.
    var isFourChannel8: Bool { self == .rgba32 || self == .bgra32 || self == .argb32 }
}

/// A view of one plane, valid only inside the `withUnsafe…` closure that made it: read-only over an
/// `UnsafeRawPointer` (``PlaneView``), writable over an `UnsafeMutableRawPointer` (``MutablePlaneView``).
struct PlaneViewOf<Base: Strideable> where Base.Stride == Int {
    let base: Base
    let bytesPerRow: Int
    let width: Int
    let height: Int

    @inline(__always) func row(_ y: Int) -> Base { base.advanced(by: y &* bytesPerRow) }
}

typealias PlaneView = PlaneViewOf<UnsafeRawPointer>
typealias MutablePlaneView = PlaneViewOf<UnsafeMutableRawPointer>

extension PlaneViewOf where Base == UnsafeMutableRawPointer {
    var readOnly: PlaneView { PlaneView(base: UnsafeRawPointer(base), bytesPerRow: bytesPerRow, width: width, height: height) }
}

extension PixelBuffer {
    /// Calls `body` with read-only views of every plane (one or two).
    @inline(__always)
    func withPlanes<R>(_ body: (PlaneView, PlaneView?) throws -> R) rethrows -> R {
        let w0 = planeWidth(0), h0 = planeHeight(0), s0 = bytesPerRow(plane: 0)
        return try withUnsafeBytes(plane: 0) { p0 in
            let v0 = PlaneView(base: p0.baseAddress!, bytesPerRow: s0, width: w0, height: h0)
            if planeCount == 1 { return try body(v0, nil) }
            let w1 = planeWidth(1), h1 = planeHeight(1), s1 = bytesPerRow(plane: 1)
            return try withUnsafeBytes(plane: 1) { p1 in
                try body(v0, PlaneView(base: p1.baseAddress!, bytesPerRow: s1, width: w1, height: h1))
            }
        }
    }

    /// Calls `body` with writable views of every plane (one or two), copying shared storage first.
    @inline(__always)
    mutating func withMutablePlanes<R>(_ body: (MutablePlaneView, MutablePlaneView?) throws -> R) rethrows -> R {
        let w0 = planeWidth(0), h0 = planeHeight(0), s0 = bytesPerRow(plane: 0)
        let count = planeCount
        let w1 = count > 1 ? planeWidth(1) : 0, h1 = count > 1 ? planeHeight(1) : 0
        let s1 = count > 1 ? bytesPerRow(plane: 1) : 0
        // Both planes live in one allocation; plane 1 sits at a fixed offset from plane 0.
        let offset1 = count > 1 ? storage.layout.planes[1].offset - storage.layout.planes[0].offset : 0
        return try withUnsafeMutableBytes(plane: 0) { p0 in
            let v0 = MutablePlaneView(base: p0.baseAddress!, bytesPerRow: s0, width: w0, height: h0)
            if count == 1 { return try body(v0, nil) }
            return try body(v0, MutablePlaneView(base: p0.baseAddress! + offset1, bytesPerRow: s1, width: w1, height: h1))
        }
    }

    /// A new zero-filled buffer with the same size as this one.
    func makeSibling(format: PixelFormat) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, format: format, limits: .unlimitedForKernels)
    }
}

extension ImageLimits {
    /// Kernel outputs are bounded by their inputs, which were already checked; only sanity limits apply.
    static let unlimitedForKernels = ImageLimits(maximumPixelCount: Int(Int32.max), maximumSide: 1 << 20)
}

extension ImagingError {
    static func unsupported(_ what: String, _ format: PixelFormat) -> ImagingError {
        ImagingError(.unsupportedPixelFormat, "\(what) does not support pixel format \(format)")
    }

    static func sizeMismatch(_ what: String, _ a: PixelBuffer, _ b: PixelBuffer) -> ImagingError {
        ImagingError(
            .invalidArgument, "\(what) needs images of one size, got \(a.width)×\(a.height) and \(b.width)×\(b.height)")
    }
}

/// Rounds (half to even) and clamps a float in pixel units to a byte; NaN becomes 0.
///
/// Adding 1.5·2²³ puts the rounded integer in the low mantissa bits, which avoids Swift's checked
/// float-to-integer conversion and lets loops over this function vectorise.
@inline(__always)
func clampToByte(_ v: Float) -> UInt8 {
    let c: Float = min(max(v, 0), 255)
    let shifted: Float = c + 12_582_912
    return UInt8(truncatingIfNeeded: shifted.bitPattern)
}

/// Exact `round(x / 255)` for `0 ≤ x ≤ 65535`.
@inline(__always)
package func divide255Rounded(_ x: UInt32) -> UInt32 {
    let t = x &+ 128
    return (t &+ (t &>> 8)) &>> 8
}

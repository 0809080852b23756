// The Core Image renderer's plumbing: integer pixel rectangles in the working space, float
// images, per-thread scratch memory and the tiled, multi-threaded render loop.
//
// Working space: Core Image's, origin at the lower left, y up. Pixel (x, y) covers
// [x, x+1) × [y, y+1); its centre is (x + 0.5, y + 0.5). Float tiles store premultiplied RGBA
// (SIMD4<Float>, 0…1 for 8-bit data) with row 0 at the tile's lowest y.
import Foundation
import PVImaging
import PVThreads
import Synchronization

typealias _Pixel = SIMD4<Float>

/// A rectangle of whole pixels in the working space.
struct _IRect: Equatable, Sendable, CustomStringConvertible {
    var x: Int
    var y: Int
    var w: Int
    var h: Int

    /// Coordinates are clamped to ±2³⁰, which stands for "infinite".
    static let limit = 1 << 30
    static let empty = _IRect(x: 0, y: 0, w: 0, h: 0)
    static let infinite = _IRect(x: -limit, y: -limit, w: 2 * limit, h: 2 * limit)

    init(x: Int, y: Int, w: Int, h: Int) {
        self.x = x
        self.y = y
        self.w = max(0, w)
        self.h = max(0, h)
    }

    init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.init(x: x0, y: y0, w: x1 - x0, h: y1 - y0)
    }

    /// The pixels whose centres lie inside `rect` (x + 0.5 ∈ [minX, maxX)); infinite and huge
    /// rectangles are clamped to ``infinite``.
    init(covering rect: CGRect) {
        if rect.isNull || rect.isEmpty {
            self = .empty
            return
        }
        if rect.isInfinite {
            self = .infinite
            return
        }
        let r = rect.standardized
        func edge(_ v: CGFloat) -> Int {
            let e = (v - 0.5).rounded(.up)
            if !(e > -CGFloat(_IRect.limit)) { return -_IRect.limit }
            if !(e < CGFloat(_IRect.limit)) { return _IRect.limit }
            return Int(e)
        }
        self.init(x0: edge(r.minX), y0: edge(r.minY), x1: edge(r.maxX), y1: edge(r.maxY))
    }

    /// A rectangle for rendering: `rect` made integral after snapping coordinates within 1/1000
    /// of a whole number (so 1919.9999999 stays 1920).
    init(integral rect: CGRect) {
        func snap(_ v: CGFloat) -> CGFloat {
            let r = v.rounded()
            return abs(v - r) < 1e-3 ? r : v
        }
        let r = rect.standardized
        let x0 = snap(r.minX).rounded(.down), y0 = snap(r.minY).rounded(.down)
        let x1 = snap(r.maxX).rounded(.up), y1 = snap(r.maxY).rounded(.up)
        let lim = CGFloat(_IRect.limit)
        guard x0 > -lim, y0 > -lim, x1 < lim, y1 < lim else {
            self = .infinite
            return
        }
        self.init(x0: Int(x0), y0: Int(y0), x1: Int(x1), y1: Int(y1))
    }

    var maxX: Int { x + w }
    var maxY: Int { y + h }
    var isEmpty: Bool { w <= 0 || h <= 0 }
    var area: Int { w * h }
    var isInfinite: Bool { x <= -_IRect.limit || y <= -_IRect.limit || maxX >= _IRect.limit || maxY >= _IRect.limit }
    var cgRect: CGRect { CGRect(x: x, y: y, width: w, height: h) }

    func intersection(_ o: _IRect) -> _IRect {
        let x0 = max(x, o.x), y0 = max(y, o.y), x1 = min(maxX, o.maxX), y1 = min(maxY, o.maxY)
        return x1 > x0 && y1 > y0 ? _IRect(x0: x0, y0: y0, x1: x1, y1: y1) : .empty
    }

    func union(_ o: _IRect) -> _IRect {
        if isEmpty { return o }
        if o.isEmpty { return self }
        return _IRect(x0: min(x, o.x), y0: min(y, o.y), x1: max(maxX, o.maxX), y1: max(maxY, o.maxY))
    }

    func offsetBy(_ dx: Int, _ dy: Int) -> _IRect {
        isEmpty ? self : _IRect(x: clampCoordinate(x + dx), y: clampCoordinate(y + dy), w: w, h: h)
    }

    func insetBy(_ d: Int) -> _IRect {
        isEmpty ? self : _IRect(x0: clampCoordinate(x + d), y0: clampCoordinate(y + d), x1: clampCoordinate(maxX - d), y1: clampCoordinate(maxY - d))
    }

    func contains(_ o: _IRect) -> Bool {
        o.isEmpty || (o.x >= x && o.y >= y && o.maxX <= maxX && o.maxY <= maxY)
    }

    private func clampCoordinate(_ v: Int) -> Int { min(max(v, -2 * _IRect.limit), 2 * _IRect.limit) }

    var description: String { "(\(x), \(y), \(w)×\(h))" }
}

/// A materialised float image: premultiplied RGBA over `rect`, rows bottom-up, stride `rect.w`.
/// Written once while it is made, then only read (which is what makes it Sendable).
final class _FloatImage: @unchecked Sendable {
    let rect: _IRect
    let pixels: UnsafeMutablePointer<_Pixel>

    init(rect: _IRect) {
        self.rect = rect
        pixels = .allocate(capacity: max(1, rect.area))
    }

    deinit { pixels.deallocate() }

    @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<_Pixel> { pixels + (y - rect.y) * rect.w }
}

/// Per-thread scratch memory, one growable buffer per slot. A plan node owns its slots, so a
/// buffer is never regrown while a pointer into it is in use.
final class _EvalContext {
    private var buffers: [UnsafeMutableRawPointer?]
    private var capacities: [Int]
    private var keys: [SIMD4<Int>]
    private let fallbackSlot: Int

    /// `slots` for the plan's nodes, plus one for tiles and one for ``fallback(_:)``.
    init(slots: Int) {
        buffers = Array(repeating: nil, count: slots + 2)
        capacities = Array(repeating: 0, count: slots + 2)
        keys = Array(repeating: SIMD4(repeating: Int.min), count: slots + 2)
        fallbackSlot = slots + 1
    }

    /// Whether `slot` still holds what was computed for `key` (then it may be reused as is);
    /// otherwise records `key` for the contents the caller is about to compute. Call after
    /// ``raw(_:bytes:)`` for the same slot.
    @inline(__always) func reuse(_ slot: Int, key: SIMD4<Int>) -> Bool {
        if keys[slot] == key { return true }
        keys[slot] = key
        return false
    }

    /// Float scratch for a node converting its float output to another path. Float rendering
    /// never calls the other paths, so one buffer per thread suffices.
    @inline(__always) func fallback(_ count: Int) -> UnsafeMutablePointer<_Pixel> { pixels(fallbackSlot, count) }

    deinit { for b in buffers { b?.deallocate() } }

    /// At least `bytes` bytes, 64-byte aligned; the contents are undefined.
    @inline(__always) func raw(_ slot: Int, bytes: Int) -> UnsafeMutableRawPointer {
        if capacities[slot] < bytes { grow(slot, bytes) }
        return buffers[slot]!
    }

    @inline(__always) func pixels(_ slot: Int, _ count: Int) -> UnsafeMutablePointer<_Pixel> {
        raw(slot, bytes: max(1, count) * MemoryLayout<_Pixel>.stride).bindMemory(to: _Pixel.self, capacity: max(1, count))
    }

    private func grow(_ slot: Int, _ bytes: Int) {
        keys[slot] = SIMD4(repeating: Int.min)
        buffers[slot]?.deallocate()
        let size = max(bytes, capacities[slot] * 3 / 2, 4096)
        buffers[slot] = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        capacities[slot] = size
    }
}

/// Carries a value to other threads; each use argues why sharing it is sound.
struct _UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A compiled render: the root node and the number of scratch slots its nodes use.
struct _Plan: Sendable {
    let root: _PlanNode
    let slots: Int
    /// Whether the plan rotates or shears: then square tiles keep each tile's source region small.
    var squareTiles = false
}

/// Runs plans over rectangles, tile by tile, on up to ``PVImaging/ImagingThreads/maximum`` threads.
enum _Renderer {
    /// Tiles span up to 2048 columns (whole rows of HD frames: long sequential reads that the
    /// hardware prefetcher follows, and per-column tables computed once per band) and a few
    /// rows, so that each intermediate stays in L2: 4 rows of float pixels (128 KB) or 8 rows
    /// of 8-bit words (64 KB).
    static let tileWidth = 2048
    static let floatTileHeight = 4
    static let byteTileHeight = 8
    /// Square tiles for rotations: 64 × 64 (64 KB of float pixels).
    static let squareTile = 64

    /// Calls `body` for every tile of `rect` with the calling thread's scratch context (whose
    /// slot `slots` is free for the tile itself). Tiles run concurrently on disjoint output.
    static func forEachTile(_ rect: _IRect, slots: Int, width: Int, height: Int, _ body: (_IRect, _EvalContext) -> Void) {
        guard !rect.isEmpty else { return }
        let tw = min(rect.w, width), th = height
        let columns = (rect.w + tw - 1) / tw, rows = (rect.h + th - 1) / th
        let tiles = columns * rows
        @Sendable func tile(_ i: Int) -> _IRect {
            let cx = i % columns, cy = i / columns
            let x = rect.x + cx * tw, y = rect.y + cy * th
            return _IRect(x0: x, y0: y, x1: min(x + tw, rect.maxX), y1: min(y + th, rect.maxY))
        }
        let threads = min(ImagingThreads.maximum, tiles, max(1, rect.area / 65_536))
        if threads <= 1 {
            let context = _EvalContext(slots: slots)
            for i in 0..<tiles { body(tile(i), context) }
            return
        }
        let next = Atomic<Int>(0)
        // Tiles are disjoint and `body` only writes its own tile's destination, so sharing the
        // (non-Sendable) closure between the worker threads is sound.
        WorkerPool.shared.forEach(count: threads) { _ in
            let context = _EvalContext(slots: slots)
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if i >= tiles { break }
                body(tile(i), context)
            }
        }
    }

    /// Renders `rect` in float and hands each finished tile (bottom-up rows, `stride` pixels
    /// apart) to `sink`, concurrently for disjoint tiles.
    static func run(
        _ plan: _Plan, rect: _IRect, sink: (_ tile: _IRect, _ pixels: UnsafePointer<_Pixel>, _ stride: Int) -> Void
    ) {
        let (w, h) = plan.squareTiles ? (squareTile, squareTile) : (tileWidth, floatTileHeight)
        forEachTile(rect, slots: plan.slots, width: w, height: h) { tile, context in
            let buffer = context.pixels(plan.slots, tile.area)
            plan.root.render(tile, buffer, tile.w, context)
            sink(tile, buffer, tile.w)
        }
    }

    /// Renders `rect` through the 8-bit path straight into memory: `destination(y)` is the
    /// word of column `rect.x` in working row `y`; `finish(tile)` runs after each tile (for
    /// in-place reordering). Tiles are disjoint, so the destination is written concurrently.
    static func runBytes(
        _ plan: _Plan, rect: _IRect, destination: @escaping (Int) -> UnsafeMutablePointer<_Word>,
        finish: (_IRect) -> Void
    ) {
        // The destination memory outlives the call and tiles write disjoint parts of it.
        let row = _UncheckedSendable(destination)
        let (w, h) = plan.squareTiles ? (squareTile, squareTile) : (tileWidth, byteTileHeight)
        forEachTile(rect, slots: plan.slots, width: w, height: h) { tile, context in
            let origin = row.value(tile.y) + (tile.x - rect.x)
            // Rows are bottom-up in tiles; the stride between working rows may be negative.
            let stride = tile.h > 1 ? (row.value(tile.y + 1) - row.value(tile.y)) : 0
            plan.root.renderBytes(tile, origin, stride, context)
            finish(tile)
        }
    }

    /// Renders `rect` of a plan into a new float image.
    static func materialize(_ plan: _Plan, rect: _IRect) -> _FloatImage {
        let image = _FloatImage(rect: rect)
        let shared = _UncheckedSendable(image.pixels)
        run(plan, rect: rect) { tile, pixels, stride in
            for j in 0..<tile.h {
                let destination = shared.value + (tile.y - rect.y + j) * rect.w + (tile.x - rect.x)
                destination.update(from: pixels + j * stride, count: tile.w)
            }
        }
        return image
    }

    /// Calls `body` with disjoint ranges covering `0..<count`, on up to the imaging thread count.
    static func parallelFor(_ count: Int, work: Int, _ body: (Range<Int>) -> Void) {
        let threads = min(ImagingThreads.maximum, count, max(1, work / 65_536))
        if threads <= 1 {
            body(0..<count)
            return
        }
        let chunks = min(count, threads * 4)
        // Each chunk touches disjoint output rows; see the callers.
        WorkerPool.shared.forEach(count: chunks) { c in
            let lo = count * c / chunks, hi = count * (c + 1) / chunks
            if lo < hi { body(lo..<hi) }
        }
    }
}

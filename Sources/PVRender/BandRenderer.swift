// The renderer's coordinate conventions and its tiled, multi-threaded render loop.
//
// Working space: Core Image's, origin at the lower left, y up. Pixel (x, y) covers
// [x, x+1) × [y, y+1); its centre is (x + 0.5, y + 0.5). Float tiles store premultiplied RGBA
// (SIMD4<Float>, 0…1 for 8-bit data) with row 0 at the tile's lowest y.
import Foundation
import PVImaging
import PVThreads
import Synchronization

/// A premultiplied RGBA float pixel (0…1 for 8-bit data).
package typealias FloatPixel = SIMD4<Float>

/// A compiled render: the root node and the number of scratch slots its nodes use.
struct RenderPlan: Sendable {
    let root: RenderNode
    let slots: Int
    /// Whether the plan rotates or shears: then square tiles keep each tile's source region small.
    var squareTiles = false
}

/// Runs plans over rectangles, tile by tile, on up to ``PVImaging/ImagingThreads/maximum`` threads.
enum BandRenderer {
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
    static func forEachTile(_ rect: PixelRect, slots: Int, width: Int, height: Int, _ body: (PixelRect, RenderScratch) -> Void) {
        guard !rect.isEmpty else { return }
        let tw = min(rect.w, width), th = height
        let columns = (rect.w + tw - 1) / tw, rows = (rect.h + th - 1) / th
        let tiles = columns * rows
        @Sendable func tile(_ i: Int) -> PixelRect {
            let cx = i % columns, cy = i / columns
            let x = rect.x + cx * tw, y = rect.y + cy * th
            return PixelRect(x0: x, y0: y, x1: min(x + tw, rect.maxX), y1: min(y + th, rect.maxY))
        }
        let threads = min(ImagingThreads.maximum, tiles, max(1, rect.area / 65_536))
        if threads <= 1 {
            let context = RenderScratch(slots: slots)
            for i in 0..<tiles { body(tile(i), context) }
            return
        }
        let next = Atomic<Int>(0)
        // Tiles are disjoint and `body` only writes its own tile's destination, so sharing the
        // (non-Sendable) closure between the worker threads is sound.
        WorkerPool.shared.forEach(count: threads) { _ in
            let context = RenderScratch(slots: slots)
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
        _ plan: RenderPlan, rect: PixelRect, sink: (_ tile: PixelRect, _ pixels: UnsafePointer<FloatPixel>, _ stride: Int) -> Void
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
        _ plan: RenderPlan, rect: PixelRect, destination: @escaping (Int) -> UnsafeMutablePointer<PixelWord>,
        finish: (PixelRect) -> Void
    ) {
        // The destination memory outlives the call and tiles write disjoint parts of it.
        let row = UncheckedSendable(destination)
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
    static func materialize(_ plan: RenderPlan, rect: PixelRect) -> FloatImage {
        let image = FloatImage(rect: rect)
        let shared = UncheckedSendable(image.pixels)
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

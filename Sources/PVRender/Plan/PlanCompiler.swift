// Turns an image recipe into a render plan for one output rectangle. Each node is given the
// region its parent will read (its region of interest), which sizes the filters that must be
// materialised (Gaussian blur, Lanczos); everything else is evaluated tile by tile, fused.
import Foundation
import PVImaging
import Synchronization

/// Compiles recipes into plans; one compiler per plan (it caches materialised nodes by recipe).
final class PlanCompiler {
    private var slotCount = 0
    private var rotates = false
    private let highQualityDownsample: Bool
    private var cache: [ObjectIdentifier: (roi: PixelRect, node: RenderNode)] = [:]

    init(highQualityDownsample: Bool = false) {
        self.highQualityDownsample = highQualityDownsample
    }

    /// A plan that renders `rect` of `image`.
    static func plan(_ image: ImageRecipe, rect: PixelRect, highQualityDownsample: Bool = false) -> RenderPlan {
        let compiler = PlanCompiler(highQualityDownsample: highQualityDownsample)
        let root = compiler.compile(image, rect)
        return RenderPlan(root: root, slots: compiler.slotCount, squareTiles: compiler.rotates)
    }

    private func slot() -> Int {
        slotCount += 1
        return slotCount - 1
    }

    func compile(_ image: ImageRecipe, _ roi: PixelRect) -> RenderNode {
        let bounds = PixelRect(covering: image.extent)
        let need = roi.intersection(bounds)
        if need.isEmpty { return EmptyNode() }
        switch image.node {
        case .empty:
            return EmptyNode()
        case .color(let c):
            return c == .zero ? EmptyNode() : ConstantNode(color: c)
        case .source(let source):
            var pixels = source.pixels
            if pixels.format.isYUV420 {
                guard let rgba = try? pixels.converted(to: .rgba32) else { return EmptyNode() }
                pixels = rgba
            }
            return SourceNode(pixels: pixels, premultiply: !source.premultiplied && !pixels.format.isOneComponent)
        case .crop(let child, _):
            return CropNode(child: compile(child, need), bounds: bounds)
        case .clamp(let child):
            let area = PixelRect(covering: child.extent)
            if area.isEmpty { return EmptyNode() }
            return ClampNode(child: compile(child, ClampNode.source(of: need, in: area)), area: area, slot: slot())
        case .transform(let child, let t, _) where child.isNearestSampled && !t.isWholePixelTranslation:
            guard t.determinant != 0, t.determinant.isFinite else { return EmptyNode() }
            if t.b != 0 || t.c != 0 { rotates = true }
            let probe = NearestTransformNode(child: EmptyNode(), inverse: t.inverted(), bounds: bounds, slot: 0)
            return NearestTransformNode(
                child: compile(child, probe.sourceRect(need)), inverse: t.inverted(), bounds: bounds, slot: slot())
        case .transform(let child, let t, let hq):
            return compileTransform(child, t, highQuality: hq || highQualityDownsample, need: need, bounds: bounds)
        case .nearest(let child):
            return compile(child, need)
        case .composite(let foreground, let background):
            return CompositeNode(
                foreground: compile(foreground, need), background: compile(background, need), bounds: bounds, slot: slot())
        case .blend(let foreground, let background, let mask, let channel):
            return BlendNode(
                foreground: compile(foreground, need), background: compile(background, need), mask: compile(mask, need),
                channel: channel, bounds: bounds, slots: (slot(), slot()))
        case .point(let child, let operation):
            return PointNode(child: compile(child, need), operation: operation, bounds: bounds)
        case .gaussianBlur(let child, let sigma):
            return cached(image, need) {
                let radius = gaussianRadius(sigma: sigma)
                let childBounds = PixelRect(covering: child.extent)
                let input = need.insetBy(-radius).intersection(childBounds)
                if input.isEmpty { return EmptyNode() }
                if RenderShortcuts.decimatesWideBlurs.load(ordering: .relaxed), let factor = blurDecimation(sigma: sigma) {
                    return decimatedBlur(child, sigma: sigma, factor: factor, childBounds: childBounds, need: need, bounds: bounds)
                }
                let pixels = materialize(child, input)
                let xs = FilterTaps.gaussian(
                    outputs: need.x..<need.maxX, sigma: sigma, radius: radius, bounds: input.x..<input.maxX)
                let ys = FilterTaps.gaussian(
                    outputs: need.y..<need.maxY, sigma: sigma, radius: radius, bounds: input.y..<input.maxY)
                return MaterializedNode(image: separableFilter(pixels, x: xs, y: ys), bounds: bounds)
            }
        case .lanczos(let child):
            return cached(image, need) {
                let input = PixelRect(covering: child.extent)
                if input.isEmpty { return EmptyNode() }
                let mx = Double(input.w) / Double(bounds.w), my = Double(input.h) / Double(bounds.h)
                let xs = FilterTaps.lanczos(
                    outputs: need.x..<need.maxX, m: mx, c: Double(input.x) - Double(bounds.x) * mx,
                    bounds: input.x..<input.maxX, clampEdges: true)
                let ys = FilterTaps.lanczos(
                    outputs: need.y..<need.maxY, m: my, c: Double(input.y) - Double(bounds.y) * my,
                    bounds: input.y..<input.maxY, clampEdges: true)
                return resample(child, xs, ys, bounds: bounds)
            }
        }
    }

    /// A wide Gaussian blur on a grid `factor` times coarser: the child's `factor × factor` blocks are averaged
    /// (rendered a band of tiles at a time, never whole at full size), the block image is blurred with σ/`factor` less
    /// the variance the averaging and the bilinear upsampling add (¼ block²), and the result is upsampled bilinearly as
    /// it is read (an axis transform of the grid image). The blocks lie on a grid anchored at multiples of `factor`, so
    /// any region of the output gives the same pixels. O(pixels + pixels·σ/factor²) instead of O(pixels·σ), and the
    /// memory of the blocks instead of three full-size float images.
    private func decimatedBlur(
        _ child: ImageRecipe, sigma: Float, factor f: Int, childBounds: PixelRect, need: PixelRect, bounds: PixelRect
    ) -> RenderNode {
        func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
        // Output pixel x reads block coordinates u = (x + ½)/f − ½ and the block after it.
        let needBlocks = PixelRect(
            x0: floorDiv(2 * need.x + 1 - f, 2 * f), y0: floorDiv(2 * need.y + 1 - f, 2 * f),
            x1: floorDiv(2 * need.maxX - 1 - f, 2 * f) + 2, y1: floorDiv(2 * need.maxY - 1 - f, 2 * f) + 2)
        let s = sigma / Float(f)
        let blockSigma = (max(s * s - 0.25, 0.25)).squareRoot()
        let radius = gaussianRadius(sigma: blockSigma)
        // Every block those taps reach that the child can cover, so any region of the output sums the same blocks.
        let childBlocks = PixelRect(
            x0: floorDiv(childBounds.x, f), y0: floorDiv(childBounds.y, f), x1: floorDiv(childBounds.maxX + f - 1, f),
            y1: floorDiv(childBounds.maxY + f - 1, f))
        let blocks = needBlocks.insetBy(-radius).intersection(childBlocks)
        if blocks.isEmpty { return EmptyNode() }
        let full = PixelRect(x0: blocks.x * f, y0: blocks.y * f, x1: blocks.maxX * f, y1: blocks.maxY * f)
        let plan = PlanCompiler.plan(child, rect: full, highQualityDownsample: highQualityDownsample)
        let means = FloatImage(rect: blocks)
        let shared = UncheckedSendable(means)
        // Tiles of whole blocks: `f` rows by a multiple of `f` columns, each writing its own block row segment.
        let width = max(f, BandRenderer.tileWidth / f * f)
        let scale = 1 / Float(f * f)
        BandRenderer.forEachTile(full, slots: plan.slots, width: width, height: f) { tile, context in
            let buffer = context.pixels(plan.slots, tile.area)
            plan.root.render(tile, buffer, tile.w, context)
            let out = shared.value.row(floorDiv(tile.y, f)) + (floorDiv(tile.x, f) - blocks.x)
            for b in 0..<(tile.w / f) {
                var sum = FloatPixel.zero
                for j in 0..<f {
                    let row = buffer + j * tile.w + b * f
                    for i in 0..<f { sum += row[i] }
                }
                out[b] = sum * scale
            }
        }
        let xs = FilterTaps.gaussian(
            outputs: needBlocks.x..<needBlocks.maxX, sigma: blockSigma, radius: radius, bounds: blocks.x..<blocks.maxX)
        let ys = FilterTaps.gaussian(
            outputs: needBlocks.y..<needBlocks.maxY, sigma: blockSigma, radius: radius, bounds: blocks.y..<blocks.maxY)
        // Read back through the bilinear axis transform: output x reads grid coordinate (x + ½)/f − ½.
        let blurred = separableFilter(means, x: xs, y: ys)
        let toGrid = AffineMap.scale(1 / Double(f), 1 / Double(f))
        return AxisTransformNode(
            child: MaterializedNode(image: blurred, bounds: blurred.rect), inverse: toGrid,
            bounds: bounds, slots: (slot(), slot(), slot()))
    }

    /// Materialises `image` over `rect` with a plan of its own.
    private func materialize(_ image: ImageRecipe, _ rect: PixelRect) -> FloatImage {
        BandRenderer.materialize(
            PlanCompiler.plan(image, rect: rect, highQualityDownsample: highQualityDownsample), rect: rect)
    }

    private func resample(_ child: ImageRecipe, _ xs: FilterTaps, _ ys: FilterTaps, bounds: PixelRect) -> RenderNode {
        let columns = xs.inputRange, rows = ys.inputRange
        let input = PixelRect(x0: columns.lowerBound, y0: rows.lowerBound, x1: columns.upperBound, y1: rows.upperBound)
        if input.isEmpty { return EmptyNode() }
        return MaterializedNode(image: separableFilter(materialize(child, input), x: xs, y: ys), bounds: bounds)
    }

    private func cached(_ image: ImageRecipe, _ need: PixelRect, _ make: () -> RenderNode) -> RenderNode {
        let key = ObjectIdentifier(image)
        if let hit = cache[key], hit.roi.contains(need) { return hit.node }
        let node = make()
        cache[key] = (need, node)
        return node
    }

    private func compileTransform(
        _ child: ImageRecipe, _ t: AffineMap, highQuality: Bool, need: PixelRect, bounds: PixelRect
    ) -> RenderNode {
        let determinant = t.a * t.d - t.b * t.c
        guard determinant != 0, determinant.isFinite else { return EmptyNode() }
        let inverse = t.inverted()
        if t.b == 0, t.c == 0 {
            if t.a == 1, t.d == 1, t.tx == t.tx.rounded(), t.ty == t.ty.rounded(), abs(t.tx) < 1e9, abs(t.ty) < 1e9 {
                let dx = Int(t.tx), dy = Int(t.ty)
                return TranslateNode(child: compile(child, need.offsetBy(-dx, -dy)), dx: dx, dy: dy, bounds: bounds)
            }
            if highQuality, t.a > 0, t.d > 0, t.a < 1 || t.d < 1 {
                // Lanczos, clear beyond the child's edges like the bilinear path.
                let childBounds = PixelRect(covering: child.extent)
                let xs = FilterTaps.lanczos(
                    outputs: need.x..<need.maxX, m: Double(inverse.a), c: Double(inverse.tx),
                    bounds: childBounds.x..<childBounds.maxX, clampEdges: false)
                let ys = FilterTaps.lanczos(
                    outputs: need.y..<need.maxY, m: Double(inverse.d), c: Double(inverse.ty),
                    bounds: childBounds.y..<childBounds.maxY, clampEdges: false)
                return resample(child, xs, ys, bounds: bounds)
            }
            let node = AxisTransformNode(
                child: EmptyNode(), inverse: inverse, bounds: bounds, slots: (0, 0, 0))
            let source = node.sourceRect(need)
            return AxisTransformNode(
                child: compile(child, source), inverse: inverse, bounds: bounds, slots: (slot(), slot(), slot()))
        }
        rotates = true
        let probe = AffineTransformNode(child: EmptyNode(), inverse: inverse, bounds: bounds, slot: 0)
        return AffineTransformNode(
            child: compile(child, probe.sourceRect(need)), inverse: inverse, bounds: bounds, slot: slot())
    }
}

// Affine transforms of images marked `samplingNearest()`: each output pixel copies the source pixel its centre maps
// into, with no interpolation.
import Foundation

final class NearestTransformNode: UnaryNode, @unchecked Sendable {
    let inverse: AffineMap
    let slot: Int

    init(child: RenderNode, inverse: AffineMap, bounds: PixelRect, slot: Int) {
        self.inverse = inverse
        self.slot = slot
        super.init(child: child, bounds: bounds)
    }

    /// The source pixels the centres of `r` map into.
    func sourceRect(_ r: PixelRect) -> PixelRect {
        let box = inverse.boundingBox(of: CGRect(x: r.x, y: r.y, width: r.w, height: r.h))
        return PixelRect(
            x0: floorInt(Double(box.minX)), y0: floorInt(Double(box.minY)), x1: floorInt(Double(box.maxX)) + 1,
            y1: floorInt(Double(box.maxY)) + 1)
    }

    override func renderInside(_ r: PixelRect, _ out: UnsafeMutablePointer<FloatPixel>, _ stride: Int, _ ctx: RenderScratch) {
        let s = sourceRect(r)
        let buffer = ctx.pixels(slot, s.area)
        child.render(s, buffer, s.w, ctx)
        let m = inverse
        for j in 0..<r.h {
            let Y = Double(r.y + j) + 0.5
            let o = out + j * stride
            for k in 0..<r.w {
                let X = Double(r.x + k) + 0.5
                let u = floorInt(m.a * X + m.c * Y + m.tx) - s.x, v = floorInt(m.b * X + m.d * Y + m.ty) - s.y
                o[k] = u >= 0 && u < s.w && v >= 0 && v < s.h ? buffer[v &* s.w &+ u] : .zero
            }
        }
    }
}

extension ImageRecipe {
    /// Whether transforms of this recipe sample by nearest neighbour.
    var isNearestSampled: Bool {
        if case .nearest = node { return true }
        return false
    }
}

extension AffineMap {
    /// A translation by whole pixels (which every sampling mode copies exactly).
    var isWholePixelTranslation: Bool {
        a == 1 && b == 0 && c == 0 && d == 1 && tx == tx.rounded() && ty == ty.rounded()
    }
}

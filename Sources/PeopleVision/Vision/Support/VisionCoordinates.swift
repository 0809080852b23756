import Foundation
import PVImaging
import PVPerception

/// The one place where the pipelines' coordinates (pixels, top-left origin) become Vision's
/// (normalized to the image, lower-left origin) and back.
enum VisionCoordinates {
    /// A pixel position in an image of `width × height` as a normalized lower-left point.
    static func point(_ p: SIMD2<Double>, width: Int, height: Int) -> (x: Double, y: Double) {
        (p.x / Double(width), 1 - p.y / Double(height))
    }

    /// A pixel box as a normalized lower-left rect.
    static func rect(_ b: BoundingBox, width: Int, height: Int) -> CGRect {
        let W = Double(width), H = Double(height)
        return CGRect(x: b.xMin / W, y: 1 - b.yMax / H, width: b.width / W, height: b.height / H)
    }

    /// A normalized lower-left rect as a pixel box.
    static func pixelBox(_ r: CGRect, width: Int, height: Int) -> BoundingBox {
        let W = Double(width), H = Double(height)
        return BoundingBox(
            xMin: Double(r.minX) * W, yMin: (1 - Double(r.maxY)) * H, xMax: Double(r.maxX) * W, yMax: (1 - Double(r.minY)) * H)
    }
}

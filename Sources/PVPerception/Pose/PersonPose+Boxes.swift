import PVImaging
extension PersonPose {
    /// The estimated top of the head in pixels: the landmarks stop at the eyes and ears, so the point 1.6 eye–mouth
    /// distances beyond the eyes' midpoint, along the mouth → eyes direction (which follows a tilted head).
    public var headTop: SIMD2<Double> {
        let eyes = (landmarks[2].position + landmarks[5].position) / 2
        let mouth = (landmarks[9].position + landmarks[10].position) / 2
        return eyes + (eyes - mouth) * 1.6
    }

    /// The full-body box in pixels: the axis-aligned box of all 33 landmarks plus ``headTop``, grown by a tenth of its
    /// width on each side and a twentieth of its height at the top and bottom (landmarks are joint centres; the body
    /// reaches past them), clipped to the image. The model places the landmarks of a person cut off by the frame
    /// outside it, so a person running off the bottom of the picture gets a box down to the bottom edge. `nil` when
    /// nothing is left inside the image.
    public func fullBodyBox(imageWidth: Int, imageHeight: Int) -> BoundingBox? {
        guard let b = BoundingBox(enclosing: landmarks.map(\.position) + [headTop]) else { return nil }
        let dx = 0.1 * b.width, dy = 0.05 * b.height
        return BoundingBox(xMin: b.xMin - dx, yMin: b.yMin - dy, xMax: b.xMax + dx, yMax: b.yMax + dy)
            .clipped(width: imageWidth, height: imageHeight)
    }

    /// The upper-body box in pixels: from ``headTop`` down to the lower shoulder, across the face landmarks (0–10),
    /// the shoulders and the head top, clipped to the image. `nil` when it is empty.
    public func upperBodyBox(imageWidth: Int, imageHeight: Int) -> BoundingBox? {
        let points = (0...12).map { landmarks[$0].position } + [headTop]
        return BoundingBox(enclosing: points)?.clipped(width: imageWidth, height: imageHeight)
    }
}

extension BoundingBox {
    /// The box clipped to `0…width × 0…height`; `nil` when nothing is left.
    func clipped(width: Int, height: Int) -> BoundingBox? {
        let b = BoundingBox(
            xMin: max(0, xMin), yMin: max(0, yMin), xMax: min(Double(width), xMax), yMax: min(Double(height), yMax))
        return b.width > 0 && b.height > 0 ? b : nil
    }
}

extension PersonPose {
    /// The person in the pixels of a part of the image whose top-left corner is at `(x, y)`: every position and box
    /// moved by `(−x, −y)` (world landmarks, in metres about the hips, do not move).
    public func translated(byX x: Double, y: Double) -> PersonPose {
        func move(_ l: Landmark) -> Landmark {
            var l = l
            l.x -= x
            l.y -= y
            return l
        }
        var p = self
        p.landmarks = landmarks.map(move)
        p.auxiliaryLandmarks = auxiliaryLandmarks.map(move)
        p.roi.centerX -= x
        p.roi.centerY -= y
        // The mask keeps its own frame (the image it was made on); a moved person has no mask.
        p.segmentation = nil
        return p
    }
}

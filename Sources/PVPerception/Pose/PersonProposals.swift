import PVImaging
import PVInference

/// Where people may stand whom the pose detector does not see: connected regions of the landscape selfie
/// model's mask, run on image tiles.
///
/// The pose detector keys on the face, so people seen from behind or from above (a dancer walking away,
/// wheelchair users filmed from a balcony) score too low even on tiles. The selfie model segments such people
/// well once a tile makes them large, and costs about a millisecond per tile. Each region becomes a square,
/// upright landmark ROI around it; the landmark model's presence test then decides.
struct PersonProposals {
    /// A region of the mask, in image pixels, with its summed probability (its weight).
    struct Region {
        var box: BoundingBox
        var weight: Double
        /// The size of one mask pixel in image pixels (the larger side): how far apart things the mask cannot
        /// part may be.
        var cell: Double = 0
    }

    static let maskWidth = 256
    static let maskHeight = 144
    /// Mask probability that counts as person.
    static let threshold: Float = 0.5
    /// Smallest region, as a fraction of the tile's mask (smaller blobs are hands, bags, heads in a crowd).
    static let minimumArea = 0.01

    /// Landmark presence a proposal's person needs (a detection's needs only the landmarker's 0.5): without a
    /// detector's evidence, doubtful results were mostly machine parts and logos.
    static let minimumPresence = 0.9
    /// The person's landmark box must reach this fraction of its region's longer side.
    static let minimumExtent = 0.5

    let pool: InterpreterPool

    init(threads: Int?) throws {
        pool = try InterpreterPool(modelNamed: "selfie_segmentation_landscape.tflite", threads: threads)
    }

    /// The selfie mask of one tile (stretched to the model's 256×144 input), row-major.
    func mask(of image: PixelBuffer, tile: RotatedRect) throws -> [Float] {
        let w = Self.maskWidth, h = Self.maskHeight
        let sampler = TensorSampler(width: w, height: h, range: 0...1, fit: .stretch, border: .zero)
        return try pool.withInterpreter { interpreter in
            _ = try interpreter.withInput(0) { try sampler.sample(image, rect: tile, into: $0) }
            try interpreter.invoke()
            return interpreter.withOutput(0) { Array($0.prefix(w * h)) }
        }
    }

    /// The 8-connected regions of `mask` above ``threshold`` covering at least ``minimumArea`` of it and not
    /// spanning its width, as boxes in the pixels of the (axis-aligned) tile it was computed on. The mask is first
    /// cleared inside the `known` boxes (image pixels).
    static func regions(of mask: [Float], tile: RotatedRect, excluding known: [BoundingBox] = []) -> [Region] {
        let w = maskWidth, h = maskHeight
        var mask = mask
        var label = [Int32](repeating: 0, count: w * h)
        var stack: [Int] = []
        var found: [Region] = []
        let sx = tile.width / Double(w), sy = tile.height / Double(h)
        let x0 = tile.centerX - tile.width / 2, y0 = tile.centerY - tile.height / 2
        // The people found are not proposed again; blanking their boxes also parts a person from someone
        // found whose blob touches theirs (an arm reaching across).
        for b in known {
            let cx0 = max(0, Int(((b.xMin - x0) / sx).rounded(.down))), cx1 = min(w, Int(((b.xMax - x0) / sx).rounded(.up)))
            let cy0 = max(0, Int(((b.yMin - y0) / sy).rounded(.down))), cy1 = min(h, Int(((b.yMax - y0) / sy).rounded(.up)))
            guard cx0 < cx1, cy0 < cy1 else { continue }
            for y in cy0..<cy1 { for x in cx0..<cx1 { mask[y * w + x] = 0 } }
        }
        var next: Int32 = 0
        for start in 0..<(w * h) where mask[start] > threshold && label[start] == 0 {
            next += 1
            label[start] = next
            stack.append(start)
            var count = 0, weight = 0.0
            var minX = w, maxX = -1, minY = h, maxY = -1
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                count += 1
                weight += Double(mask[i])
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                for dy in -1...1 {
                    let ny = y + dy
                    guard ny >= 0, ny < h else { continue }
                    for dx in -1...1 {
                        let nx = x + dx
                        guard nx >= 0, nx < w else { continue }
                        let j = ny * w + nx
                        if label[j] == 0 && mask[j] > threshold {
                            label[j] = next
                            stack.append(j)
                        }
                    }
                }
            }
            // Too small; or spanning the tile's width: part of something wider than the tile (a crowd, a person
            // close enough for the whole-image pass), not a small person. (A region may span the tile's height:
            // a standing person's blob often joins the shadow or legs of someone behind them.)
            guard Double(count) >= minimumArea * Double(w * h), minX > 0 || maxX < w - 1 else { continue }
            let box = BoundingBox(
                xMin: x0 + Double(minX) * sx, yMin: y0 + Double(minY) * sy,
                xMax: x0 + Double(maxX + 1) * sx, yMax: y0 + Double(maxY + 1) * sy)
            found.append(Region(box: box, weight: weight * sx * sy, cell: max(sx, sy)))
        }
        return found
    }

    /// The landmark ROI for a region: upright, square, centred on it, a quarter larger than its longer side (the
    /// pose detector's ROI for a standing person is about that).
    static func roi(for region: Region) -> RotatedRect {
        let b = region.box
        let side = 1.25 * max(b.width, b.height)
        return RotatedRect(centerX: (b.xMin + b.xMax) / 2, centerY: (b.yMin + b.yMax) / 2, width: side, height: side)
    }
}

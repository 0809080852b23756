import PVImaging

/// The parts of one face the mattes are built from, as polygons in image pixels (top-left origin), taken from the
/// 468/478-point face mesh (MODELS.md §12.2: MediaPipe's canonical mesh indices).
package struct FaceRegions: Sendable {
    /// The face oval: forehead (10), the cheeks and jaw to the chin (152), clockwise as shown.
    package var oval: [SIMD2<Double>]
    /// The eyes (lid margins) grown by a fifth about their centres, so lashes fall inside.
    package var eyes: [[SIMD2<Double>]]
    /// The eyebrows, grown by a tenth.
    package var brows: [[SIMD2<Double>]]
    /// The outer lip contour.
    package var outerLips: [SIMD2<Double>]
    /// The inner lip contour (the mouth opening).
    package var innerLips: [SIMD2<Double>]
    /// The eyes' centres (the mean of each lid margin), subject's right and left.
    package var eyeCentres: (right: SIMD2<Double>, left: SIMD2<Double>)
    /// Forehead (10) and chin (152).
    package var forehead: SIMD2<Double>
    package var chin: SIMD2<Double>
    /// The face's width between the cheek points at ear level (234, 454).
    package var width: Double
    /// Whether the mouth is open: the inner lips (13, 14) apart by more than 8 % of the mouth's width (61, 291).
    package var mouthOpen: Bool

    static let ovalIndices = [
        10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149, 150,
        136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
    ]
    static let rightEyeIndices = [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246]
    static let leftEyeIndices = [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466]
    static let rightBrowIndices = [46, 53, 52, 65, 55, 107, 66, 105, 63, 70]
    static let leftBrowIndices = [276, 283, 282, 295, 285, 336, 296, 334, 293, 300]

    /// The regions of a mesh, or nil when it has fewer than the mesh's 468 points.
    package init?(mesh: FaceMesh) {
        let p = mesh.landmarks.map(\.position)
        guard p.count >= FaceMeshTopology.meshCount, p.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        func ring(_ indices: [Int]) -> [SIMD2<Double>] { indices.map { p[$0] } }
        // The lips as FaceMeshTopology.lipsRegion lists them: per ring, the lower edge corner to corner, then the
        // upper edge without the corners in the same direction, so a closed contour takes the upper edge reversed.
        let lips = FaceMeshTopology.lipsRegion
        func lipRing(_ start: Int) -> [SIMD2<Double>] {
            ring(Array(lips[start..<start + 11])) + ring(Array(lips[start + 11..<start + 20]).reversed())
        }
        oval = ring(Self.ovalIndices)
        eyes = [Self.grown(ring(Self.rightEyeIndices), 1.2), Self.grown(ring(Self.leftEyeIndices), 1.2)]
        func mean(_ points: [SIMD2<Double>]) -> SIMD2<Double> { points.reduce(.zero, +) / Double(points.count) }
        eyeCentres = (mean(ring(Self.rightEyeIndices)), mean(ring(Self.leftEyeIndices)))
        brows = [Self.grown(ring(Self.rightBrowIndices), 1.1), Self.grown(ring(Self.leftBrowIndices), 1.1)]
        outerLips = lipRing(0)
        innerLips = lipRing(20)
        forehead = p[10]
        chin = p[152]
        width = Self.length(p[454] - p[234])
        mouthOpen = Self.length(p[14] - p[13]) > 0.08 * Self.length(p[291] - p[61])
    }

    /// These regions in an image scaled by `x` across and `y` down (the face's width by their mean).
    package func scaled(x: Double, y: Double) -> FaceRegions {
        let f = SIMD2(x, y)
        var out = self
        out.oval = oval.map { $0 * f }
        out.eyes = eyes.map { $0.map { $0 * f } }
        out.brows = brows.map { $0.map { $0 * f } }
        out.outerLips = outerLips.map { $0 * f }
        out.innerLips = innerLips.map { $0 * f }
        out.eyeCentres = (eyeCentres.right * f, eyeCentres.left * f)
        out.forehead = forehead * f
        out.chin = chin * f
        out.width = width * (x + y) / 2
        return out
    }

    /// The pixel box (`x0..<x1`, `y0..<y1`) of the head ellipse in a `width × height` image, nil when it lies outside.
    package func headBox(width W: Int, height H: Int) -> (x0: Int, x1: Int, y0: Int, y1: Int)? {
        let (centre, _, _, across, along) = headEllipse
        let reach = max(across, along) + 1
        // Clamped as doubles first: a wild mesh must not overflow the conversion.
        func clamp(_ v: Double, _ limit: Int) -> Int { Int(min(max(v, 0), Double(limit))) }
        let x0 = clamp(centre.x - reach, W), x1 = clamp(centre.x + reach + 1, W)
        let y0 = clamp(centre.y - reach, H), y1 = clamp(centre.y + reach + 1, H)
        return x0 < x1 && y0 < y1 ? (x0, x1, y0, y1) : nil
    }

    /// Calls `body(y, x0, x1)` for every row of a `width × height` image with pixels whose centres lie in the head
    /// area (``inHeadArea(_:)``): those of `x0..<x1` (the area is convex, so one run per row). Solved per row, not
    /// tested per pixel.
    package func forEachHeadSpan(width W: Int, height H: Int, _ body: (Int, Int, Int) -> Void) {
        guard let box = headBox(width: W, height: H) else { return }
        let e = headEllipse, r = e.right, u = e.up
        let iA2 = 1 / (e.across * e.across), iB2 = 1 / (e.along * e.along)
        // Along a row, with t the pixel centre's x: a·A = r.x·t + ka and b·B = u.x·t + kb; a² + b² ≤ 1 is a quadratic.
        let alpha = r.x * r.x * iA2 + u.x * u.x * iB2
        guard alpha > 0 else { return }
        for y in box.y0..<box.y1 {
            let cy = Double(y) + 0.5
            let ka = -e.centre.x * r.x + (cy - e.centre.y) * r.y, kb = -e.centre.x * u.x + (cy - e.centre.y) * u.y
            let beta = 2 * (r.x * ka * iA2 + u.x * kb * iB2), gamma = ka * ka * iA2 + kb * kb * iB2 - 1
            let disc = beta * beta - 4 * alpha * gamma
            guard disc >= 0 else { continue }
            var lo = (-beta - disc.squareRoot()) / (2 * alpha), hi = (-beta + disc.squareRoot()) / (2 * alpha)
            // Above the chin line: u.x·t + (cy − chin.y)·u.y − chin.x·u.x > 0.
            let above = (cy - chin.y) * u.y - chin.x * u.x
            var strictlyAbove = -Double.infinity
            if u.x > 0 {
                strictlyAbove = -above / u.x
            } else if u.x < 0 {
                hi = min(hi, -above / u.x).nextDown
            } else if above <= 0 {
                continue
            }
            lo = max(lo, strictlyAbove.nextUp)
            // Centres x + 0.5 in [lo, hi].
            let x0 = max(box.x0, Int(max(-1, min(Double(W), (lo - 0.5).rounded(.up)))))
            let x1 = min(box.x1, Int(max(-1, min(Double(W), (hi - 0.5).rounded(.down)))) + 1)
            if x0 < x1 { body(y, x0, x1) }
        }
    }

    /// Unit vector from the chin to the forehead (the face's up, in image pixels).
    package var up: SIMD2<Double> {
        let d = forehead - chin, n = Self.length(d)
        return n > 0 ? d / n : SIMD2(0, -1)
    }

    /// Chin-to-forehead length.
    package var height: Double { Self.length(forehead - chin) }

    /// The head ellipse: centre, the face's right and up (unit vectors), semi-axes across and along. 2.2 face widths
    /// (at least 1.3 face heights) across, centred 0.25 face heights above the face's middle, reaching 0.7 face
    /// heights above the forehead: room for full hair, which the colour model and connectivity then trim.
    package var headEllipse: (centre: SIMD2<Double>, right: SIMD2<Double>, up: SIMD2<Double>, across: Double, along: Double) {
        let up = self.up, h = height
        return ((forehead + chin) / 2 + up * (0.25 * h), SIMD2(-up.y, up.x), up, 1.1 * max(width, 0.6 * h), 0.95 * h)
    }

    /// Whether `p` lies where the hair matte may be: inside ``headEllipse`` and above the chin line (the line through
    /// the chin across the face).
    package func inHeadArea(_ p: SIMD2<Double>) -> Bool {
        let e = headEllipse
        guard ((p - chin) * e.up).sum() > 0 else { return false }
        let d = p - e.centre
        let a = (d * e.right).sum() / e.across, b = (d * e.up).sum() / e.along
        return a * a + b * b <= 1
    }

    static func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }

    /// `polygon` scaled by `factor` about its vertices' mean.
    static func grown(_ polygon: [SIMD2<Double>], _ factor: Double) -> [SIMD2<Double>] {
        guard !polygon.isEmpty else { return polygon }
        let centre = polygon.reduce(SIMD2<Double>.zero, +) / Double(polygon.count)
        return polygon.map { centre + ($0 - centre) * factor }
    }
}

/// Scan conversion of polygons onto the pixel grid.
package enum PolygonFill {
    /// Calls `span(y, x0, x1)` for every run `x0..<x1` of pixels in row `y` whose centres lie inside `polygon`
    /// (even-odd rule), clipped to `width × height`.
    package static func spans(
        _ polygon: [SIMD2<Double>], width: Int, height: Int, _ span: (_ y: Int, _ x0: Int, _ x1: Int) -> Void
    ) {
        // Non-finite points have no place on the grid; coordinates are clamped before they become integers.
        guard polygon.count >= 3, width > 0, height > 0, polygon.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return }
        let ys = polygon.map(\.y)
        guard let low = ys.min(), let high = ys.max() else { return }
        func row(_ v: Double) -> Int { Int(min(max(v, -1), Double(height))) }
        let first = max(0, row((low - 0.5).rounded(.up))), last = min(height - 1, row((high - 0.5).rounded(.down)))
        guard first <= last else { return }
        var crossings: [Double] = []
        for y in first...last {
            let yc = Double(y) + 0.5
            crossings.removeAll(keepingCapacity: true)
            var a = polygon[polygon.count - 1]
            for b in polygon {
                if (a.y <= yc) != (b.y <= yc) { crossings.append(a.x + (yc - a.y) * (b.x - a.x) / (b.y - a.y)) }
                a = b
            }
            crossings.sort()
            var i = 0
            while i + 1 < crossings.count {
                func column(_ v: Double) -> Int { v.isNaN ? 0 : Int(min(max((v - 0.5).rounded(.up), 0), Double(width))) }
                let x0 = column(crossings[i]), x1 = column(crossings[i + 1])
                if x0 < x1 { span(y, x0, x1) }
                i += 2
            }
        }
    }

    /// Sets `bit` in `labels` (row-major, `width` per row) for every pixel inside `polygon`.
    package static func mark(_ polygon: [SIMD2<Double>], bit: UInt8, in labels: inout [UInt8], width: Int, height: Int) {
        spans(polygon, width: width, height: height) { y, x0, x1 in
            for x in x0..<x1 { labels[y * width + x] |= bit }
        }
    }
}

/// A colour class as robust statistics of its pixels in Y′CbCr (BT.601, full range): medians and spreads
/// (1.4826 × the median absolute deviation, with floors so that a flat sample does not make a needle-thin class).
package struct ColourModel: Sendable {
    package var median: SIMD3<Double>
    package var spread: SIMD3<Double>

    /// The model of `samples` (Y′, Cb, Cr), or nil for fewer than `minimum` samples.
    package init?(samples: [SIMD3<Double>], minimum: Int = 40, floors: SIMD3<Double>) {
        guard samples.count >= minimum else { return nil }
        // Every k-th sample: medians of a few thousand are as good and cost little.
        let step = max(1, samples.count / 4000)
        let used = stride(from: 0, to: samples.count, by: step).map { samples[$0] }
        var median = SIMD3<Double>.zero, spread = SIMD3<Double>.zero
        for c in 0..<3 {
            let values = used.map { $0[c] }.sorted()
            let m = values[values.count / 2]
            let deviations = values.map { abs($0 - m) }.sorted()
            median[c] = m
            spread[c] = max(1.4826 * deviations[deviations.count / 2], floors[c])
        }
        self.median = median
        self.spread = spread
    }

    /// Distance in spreads over the two chroma channels (lighting changes luma far more than chroma).
    package func chromaDistance(_ c: SIMD3<Double>) -> Double {
        let d = (SIMD2(c.y, c.z) - SIMD2(median.y, median.z)) / SIMD2(spread.y, spread.z)
        return (d * d).sum().squareRoot()
    }

    /// Distance in spreads over all three channels.
    package func distance(_ c: SIMD3<Double>) -> Double {
        let d = (c - median) / spread
        return (d * d).sum().squareRoot()
    }

    /// Y′CbCr of an 8-bit RGB pixel.
    @inline(__always)
    package static func ycbcr(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> SIMD3<Double> {
        let R = Double(r), G = Double(g), B = Double(b)
        return SIMD3(
            0.299 * R + 0.587 * G + 0.114 * B, 128 - 0.168736 * R - 0.331264 * G + 0.5 * B,
            128 + 0.5 * R - 0.418688 * G - 0.081312 * B)
    }
}

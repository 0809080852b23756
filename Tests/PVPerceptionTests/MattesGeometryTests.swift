import Foundation
import PVImaging
import PVTestSupport
import Testing

@testable import PVPerception

/// The building blocks of the generated mattes: polygon scan conversion and the robust colour model.
@Suite struct MattesGeometryTests {
    @Test("a polygon covers exactly the pixels whose centres lie inside it, clipped to the image")
    func polygonFill() {
        // A 4 × 3 axis-aligned rectangle from (2, 1) to (6, 4): pixel centres x + 0.5 in 2…6, y + 0.5 in 1…4.
        var labels = [UInt8](repeating: 0, count: 10 * 8)
        PolygonFill.mark([SIMD2(2, 1), SIMD2(6, 1), SIMD2(6, 4), SIMD2(2, 4)], bit: 1, in: &labels, width: 10, height: 8)
        let inside = labels.indices.filter { labels[$0] == 1 }.map { ($0 % 10, $0 / 10) }
        #expect(inside.count == 12)
        #expect(inside.allSatisfy { (2..<6).contains($0.0) && (1..<4).contains($0.1) })
        // Triangles reaching outside the image are clipped, never written out of bounds. This one holds the points
        // with x + y < 0 only: no pixel centre of the image.
        var small = [UInt8](repeating: 0, count: 4 * 4)
        PolygonFill.mark([SIMD2(-10, -10), SIMD2(10, -10), SIMD2(-10, 10)], bit: 2, in: &small, width: 4, height: 4)
        #expect(small.allSatisfy { $0 == 0 })
        var corner = [UInt8](repeating: 0, count: 4 * 4)
        PolygonFill.mark([SIMD2(-10, -10), SIMD2(14, -10), SIMD2(-10, 14)], bit: 4, in: &corner, width: 4, height: 4)
        // Centres with (x + 0.5) + (y + 0.5) < 4: x + y ≤ 2, i.e. 6 pixels of the 4 × 4 image.
        #expect(corner.filter { $0 == 4 }.count == 6)
        // Degenerate polygons fill nothing.
        var none = [UInt8](repeating: 0, count: 16)
        PolygonFill.mark([SIMD2(1, 1), SIMD2(3, 3)], bit: 1, in: &none, width: 4, height: 4)
        PolygonFill.mark([SIMD2(1, 1), SIMD2(.nan, 3), SIMD2(3, 1)], bit: 1, in: &none, width: 4, height: 4)
        #expect(none.allSatisfy { $0 == 0 })
        // Huge coordinates are clamped to the image: this square covers all of it.
        var all = [UInt8](repeating: 0, count: 16)
        PolygonFill.mark([SIMD2(-1e300, -1e300), SIMD2(1e300, -1e300), SIMD2(1e300, 1e300), SIMD2(-1e300, 1e300)],
            bit: 1, in: &all, width: 4, height: 4)
        #expect(all.allSatisfy { $0 == 1 })
    }

    @Test("block means: each pixel the rounded mean of its block, the edge blocks as large as the image leaves them")
    func blockMeans() throws {
        var mask = try PixelBuffer(width: 13, height: 10, format: .oneComponent8)
        // Every level reached, neighbours far apart, so a block's mean is rarely a whole number.
        mask.withUnsafeMutableBytes { raw in for i in 0..<raw.count { raw[i] = UInt8(truncatingIfNeeded: i * 97 + (i / 7) * 31) } }
        let small = try SemanticMattes.blockMeans(of: mask, factor: 4)
        #expect(small.width == 4 && small.height == 3)
        let row = mask.bytesPerRow()
        try mask.withUnsafeBytes { m in
            try small.withUnsafeBytes { s in
                for y in 0..<3 {
                    for x in 0..<4 {
                        var total = 0, count = 0
                        for yy in (4 * y)..<min(10, 4 * y + 4) {
                            for xx in (4 * x)..<min(13, 4 * x + 4) {
                                total += Int(m[yy * row + xx])
                                count += 1
                            }
                        }
                        let mean = try #require(Int(exactly: (Double(total) / Double(count)).rounded(.toNearestOrAwayFromZero)))
                        #expect(Int(s[y * small.bytesPerRow() + x]) == mean, "(\(x), \(y))")
                    }
                }
            }
        }
    }

    @Test("the mattes are the same whatever the photo's 8-bit layout, read in place or converted")
    func sameMattesInEveryLayout() throws {
        // 900 px tall: the quarter-size grid, where the work reads the shrunk photo in its own layout.
        let photo = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
            .converted(to: .rgba32).resized(width: 900, height: 900)
        let faces = try ImageAnalysis(image: photo).faces.refinedMeshes().compactMap(FaceRegions.init)
        #expect(!faces.isEmpty)
        var person = try PixelBuffer(width: 900, height: 900, format: .oneComponent8)
        person.withUnsafeMutableBytes { raw in for i in 0..<raw.count { raw[i] = (i % 900) > 150 ? 255 : 0 } }
        let reference = try SemanticMattes.make(image: photo, personMask: person, faces: faces)
        for format in [PixelFormat.bgra32, .argb32, .rgb24, .oneComponent8] {
            let other = try SemanticMattes.make(image: try photo.converted(to: format), personMask: person, faces: faces)
            if format == .oneComponent8 {
                // Converted to RGBA first: grey, so only the sizes can be compared.
                #expect(other.skin.width == 900 && other.hair.height == 900)
                continue
            }
            for (a, b, name) in [(reference.skin, other.skin, "skin"), (reference.hair, other.hair, "hair"),
                                 (reference.teeth, other.teeth, "teeth"), (reference.glasses, other.glasses, "glasses")] {
                #expect(Self.largestDifference(a, b) == 0, "\(format) \(name)")
            }
        }
    }

    @Test("the head area's row runs hold exactly the pixels the point test takes, turned faces and edges too")
    func headSpans() throws {
        let mesh = FaceMesh(
            landmarks: (0..<478).map { i in Landmark(x: 50 + Double(i % 23), y: 40 + Double(i / 23)) },
            roi: RotatedRect(centerX: 60, centerY: 50, width: 40, height: 40), presence: 1, detection: nil)
        var face = try #require(FaceRegions(mesh: mesh))
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<40 {
            // Faces of every size and roll, some reaching past the image's edges.
            let centre = SIMD2(Double.random(in: -20...140, using: &rng), Double.random(in: -20...110, using: &rng))
            let angle = Double.random(in: -Double.pi...Double.pi, using: &rng), height = Double.random(in: 8...70, using: &rng)
            let up = SIMD2(sin(angle), -cos(angle))
            face.chin = centre - up * (height / 2)
            face.forehead = centre + up * (height / 2)
            face.width = height * Double.random(in: 0.5...1.2, using: &rng)
            var fromSpans = Set<Int>(), fromPoints = Set<Int>()
            face.forEachHeadSpan(width: 120, height: 90) { y, x0, x1 in for x in x0..<x1 { fromSpans.insert(y * 120 + x) } }
            for y in 0..<90 {
                for x in 0..<120 where face.inHeadArea(SIMD2(Double(x) + 0.5, Double(y) + 0.5)) { fromPoints.insert(y * 120 + x) }
            }
            #expect(fromSpans == fromPoints, "trial \(trial): \(fromSpans.symmetricDifference(fromPoints).count) pixels differ")
        }
    }

    /// The mattes are refined only inside the box their pixels reach: that gives what filtering the whole image
    /// gives (to a level of rounding), zero far from the matte, for a matte at the image's edge and for none at all.
    @Test("refining a matte inside its box equals refining the whole image")
    func refinedInsideTheBox() throws {
        let photo = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
            .converted(to: .rgba32).resized(width: 640, height: 480)
        let blank = try PixelBuffer(width: 640, height: 480, format: .oneComponent8)
        let work = Work(image: photo, mask: blank)
        for subsampling in [1, 2] {
            let filter = GuidedFilter(radius: 5, epsilon: 0.004, guide: .color, subsampling: subsampling)
            for (x0, y0, w, h) in [(200, 150, 60, 40), (0, 0, 30, 100), (600, 430, 40, 50)] {
                var values = [UInt8](repeating: 0, count: 640 * 480)
                for y in y0..<(y0 + h) { for x in x0..<(x0 + w) where (x * 7 + y * 3) % 5 != 0 { values[y * 640 + x] = 255 } }
                let boxed = try work.refined(values, by: filter, guide: photo)
                let whole = try filter.filter(try work.buffer(values), guide: photo).converted(to: .oneComponent8)
                var worst = 0, outside = 0
                boxed.withUnsafeBytes { a in
                    whole.withUnsafeBytes { b in
                        for y in 0..<480 {
                            for x in 0..<640 {
                                let u = Int(a[y * boxed.bytesPerRow() + x]), v = Int(b[y * whole.bytesPerRow() + x])
                                worst = max(worst, abs(u - v))
                                if (x < x0 - 40 || x > x0 + w + 40 || y < y0 - 40 || y > y0 + h + 40) { outside = max(outside, u) }
                            }
                        }
                    }
                }
                #expect(worst <= 2 && outside == 0, "subsampling \(subsampling), box \(x0),\(y0): worst \(worst), outside \(outside)")
            }
        }
        // A matte measured at half size, refined back to the photo's (the fused kernel inside the box) against the
        // generic filter over the whole photo.
        let half = Work(image: try photo.resized(width: 320, height: 240, method: .area), mask: try blank.resized(width: 320, height: 240))
        let filter = GuidedFilter(radius: 5, epsilon: 0.004, guide: .color, subsampling: 2)
        for (x0, y0, w, h) in [(100, 75, 30, 20), (0, 0, 15, 50), (300, 215, 20, 25)] {
            var values = [UInt8](repeating: 0, count: 320 * 240)
            for y in y0..<(y0 + h) { for x in x0..<(x0 + w) where (x * 7 + y * 3) % 5 != 0 { values[y * 320 + x] = 255 } }
            let boxed = try half.refined(values, by: filter, guide: photo)
            let whole = try filter.filter(try half.buffer(values), guide: photo).converted(to: .oneComponent8)
            #expect(boxed.width == 640 && boxed.height == 480)
            let worst = Self.largestDifference(boxed, whole)
            #expect(worst <= 3, "half size, box \(x0),\(y0): worst \(worst)")
        }
        // Scattered patches, some close enough to share a box and some far apart, each box refined on its own.
        var scattered = [UInt8](repeating: 0, count: 320 * 240)
        for (k, (x0, y0)) in [(10, 10), (16, 14), (200, 30), (205, 120), (90, 200), (300, 220), (150, 100), (156, 108)].enumerated() {
            for y in y0..<min(240, y0 + 3 + k) { for x in x0..<min(320, x0 + 4 + k) { scattered[y * 320 + x] = UInt8(120 + 15 * k) } }
        }
        let regions = Work.regions(of: scattered, width: 320, height: 240, margin: 4, cell: 1)
        #expect(regions.count > 1 && regions.count < 8, "\(regions.count) boxes")
        for (i, a) in regions.enumerated() {
            for b in regions[(i + 1)...] { #expect(!(a.columns.overlaps(b.columns) && a.rows.overlaps(b.rows)), "\(a) meets \(b)") }
        }
        let boxed = try half.refined(scattered, by: filter, guide: photo)
        let whole = try filter.filter(try half.buffer(scattered), guide: photo).converted(to: .oneComponent8)
        let worst = Self.largestDifference(boxed, whole)
        #expect(worst <= 3, "scattered patches: worst \(worst)")
        let none = try work.refined([UInt8](repeating: 0, count: 640 * 480), by: GuidedFilter(radius: 5, epsilon: 0.004), guide: photo)
        #expect(none.width == 640 && none.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
    }

    /// The largest difference in levels between two one-component 8-bit buffers of one size.
    static func largestDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        var worst = 0
        a.withUnsafeBytes { p in
            b.withUnsafeBytes { q in
                for y in 0..<a.height {
                    for x in 0..<a.width { worst = max(worst, abs(Int(p[y * a.bytesPerRow() + x]) - Int(q[y * b.bytesPerRow() + x]))) }
                }
            }
        }
        return worst
    }

    @Test("the colour model's medians and spreads resist outliers; its floors keep flat samples usable")
    func colourModel() throws {
        // 90 samples around (100, 120, 150) and 10 wild ones: the median and spread follow the 90.
        var samples: [SIMD3<Double>] = []
        for k in 0..<90 {
            let luma = 100.0 + Double(k % 9 - 4), cb = 120.0 + Double(k % 5 - 2), cr = 150.0 + Double(k % 3 - 1)
            samples.append(SIMD3(luma, cb, cr))
        }
        samples += Array(repeating: SIMD3<Double>(250, 10, 240), count: 10)
        let model = try #require(ColourModel(samples: samples, floors: SIMD3(1, 1, 1)))
        #expect(abs(model.median.x - 100) <= 1 && abs(model.median.y - 120) <= 1 && abs(model.median.z - 150) <= 1)
        #expect(model.spread.x < 6 && model.spread.y < 4)
        #expect(model.chromaDistance(SIMD3(30, 120, 150)) < 1e-9, "chroma ignores luma")
        #expect(model.distance(SIMD3(250, 10, 240)) > 20)
        let flat = try #require(ColourModel(samples: Array(repeating: SIMD3(50, 128, 128), count: 50), floors: SIMD3(12, 3, 3)))
        #expect(flat.spread == SIMD3(12, 3, 3))
        #expect(ColourModel(samples: Array(repeating: SIMD3(50, 128, 128), count: 39), floors: SIMD3(1, 1, 1)) == nil)
        // BT.601: white is (255, 128, 128), pure red has Cr above 128 and Cb below.
        let white = ColourModel.ycbcr(255, 255, 255), red = ColourModel.ycbcr(255, 0, 0)
        #expect(abs(white.x - 255) < 1e-9 && abs(white.y - 128) < 1e-9 && abs(white.z - 128) < 1e-9)
        #expect(red.z > 200 && red.y < 100)
    }
}

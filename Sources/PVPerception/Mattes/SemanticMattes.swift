import PVImaging
import PVThreads

/// Skin, hair, teeth and glasses mattes of one upright image, made from the face meshes, the person mask and
/// colour models measured on the image itself (no learned matting model ships with this package).
///
/// Per face (``FaceRegions``):
/// - **skin**: the face oval minus the eyes, brows and lips; then, inside the person mask, every pixel whose
///   chroma lies within 2.5 spreads of the face's own skin (a robust Y′CbCr model of the oval's pixels), which
///   adds the neck, arms and hands;
/// - **hair**: inside the person mask, an ellipse about the head (``FaceRegions/headEllipse``), never below the
///   chin line nor inside the face oval: the pixels within 4 spreads of a colour model of the band above the
///   forehead and closer to it than to the skin model, connected to that band (without a hair model: the pixels
///   that are not skin-coloured);
/// - **teeth**: inside the inner lips when the mouth is open, pixels of low saturation and at least 55 % of the
///   skin's luma;
/// - **glasses**: where a thin band of contrasting brightness crosses the nose bridge between the eyes and lies
///   below at least one eye (frames; bare skin is smooth there), two lens ellipses about the eyes joined by a
///   bridge: a coarse shape, and frames of the skin's own brightness are missed;
///
/// Skin and hair are then refined along the image's edges by a colour guided filter and bounded by the person mask
/// (face ovals excepted: the mask misses some people of a crowd whose faces the mesh finds). All mattes are
/// `.oneComponent8` at the image's size, top-left origin, 255 inside.
package struct SemanticMattes: Sendable {
    package var skin: PixelBuffer
    package var hair: PixelBuffer
    package var teeth: PixelBuffer
    package var glasses: PixelBuffer

    /// Chroma distance (in spreads) within which a pixel counts as the face's skin.
    static let skinChroma = 2.5
    /// Distance (in spreads, all channels) within which a head pixel counts as hair once a hair model exists.
    static let hairDistance = 4.0
    /// Luma contrast of a thin band that counts as a glasses frame.
    static let glassesContrast = 14.0

    /// Makes the mattes.
    ///
    /// - Parameters:
    ///   - image: The upright image (any single-plane format; converted to RGBA internally).
    ///   - personMask: The soft person mask, one-component 8-bit at the image's size.
    ///   - faces: The faces' regions, in the image's pixels.
    /// - Throws: ``PerceptionError`` `.invalidArgument` when the mask's size or format differs; imaging errors of the
    ///   conversion or refinement.
    ///   - shrunkImage: The image already shrunk by area to the grid the mattes are measured on, when the caller has
    ///     it (the accurate person mask's refinement shrinks it to the same grid); one of another size is not used.
    package static func make(
        image: PixelBuffer, personMask: PixelBuffer, faces: [FaceRegions], refine: Bool = true, shrunkImage: PixelBuffer? = nil
    ) throws -> SemanticMattes {
        let W = image.width, H = image.height
        guard personMask.width == W, personMask.height == H, personMask.format == .oneComponent8 else {
            throw PerceptionError(.invalidArgument, "the person mask must be OneComponent8 at the image's size \(W)×\(H)")
        }
        // The 8-bit RGB-like layouts are read as they are (``Work`` reads their channels where they lie); others converted.
        let rgba = try image.format.isRGB8 ? image : image.converted(to: .rgba32)
        guard refine, !faces.isEmpty else {
            var work = Work(image: rgba, mask: personMask)
            for face in faces { work.add(face) }
            work.addBodySkin()
            return SemanticMattes(
                skin: try work.buffer(work.skin), hair: try work.buffer(work.hair), teeth: try work.buffer(work.teeth),
                glasses: try work.buffer(work.glasses))
        }
        let radius = max(2, min(W, H) / 200)
        let grid = min(W, H) >= 800 ? 4 : min(W, H) >= 400 ? 2 : 1
        let filter = GuidedFilter(radius: radius, epsilon: 0.004, guide: .color, subsampling: grid)
        // The filter works on a grid coarser than the photo, as the accurate person mask does: half size from 400 px
        // (on the face sets, skin IoU against their labels 0.779 → 0.775), quarter size from 800 px (against the
        // half-size grid: skin IoU 0.967 and hair 0.981 on the 1080p bench portrait, in a third less time). The
        // regions and colour models are measured at that size, skin and hair come back to the photo's size through
        // the filter, and teeth and glasses are drawn at it from the regions the small image decided.
        let s = filter.subsampling, lw = (W + s - 1) / s, lh = (H + s - 1) / s
        let fx = Double(lw) / Double(W), fy = Double(lh) / Double(H)
        let given = shrunkImage.flatMap { $0.width == lw && $0.height == lh && $0.format == .rgba32 ? $0 : nil }
        let small = s == 1 ? rgba : try given ?? rgba.resized(width: lw, height: lh, method: .area)
        let smallMask = s == 1 ? personMask : try Self.blockMeans(of: personMask, factor: s)
        let scaled = faces.map { $0.scaled(x: fx, y: fy) }
        var work = Work(image: small, mask: smallMask)
        for face in scaled { work.add(face) }
        work.addBodySkin()
        // Skin and hair are refined and bounded side by side: the filters' coefficients are computed on one thread.
        let finished = work
        let refined = try concurrently([
            { @Sendable in
                var (skin, boxes) = try finished.refinedInBoxes(finished.skin, by: filter, guide: rgba)
                // The filter may spread a matte past the person; the mask bounds it (skin stands in the face ovals
                // without it). Outside its boxes a matte is zero.
                for box in boxes {
                    var ovals = [UInt8](repeating: 0, count: box.area)
                    for face in faces { PolygonFill.spans(face.oval, width: W, height: H) { box.mark(&ovals, row: $0, from: $1, to: $2) } }
                    try bound(&skin, by: personMask, within: box, keeping: ovals)
                }
                return skin
            },
            { @Sendable in
                var (hair, boxes) = try finished.refinedInBoxes(finished.hair, by: filter, guide: rgba)
                // Hair stands only in the head areas.
                for box in boxes {
                    var heads = [UInt8](repeating: 0, count: box.area)
                    for face in faces { face.forEachHeadSpan(width: W, height: H) { box.mark(&heads, row: $0, from: $1, to: $2) } }
                    try bound(&hair, by: personMask, within: box, to: heads)
                }
                return hair
            },
        ])
        let (skin, hair) = (refined[0], refined[1])
        var teeth = try PixelBuffer(width: W, height: H, format: .oneComponent8)
        var glasses = teeth
        let teethRow = teeth.bytesPerRow(), glassesRow = glasses.bytesPerRow()
        for (face, small) in zip(faces, scaled) {
            if face.mouthOpen {
                teeth.withUnsafeMutableBytes { out in
                    PolygonFill.spans(face.innerLips, width: W, height: H) { y, x0, x1 in
                        let sy = min(lh - 1, Int(Double(y) * fy))
                        for x in x0..<x1 { out[y * teethRow + x] = work.teeth[sy * lw + min(lw - 1, Int(Double(x) * fx))] }
                    }
                }
            }
            for part in work.glasses(small) ?? [] {
                glasses.withUnsafeMutableBytes { out in
                    PolygonFill.spans(part.map { SIMD2($0.x / fx, $0.y / fy) }, width: W, height: H) { y, x0, x1 in
                        for x in x0..<x1 { out[y * glassesRow + x] = 255 }
                    }
                }
            }
        }
        return SemanticMattes(skin: skin, hair: hair, teeth: teeth, glasses: glasses)
    }

    /// A one-component 8-bit image shrunk by a whole `factor`: each pixel the rounded mean of its block (blocks at
    /// the right and bottom edges are as large as the image leaves them), as the accurate mask's guide statistics
    /// shrink the photo.
    static func blockMeans(of image: PixelBuffer, factor k: Int) throws -> PixelBuffer {
        let W = image.width, H = image.height, w = (W + k - 1) / k, h = (H + k - 1) / k
        var out = try PixelBuffer(width: w, height: h, format: .oneComponent8)
        let inRow = image.bytesPerRow(), outRow = out.bytesPerRow()
        var sums = [UInt32](repeating: 0, count: W)
        image.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { target in
                sums.withUnsafeMutableBufferPointer { acc in
                    for y in 0..<h {
                        let rows = min(k, H - y * k)
                        acc.update(repeating: 0)
                        for r in 0..<rows {
                            let line = source.baseAddress!.assumingMemoryBound(to: UInt8.self) + (y * k + r) * inRow
                            for x in 0..<W { acc[x] &+= UInt32(line[x]) }
                        }
                        let o = target.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * outRow
                        for x in 0..<w {
                            let x0 = x * k, columns = min(k, W - x0)
                            var total: UInt32 = 0
                            for c in 0..<columns { total &+= acc[x0 &+ c] }
                            let count = UInt32(rows * columns)
                            o[x] = UInt8((total &+ count / 2) / count)
                        }
                    }
                }
            }
        }
        return out
    }

    /// A rectangle of pixels.
    struct Box: Equatable {
        var x: Int, y: Int, width: Int, height: Int
        var rows: Range<Int> { y..<(y + height) }
        var columns: Range<Int> { x..<(x + width) }
        var area: Int { width * height }

        /// The smallest box holding both.
        static func union(_ a: Box, _ b: Box) -> Box {
            let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
            return Box(x: x0, y: y0, width: max(a.x + a.width, b.x + b.width) - x0, height: max(a.y + a.height, b.y + b.height) - y0)
        }

        /// Whether the two share a pixel.
        func meets(_ b: Box) -> Bool { x < b.x + b.width && b.x < x + width && y < b.y + b.height && b.y < y + height }

        /// Sets to 255 the pixels `x0..<x1` of image row `y` that lie in this box, in `mask` (the box's pixels, row
        /// by row).
        func mark(_ mask: inout [UInt8], row y: Int, from x0: Int, to x1: Int) {
            guard rows.contains(y) else { return }
            let from = max(x0, x), to = min(x1, x + width)
            if from < to { for c in from..<to { mask[(y - self.y) * width + c - x] = 255 } }
        }
    }

    /// Bounds `matte` by `person` (the smaller of the two values) within `box` except where `kept` is 255, and clears
    /// it where `area` is 0, when given (both over the box, row by row, 0 or 255); the matte and the mask are of the
    /// same size, and the matte is left as it is outside the box.
    static func bound(
        _ matte: inout PixelBuffer, by person: PixelBuffer, within box: Box, to area: [UInt8]? = nil, keeping kept: [UInt8]? = nil
    ) throws {
        if matte.format != .oneComponent8 { matte = try matte.converted(to: .oneComponent8) }
        let row = matte.bytesPerRow(), personRow = person.bytesPerRow(), n = box.width * box.height
        let kept = kept ?? [UInt8](repeating: 0, count: n), area = area ?? [UInt8](repeating: 255, count: n)
        person.withUnsafeBytes { mask in
            matte.withUnsafeMutableBytes { bytes in
                kept.withUnsafeBufferPointer { kept in
                    area.withUnsafeBufferPointer { area in
                        for y in 0..<box.height {
                            let line = (bytes.baseAddress! + (box.y + y) * row + box.x).assumingMemoryBound(to: UInt8.self)
                            let limits = (mask.baseAddress! + (box.y + y) * personRow + box.x).assumingMemoryBound(to: UInt8.self)
                            let k = kept.baseAddress! + y * box.width, a = area.baseAddress! + y * box.width
                            for x in 0..<box.width { line[x] = min(line[x], limits[x] | k[x]) & a[x] }
                        }
                    }
                }
            }
        }
    }
}

/// The per-pixel state of one ``SemanticMattes/make(image:personMask:faces:refine:)`` call.
struct Work {
    let width: Int, height: Int
    /// The image (RGBA, BGRA, ARGB or RGB, 8-bit).
    let image: PixelBuffer
    /// RGB, three bytes a pixel, rows tight.
    var rgb: [UInt8]
    var person: [UInt8]
    var skin: [UInt8], hair: [UInt8], teeth: [UInt8], glasses: [UInt8]
    /// Eyes, brows and lips of every face: never skin.
    var holes: [Bool]
    var skinModels: [ColourModel] = []

    init(image: PixelBuffer, mask: PixelBuffer) {
        width = image.width
        height = image.height
        let count = width * height
        var rgb = [UInt8](repeating: 0, count: count * 3), person = [UInt8](repeating: 0, count: count)
        let W = width, H = height
        let layout = RGBLayout(image.format) ?? RGBLayout(.rgba32)!
        let (bpp, r, g, b) = (layout.bytesPerPixel, layout.r, layout.g, layout.b)
        image.withUnsafeBytes { bytes in
            let row = image.bytesPerRow()
            for y in 0..<H {
                let line = bytes.baseAddress! + y * row
                for x in 0..<W {
                    let i = (y * W + x) * 3
                    rgb[i] = line.load(fromByteOffset: x * bpp + r, as: UInt8.self)
                    rgb[i + 1] = line.load(fromByteOffset: x * bpp + g, as: UInt8.self)
                    rgb[i + 2] = line.load(fromByteOffset: x * bpp + b, as: UInt8.self)
                }
            }
        }
        mask.withUnsafeBytes { bytes in
            let row = mask.bytesPerRow()
            for y in 0..<H {
                let line = bytes.baseAddress! + y * row
                for x in 0..<W { person[y * W + x] = line.load(fromByteOffset: x, as: UInt8.self) }
            }
        }
        self.image = image
        self.rgb = rgb
        self.person = person
        skin = [UInt8](repeating: 0, count: count)
        hair = skin
        teeth = skin
        glasses = skin
        holes = [Bool](repeating: false, count: count)
    }

    func colour(_ i: Int) -> SIMD3<Double> { ColourModel.ycbcr(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]) }

    /// Whether a colour is skin by `model`: chroma close, not in deep shadow, and not much brighter than the face
    /// (in pale, washed-out photos the chroma alone also takes in white shirts and bright windows).
    func isSkin(_ c: SIMD3<Double>, _ model: ColourModel) -> Bool {
        model.chromaDistance(c) < SemanticMattes.skinChroma && c.x > 0.3 * model.median.x
            && c.x < model.median.x + max(3.5 * model.spread.x, 40)
    }

    /// Adds one face: its skin, teeth and hair.
    mutating func add(_ face: FaceRegions) {
        let W = width, H = height
        // Face-local labels over the oval's box: 1 oval, 2 eyes and brows, 4 outer lips, 8 inner lips.
        var labels = [UInt8](repeating: 0, count: W * H)
        PolygonFill.mark(face.oval, bit: 1, in: &labels, width: W, height: H)
        for part in face.eyes + face.brows { PolygonFill.mark(part, bit: 2, in: &labels, width: W, height: H) }
        PolygonFill.mark(face.outerLips, bit: 4, in: &labels, width: W, height: H)
        PolygonFill.mark(face.innerLips, bit: 8, in: &labels, width: W, height: H)
        PolygonFill.mark(FaceRegions.grown(face.oval, 1.12), bit: 16, in: &labels, width: W, height: H)
        var samples: [SIMD3<Double>] = []
        PolygonFill.spans(face.oval, width: W, height: H) { y, x0, x1 in
            for x in x0..<x1 {
                let i = y * W + x
                if labels[i] & 0b1110 != 0 {
                    holes[i] = true
                } else {
                    skin[i] = 255
                    samples.append(colour(i))
                }
            }
        }
        let model = ColourModel(samples: samples, floors: SIMD3(12, 3, 3))
        if let model { skinModels.append(model) }
        if face.mouthOpen { addTeeth(face, model: model) }
        for part in glasses(face) ?? [] {
            PolygonFill.spans(part, width: W, height: H) { y, x0, x1 in
                for x in x0..<x1 { glasses[y * W + x] = 255 }
            }
        }
        addHair(face, labels: labels, model: model)
    }

    private mutating func addTeeth(_ face: FaceRegions, model: ColourModel?) {
        let W = width, minimumLuma = model.map { 0.55 * $0.median.x } ?? 80
        PolygonFill.spans(face.innerLips, width: W, height: height) { y, x0, x1 in
            for x in x0..<x1 {
                let i = y * W + x
                let r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2]
                let high = max(r, g, b), low = min(r, g, b)
                let saturation = high == 0 ? 0 : Double(high - low) / Double(high)
                if saturation < 0.38, colour(i).x >= minimumLuma { teeth[i] = 255 }
            }
        }
    }

    /// Hair: the head area's person pixels closer to the colour of the band above the forehead than to the skin,
    /// and connected to that band.
    private mutating func addHair(_ face: FaceRegions, labels: [UInt8], model: ColourModel?) {
        let W = width, H = height
        let (centre, right, up, _, _) = face.headEllipse
        guard let (x0, x1, y0, y1) = face.headBox(width: W, height: H) else { return }
        let bw = x1 - x0, h = face.height
        // Local state over the ellipse's box: 1 candidate, 2 seed (the band above the forehead), 4 reached.
        var state = [UInt8](repeating: 0, count: bw * (y1 - y0))
        var samples: [SIMD3<Double>] = []
        for y in y0..<y1 {
            for x in x0..<x1 {
                let i = y * W + x
                let p = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                guard face.inHeadArea(p) else { continue }
                guard person[i] >= 128, labels[i] & 1 == 0 else { continue }
                // Below the eyes, the dark band along the jaw is shadow or beard far more often than hair.
                let above = ((p - face.forehead) * up).sum(), aside = abs(((p - centre) * right).sum())
                if above < -0.35 * h, labels[i] & 16 != 0 { continue }
                let k = (y - y0) * bw + (x - x0)
                state[k] = 1
                if above > 0.02 * h, above < 0.3 * h, aside < 0.35 * face.width {
                    state[k] |= 2
                    samples.append(colour(i))
                }
            }
        }
        let hairModel = ColourModel(samples: samples, minimum: 60, floors: SIMD3(25, 6, 6))
        func accepted(_ k: Int) -> Bool {
            guard state[k] & 1 != 0 else { return false }
            let c = colour((y0 + k / bw) * W + x0 + k % bw)
            guard let hairModel else { return model.map { !isSkin(c, $0) } ?? true }
            let d = hairModel.distance(c)
            return d < SemanticMattes.hairDistance && model.map { d < $0.distance(c) } ?? true
        }
        // Flood from the accepted seeds through accepted pixels (4-connected).
        var stack = state.indices.filter { state[$0] & 2 != 0 && accepted($0) }
        for k in stack { state[k] |= 4 }
        while let k = stack.popLast() {
            let x = k % bw
            for n in [x > 0 ? k - 1 : -1, x + 1 < bw ? k + 1 : -1, k - bw, k + bw]
            where n >= 0 && n < state.count && state[n] & 4 == 0 && accepted(n) {
                state[n] |= 4
                stack.append(n)
            }
        }
        for k in state.indices where state[k] & 4 != 0 {
            let i = (y0 + k / bw) * W + x0 + k % bw
            hair[i] = max(hair[i], person[i])
        }
    }

    /// Skin-coloured pixels of the people by any face's model (none without a face).
    mutating func addBodySkin() {
        guard !skinModels.isEmpty else { return }
        for i in 0..<(width * height) where person[i] >= 64 && skin[i] == 0 && hair[i] == 0 && !holes[i] {
            let c = colour(i)
            if skinModels.contains(where: { isSkin(c, $0) }) { skin[i] = person[i] }
        }
    }

    /// `values` (a matte over this work's image) refined by `filter` against `image` (the photo: this work's image,
    /// or the photo it is 1/`filter.subsampling` of), at the photo's size. Only the box of the matte's non-zero
    /// pixels grown by the filter's reach (twice its radius) is filtered: outside it every window of the filter holds
    /// no matte, so its output there is zero.
    func refined(_ values: [UInt8], by filter: GuidedFilter, guide image: PixelBuffer) throws -> PixelBuffer {
        try refinedInBoxes(values, by: filter, guide: image).matte
    }

    /// ``refined(_:by:guide:)``, with the boxes (in the photo's pixels, disjoint) outside which the matte is zero;
    /// none when it is zero everywhere. Each region of the matte (``regions(of:margin:cell:)``) is filtered on its own:
    /// a matte of scattered patches is filtered over their boxes, not over the whole span between them.
    func refinedInBoxes(_ values: [UInt8], by filter: GuidedFilter, guide image: PixelBuffer) throws
        -> (matte: PixelBuffer, boxes: [SemanticMattes.Box])
    {
        let W = width, H = height, fullW = image.width, fullH = image.height
        // Full-resolution pixels per work pixel: 1, or the filter's subsampling when the work is at its size.
        let s = fullW == W && fullH == H ? 1 : max(1, filter.subsampling)
        guard (fullW + s - 1) / s == W, (fullH + s - 1) / s == H else {
            throw PerceptionError(.invalidArgument, "a \(W)×\(H) matte is not 1/\(s) of the \(fullW)×\(fullH) photo")
        }
        // The reach in work pixels; at full resolution the crops are aligned to the filter's cells.
        let cell = max(1, filter.subsampling) / s
        let margin = (2 * max(1, Int((Double(filter.radius) / Double(max(1, filter.subsampling))).rounded())) + 2) * cell
        let regions = Self.regions(of: values, width: W, height: H, margin: margin, cell: cell)
        var out: PixelBuffer?
        var boxes: [SemanticMattes.Box] = []
        for region in regions {
            let (x0, y0, w, h) = (region.x, region.y, region.width, region.height)
            var part = try PixelBuffer(width: w, height: h, format: .oneComponent8)
            let partRow = part.bytesPerRow()
            part.withUnsafeMutableBytes { bytes in
                values.withUnsafeBytes { source in
                    for y in 0..<h {
                        (bytes.baseAddress! + y * partRow).copyMemory(from: source.baseAddress! + (y0 + y) * W + x0, byteCount: w)
                    }
                }
            }
            let fx0 = x0 * s, fy0 = y0 * s, fw = min(fullW, (x0 + w) * s) - fx0, fh = min(fullH, (y0 + h) * s) - fy0
            let whole = fx0 == 0 && fy0 == 0 && fw == fullW && fh == fullH
            // The work's own image is the guide shrunk to the filter's grid when the work is at that size.
            let shrunk = s == 1 ? nil : whole ? self.image : try self.image.cropped(x: x0, y: y0, width: w, height: h)
            var refined = try filter.filter(
                part, guide: whole ? image : try image.cropped(x: fx0, y: fy0, width: fw, height: fh), shrunkGuide: shrunk)
            if refined.format != .oneComponent8 { refined = try refined.converted(to: .oneComponent8) }
            let box = SemanticMattes.Box(x: fx0, y: fy0, width: fw, height: fh)
            if whole { return (refined, [box]) }
            boxes.append(box)
            if out == nil { out = try PixelBuffer(width: fullW, height: fullH, format: .oneComponent8) }
            let outRow = out!.bytesPerRow(), refinedRow = refined.bytesPerRow()
            out!.withUnsafeMutableBytes { bytes in
                refined.withUnsafeBytes { source in
                    for y in 0..<fh {
                        (bytes.baseAddress! + (fy0 + y) * outRow + fx0).copyMemory(from: source.baseAddress! + y * refinedRow, byteCount: fw)
                    }
                }
            }
        }
        return (try out ?? PixelBuffer(width: fullW, height: fullH, format: .oneComponent8), boxes)
    }

    /// The boxes (work pixels) a matte is refined in. The work is cut into tiles of ``regionTile`` cells; a tile is
    /// taken when a non-zero value lies within `margin` (the filter's reach) of it; each 8-connected group of taken
    /// tiles gives its box (clipped to the work), and boxes that meet, or whose union is hardly larger than the two (a
    /// filter call's own cost), are merged until none are. So the boxes are disjoint and every non-zero value lies in
    /// one, at least `margin` from any other box: each box filtered alone gives what filtering the whole image gives
    /// there. More than ``maximumRegions`` groups: their one common box.
    static func regions(of values: [UInt8], width W: Int, height H: Int, margin: Int, cell: Int) -> [SemanticMattes.Box] {
        let T = regionTile * cell, tw = (W + T - 1) / T, th = (H + T - 1) / T
        var taken = [Bool](repeating: false, count: tw * th)
        values.withUnsafeBufferPointer { v in
            for y in 0..<H {
                let ty0 = max(0, y - margin) / T, ty1 = min(H - 1, y + margin) / T
                var x = 0
                while x < W {
                    guard v[y * W + x] != 0 else {
                        x += 1
                        continue
                    }
                    let tx0 = max(0, x - margin) / T, tx1 = min(W - 1, x + margin) / T
                    for ty in ty0...ty1 { for tx in tx0...tx1 { taken[ty * tw + tx] = true } }
                    // The rest of this tile column marks nothing new.
                    x = max(x + 1, (tx1 + 1) * T - margin)
                }
            }
        }
        var boxes: [SemanticMattes.Box] = []
        var seen = [Bool](repeating: false, count: tw * th)
        var stack: [Int] = []
        for start in taken.indices where taken[start] && !seen[start] {
            var (x0, y0, x1, y1) = (tw, th, 0, 0)
            seen[start] = true
            stack.append(start)
            while let i = stack.popLast() {
                let tx = i % tw, ty = i / tw
                (x0, y0, x1, y1) = (min(x0, tx), min(y0, ty), max(x1, tx + 1), max(y1, ty + 1))
                for ny in max(0, ty - 1)...min(th - 1, ty + 1) {
                    for nx in max(0, tx - 1)...min(tw - 1, tx + 1) where taken[ny * tw + nx] && !seen[ny * tw + nx] {
                        seen[ny * tw + nx] = true
                        stack.append(ny * tw + nx)
                    }
                }
            }
            boxes.append(SemanticMattes.Box(x: x0 * T, y: y0 * T, width: min(W, x1 * T) - x0 * T, height: min(H, y1 * T) - y0 * T))
        }
        if boxes.count > maximumRegions {
            return [boxes.dropFirst().reduce(boxes[0], SemanticMattes.Box.union)]
        }
        var merging = true
        while merging {
            merging = false
            search: for i in boxes.indices {
                for j in boxes.indices where j > i {
                    let u = SemanticMattes.Box.union(boxes[i], boxes[j])
                    if boxes[i].meets(boxes[j]) || u.area <= boxes[i].area + boxes[j].area + mergeAllowance {
                        boxes[i] = u
                        boxes.remove(at: j)
                        merging = true
                        break search
                    }
                }
            }
        }
        return boxes
    }

    /// The side of the tiles ``regions(of:width:height:margin:cell:)`` takes, in cells.
    static let regionTile = 8
    /// Above this many groups a matte is refined in one box (merging them pairwise would cost more than it saves).
    static let maximumRegions = 256
    /// Work pixels a merged box may add to its two parts' areas: about what one more filter call costs.
    static let mergeAllowance = 1024

    /// A one-component 8-bit buffer of `values`.
    func buffer(_ values: [UInt8]) throws -> PixelBuffer {
        var out = try PixelBuffer(width: width, height: height, format: .oneComponent8)
        let row = out.bytesPerRow(), W = width
        out.withUnsafeMutableBytes { bytes in
            values.withUnsafeBytes { source in
                for y in 0..<height { (bytes.baseAddress! + y * row).copyMemory(from: source.baseAddress! + y * W, byteCount: W) }
            }
        }
        return out
    }
}

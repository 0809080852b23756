import PVImaging

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
    package static func make(image: PixelBuffer, personMask: PixelBuffer, faces: [FaceRegions], refine: Bool = true)
        throws -> SemanticMattes
    {
        let W = image.width, H = image.height
        guard personMask.width == W, personMask.height == H, personMask.format == .oneComponent8 else {
            throw PerceptionError(.invalidArgument, "the person mask must be OneComponent8 at the image's size \(W)×\(H)")
        }
        let rgba = try image.format == .rgba32 ? image : image.converted(to: .rgba32)
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
        let small = s == 1 ? rgba : try rgba.resized(width: lw, height: lh, method: .area)
        let smallMask = s == 1 ? personMask : try personMask.resized(width: lw, height: lh, method: .area)
        let scaled = faces.map { $0.scaled(x: fx, y: fy) }
        var work = Work(image: small, mask: smallMask)
        for face in scaled { work.add(face) }
        work.addBodySkin()
        var skin = try work.refined(work.skin, by: filter, guide: rgba)
        var hair = try work.refined(work.hair, by: filter, guide: rgba)
        // The filter may spread a matte past the person; the mask bounds both (skin stands in the face ovals without
        // it, hair only in the head areas).
        var ovals = [Bool](repeating: false, count: W * H), heads = ovals
        for face in faces {
            PolygonFill.spans(face.oval, width: W, height: H) { y, x0, x1 in for x in x0..<x1 { ovals[y * W + x] = true } }
            face.forEachHeadPixel(width: W, height: H) { heads[$0] = true }
        }
        try bound(&skin, by: personMask, keeping: ovals)
        try bound(&hair, by: personMask, to: heads)
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

    /// Bounds `matte` by `person` (the smaller of the two values) except where `kept`, and clears it outside `area`,
    /// when given; all three at the matte's size.
    static func bound(_ matte: inout PixelBuffer, by person: PixelBuffer, to area: [Bool]? = nil, keeping kept: [Bool]? = nil) throws {
        if matte.format != .oneComponent8 { matte = try matte.converted(to: .oneComponent8) }
        let W = matte.width, H = matte.height, row = matte.bytesPerRow(), personRow = person.bytesPerRow()
        let none: [Bool] = []
        person.withUnsafeBytes { mask in
            matte.withUnsafeMutableBytes { bytes in
                (kept ?? none).withUnsafeBufferPointer { kept in
                    (area ?? none).withUnsafeBufferPointer { area in
                        for y in 0..<H {
                            let line = (bytes.baseAddress! + y * row).assumingMemoryBound(to: UInt8.self)
                            let limits = (mask.baseAddress! + y * personRow).assumingMemoryBound(to: UInt8.self)
                            for x in 0..<W {
                                let i = y &* W &+ x
                                let limit = !kept.isEmpty && kept[i] ? 255 : limits[x]
                                line[x] = area.isEmpty || area[i] ? min(line[x], limit) : 0
                            }
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
    /// The image (RGBA).
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
        image.withUnsafeBytes { bytes in
            let row = image.bytesPerRow()
            for y in 0..<H {
                let line = bytes.baseAddress! + y * row
                for x in 0..<W {
                    for c in 0..<3 { rgb[(y * W + x) * 3 + c] = line.load(fromByteOffset: x * 4 + c, as: UInt8.self) }
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
        let W = width, H = height, fullW = image.width, fullH = image.height
        // Full-resolution pixels per work pixel: 1, or the filter's subsampling when the work is at its size.
        let s = fullW == W && fullH == H ? 1 : max(1, filter.subsampling)
        guard (fullW + s - 1) / s == W, (fullH + s - 1) / s == H else {
            throw PerceptionError(.invalidArgument, "a \(W)×\(H) matte is not 1/\(s) of the \(fullW)×\(fullH) photo")
        }
        var x0 = W, x1 = 0, y0 = H, y1 = 0
        values.withUnsafeBufferPointer { v in
            for y in 0..<H {
                let row = UnsafeBufferPointer(rebasing: v[(y * W)..<(y * W + W)])
                guard let first = row.firstIndex(where: { $0 != 0 }) else { continue }
                let last = row.lastIndex(where: { $0 != 0 })!
                x0 = min(x0, first)
                x1 = max(x1, last + 1)
                if y0 == H { y0 = y }
                y1 = y + 1
            }
        }
        if x0 >= x1 { return try PixelBuffer(width: fullW, height: fullH, format: .oneComponent8) }
        // The reach in work pixels; at full resolution the crop is aligned to the filter's cells.
        let cell = max(1, filter.subsampling) / s
        let margin = (2 * max(1, Int((Double(filter.radius) / Double(max(1, filter.subsampling))).rounded())) + 2) * cell
        x0 = max(0, x0 - margin) / cell * cell
        y0 = max(0, y0 - margin) / cell * cell
        x1 = min(W, x1 + margin)
        y1 = min(H, y1 + margin)
        let w = x1 - x0, h = y1 - y0
        var part = try PixelBuffer(width: w, height: h, format: .oneComponent8)
        let partRow = part.bytesPerRow()
        part.withUnsafeMutableBytes { bytes in
            values.withUnsafeBytes { source in
                for y in 0..<h {
                    (bytes.baseAddress! + y * partRow).copyMemory(from: source.baseAddress! + (y0 + y) * W + x0, byteCount: w)
                }
            }
        }
        let fx0 = x0 * s, fy0 = y0 * s, fw = min(fullW, x1 * s) - fx0, fh = min(fullH, y1 * s) - fy0
        let whole = fx0 == 0 && fy0 == 0 && fw == fullW && fh == fullH
        // The work's own image is the guide shrunk to the filter's grid when the work is at that size.
        let shrunk = s == 1 ? nil : whole ? self.image : try self.image.cropped(x: x0, y: y0, width: w, height: h)
        var refined = try filter.filter(
            part, guide: whole ? image : try image.cropped(x: fx0, y: fy0, width: fw, height: fh), shrunkGuide: shrunk)
        if refined.format != .oneComponent8 { refined = try refined.converted(to: .oneComponent8) }
        if whole { return refined }
        var out = try PixelBuffer(width: fullW, height: fullH, format: .oneComponent8)
        let outRow = out.bytesPerRow(), refinedRow = refined.bytesPerRow()
        out.withUnsafeMutableBytes { bytes in
            refined.withUnsafeBytes { source in
                for y in 0..<fh {
                    (bytes.baseAddress! + (fy0 + y) * outRow + fx0).copyMemory(from: source.baseAddress! + y * refinedRow, byteCount: fw)
                }
            }
        }
        return out
    }

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

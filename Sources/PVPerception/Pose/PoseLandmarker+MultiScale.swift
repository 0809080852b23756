import Foundation
import PVCore
import PVImaging
import PVThreads

extension PoseLandmarker {
    /// How ``detectMultiScale(in:maxPeople:options:)`` looks for people the whole-image pass misses.
    public struct MultiScaleOptions: Sendable, Hashable {
        /// Target tile side in pixels (default 320): tiles overlap by a quarter, at least 2 along the longer side and
        /// at most 4 along each side. The detector sees each tile at 224 px, so a person is seen
        /// `224 / tileSide` times their size instead of `224 / imageSide`. (On the evaluation sets, 320 instead of
        /// 400 found 3 more labelled people in the same time.)
        public var tileSide: Int = 320
        /// A tile is skipped when the people of the whole-image pass cover at least this fraction of it (the sum of
        /// their landmark boxes' overlaps with the tile; default 0.5): there is no room left there for someone the
        /// whole-image pass could have missed. 1 runs every tile. On the evaluation sets, 0.5 finds 46 of the 56
        /// labelled people; skipping every tile once the people found cover 30 % of the whole image found 45 and
        /// missed a man standing between two players (aic), but saved the two tiles a single close portrait still
        /// gets (about one detector run of latency on two cores).
        public var coverageToSkipTile: Double = 0.5
        /// Detector score threshold of the tile passes (default 0.5, the graph's). The landmark model's presence test
        /// does not reject what a tile's weak detection makes of a lamp or a chair. On the evaluation sets 0.5 finds
        /// 46 of the 56 labelled people and returns 14 bodies matching no labelled person (some are real, unlabelled
        /// people); 0.45 found 45 with 20 such bodies, 0.35 45 with 29 (lamps, chairs, folds of cloth). Re-checking
        /// weak tile detections with a detector pass zoomed on them (found 45, 17) was not better either.
        public var tileMinDetectionScore: Double = 0.5
        /// A tile detection whose ROI's box overlaps a found person's ROI box by more than this IoU is the same
        /// detection seen again and gets no landmark run (default 0.8; people standing close have ROIs overlapping
        /// by less).
        public var sameROIIoU: Double = 0.8
        /// A person found through a tile is dropped when its landmark box overlaps a person already found by more than
        /// this IoU (default 0.5).
        public var duplicateIoU: Double = 0.5
        /// Whether the searched tiles are also segmented (landscape selfie model, about 1 ms a tile) to propose
        /// people the pose detector does not see, such as people seen from behind or from above (default true). Each
        /// mask region the people found do not already hold gets an upright landmark ROI around it, heaviest region
        /// first, up to ``maxProposalRuns``; the landmark model's presence test decides. See `PersonProposals`.
        public var segmentationProposals = true
        /// Most landmark runs spent on segmentation proposals per image (default 8).
        public var maxProposalRuns = 8

        public init() {}

        func validate() throws {
            guard (64...4096).contains(tileSide), (0...1).contains(coverageToSkipTile),
                (0...1).contains(tileMinDetectionScore), (0...1).contains(sameROIIoU), (0...1).contains(duplicateIoU),
                (0...64).contains(maxProposalRuns)
            else {
                throw PerceptionError(
                    .invalidArgument,
                    "multi-scale options: tileSide \(tileSide) must be 64…4096, coverageToSkipTile \(coverageToSkipTile) and "
                        + "tileMinDetectionScore \(tileMinDetectionScore) and sameROIIoU \(sameROIIoU) 0…1, maxProposalRuns "
                        + "\(maxProposalRuns) 0…64")
            }
        }

        /// The tiles of a `width × height` image.
        package func tiles(width: Int, height: Int) -> [RotatedRect] {
            func count(_ side: Int, atLeast minimum: Int) -> Int {
                min(4, max(minimum, Int((Double(side) / Double(tileSide)).rounded())))
            }
            let tiling = PoseDetector.Tiling(
                columns: count(width, atLeast: width >= height ? 2 : 1), rows: count(height, atLeast: height > width ? 2 : 1),
                overlap: 0.25)
            return tiling.tiles(width: width, height: height)
        }
    }

    /// Finds the people in an upright image, small ones included: a whole-image pass as ``detect(in:)``'s, then
    /// detector passes over the overlapping tiles the people found do not already fill. A tile detection
    /// whose ROI overlaps a person already found is skipped; the others get a landmark run and join the people
    /// unless their landmark box overlaps one already found. Last, the searched tiles are segmented and the mask
    /// regions nobody found holds are tried as landmark ROIs (``MultiScaleOptions/segmentationProposals``).
    ///
    /// Unlike ``PoseDetector/Tiling`` (one weighted NMS over every pass's candidates, then landmarks), the passes are
    /// not averaged with each other: a half-visible person at a tile's edge would pull the merged keypoints, and so
    /// the ROI, off a person the whole image sees well.
    ///
    /// - Parameters:
    ///   - image: any ``PixelFormat``, upright.
    ///   - maxPeople: most people returned, 1…64.
    ///   - options: see ``MultiScaleOptions``.
    /// - Returns: up to `maxPeople` people: the whole-image pass's by descending score, then the tiles'.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for bad arguments; sampler or interpreter errors.
    /// - Complexity: one detector run, plus one detector and one selfie-model run per tile searched, one landmark run
    ///   per new detection and up to ``MultiScaleOptions/maxProposalRuns`` for mask regions.
    public func detectMultiScale(in image: PixelBuffer, maxPeople: Int, options multi: MultiScaleOptions = MultiScaleOptions())
        throws -> [PersonPose]
    {
        try detectMultiScale(
            in: image, maxPeople: maxPeople, options: multi, tilesBeside: CPUBudget.available > 1)
    }

    /// ``detectMultiScale(in:maxPeople:options:)``; `tilesBeside` lets tiles be searched beside the whole-image pass's
    /// detector and landmark run (same result, sooner on several cores). `wholeImage`, when given, is the whole-image pass's
    /// result already at hand (``detect(in:)``'s on the same image, for example): the search starts from it instead
    /// of running that pass again.
    func detectMultiScale(
        in image: PixelBuffer, maxPeople: Int, options multi: MultiScaleOptions, tilesBeside: Bool,
        wholeImage: [PersonPose]? = nil, runs: PoseRuns? = nil
    ) throws -> [PersonPose] {
        try multi.validate()
        guard (1...64).contains(maxPeople) else {
            throw PerceptionError(.invalidArgument, "maxPeople \(maxPeople) is outside 1…64")
        }
        let search = TileSearch(
            image: image, tiles: multi.tiles(width: image.width, height: image.height), detector: detector,
            minScore: multi.tileMinDetectionScore, runs: runs)
        var people: [PersonPose]
        if let wholeImage {
            people = Array(wholeImage.prefix(maxPeople))
        } else if maxPeople > 1 && tilesBeside && !search.tiles.isEmpty {
            people = try wholeImagePassBesideTiles(search, maxPeople: maxPeople, options: multi)
        } else {
            let found = try detector.detect(in: image, minScore: options.minDetectionScore, runs: runs)
            people = try landmarkWholeImage(found, in: image, maxPeople: maxPeople, runs: runs)
        }
        guard people.count < maxPeople else { return people }
        try searchTiles(search, adding: &people, maxPeople: maxPeople, options: multi)
        return people
    }

    /// The tile search of one image: its tiles and what is known of them so far. The whole-image pass and the tile
    /// search share it when they run side by side.
    final class TileSearch: Sendable {
        struct State {
            var done = false, landmarking = false
            var found: [Int: [Detection]] = [:]
            var claimed = Set<Int>()
            var startedWhileLandmarking = 0
            var awayFromPerson: [Int] = []
            var masks: [Int: [Float]] = [:]
        }

        let image: PixelBuffer
        let tiles: [RotatedRect]
        let detector: PoseDetector
        let minScore: Double
        /// The image's pose runs, when kept.
        let runs: PoseRuns?
        let state = Locked(State())

        init(image: PixelBuffer, tiles: [RotatedRect], detector: PoseDetector, minScore: Double, runs: PoseRuns?) {
            self.image = image
            self.tiles = tiles
            self.detector = detector
            self.minScore = minScore
            self.runs = runs
        }

        /// The detector's candidates in tile `i`.
        func search(_ i: Int) throws -> [Detection] {
            try detector.detect(in: image, region: tiles[i], minScore: minScore, runs: runs)
        }

        /// Searches the tiles in `order` until told to stop: when the whole-image pass is done, or once one more tile
        /// has started after it began a lone person's landmark run (then from the tiles farthest from that person).
        func searchUntilDone(_ order: [Int]) throws {
            while true {
                let pick = state.withLock { state -> Int? in
                    if state.done || (state.landmarking && state.startedWhileLandmarking >= 1) { return nil }
                    let list = state.landmarking ? state.awayFromPerson : order
                    guard let i = list.first(where: { !state.claimed.contains($0) }) else { return nil }
                    state.claimed.insert(i)
                    if state.landmarking { state.startedWhileLandmarking += 1 }
                    return i
                }
                guard let i = pick else { return }
                let detections = try search(i)
                state.withLock { $0.found[i] = detections }
            }
        }
    }

    /// The whole-image pass (as ``detect(in:)``'s, except that a detection whose head box sits on the nose of a person
    /// already found is not given a landmark run) with the tile search beside it.
    ///
    /// Which tiles get searched depends on the landmark boxes of the people found, but a tile's detections do
    /// not. So while one core runs the whole-image detector, the other searches tiles, those holding the least
    /// of the whole-image selfie mask first (``leastPersonFirst``). When that detector finds a single person, its
    /// core goes on to that person's landmark run at once, and the other starts at most one more tile after that:
    /// the unsearched one farthest from the person's head-to-hips line (the least likely to be covered). A landmark
    /// run takes about as long as a tile's detector run, so a second one would hold the search up by most of a
    /// run. When it finds several people, the tile search stops after its current tile and each person's landmark
    /// run is queued, taken by whichever core is free. Only the tiles the people found leave uncovered are used,
    /// so the result is exactly that of searching after them.
    private func wholeImagePassBesideTiles(_ search: TileSearch, maxPeople: Int, options multi: MultiScaleOptions) throws
        -> [PersonPose]
    {
        let image = search.image, allTiles = search.tiles, detector = self.detector, runs = search.runs
        let wholeMinScore = options.minDetectionScore
        let proposer = multi.segmentationProposals ? try personProposals() : nil
        let masker = multi.maxProposalRuns > 0 ? proposer : nil
        struct Outcome {
            var found: [Detection] = []
            var one: [PersonPose]?
            var each: [Int: PersonPose?] = [:]
        }
        let outcome = Locked(Outcome())
        try JobQueue.run([
            ({ @Sendable queue in
                defer { search.state.withLock { $0.done = true } }
                let found = try detector.detect(in: image, minScore: wholeMinScore, runs: runs)
                outcome.withLock { $0.found = found }
                guard found.count == 1 else {
                    // Several people (or none): the tile search stops after its current tile, and each
                    // person's landmark run is queued, for this core at once and the other when its tile
                    // ends.
                    for (k, detection) in found.enumerated() {
                        queue.add { _ in
                            let person = try self.landmarks(for: detection, in: image, runs: runs)
                            outcome.withLock { $0.each[k] = .some(person) }
                        }
                    }
                    return
                }
                let head = found[0].box.center, hips = found[0].keypoints[0]
                let away = allTiles.indices.sorted {
                    Self.distance(allTiles[$0].boundingBox.center, head, hips)
                        > Self.distance(allTiles[$1].boundingBox.center, head, hips)
                }
                search.state.withLock {
                    $0.awayFromPerson = away
                    $0.landmarking = true
                }
                let people = try self.landmarkWholeImage(found, in: image, maxPeople: maxPeople, runs: runs)
                // The proposal masks of the tiles this person leaves uncovered, one job each: this core starts
                // on them while the other ends its tile, then both take them.
                if let masker, people.count < maxPeople {
                    let boxes = people.map(\.landmarkBoundingBox)
                    for i in allTiles.indices where !Self.isCovered(allTiles[i], by: boxes, threshold: multi.coverageToSkipTile) {
                        queue.add { _ in
                            let mask = try masker.mask(of: image, tile: allTiles[i])
                            search.state.withLock { $0.masks[i] = mask }
                        }
                    }
                }
                outcome.withLock { $0.one = people }
            }, true),
            ({ @Sendable _ in
                try search.searchUntilDone(try Self.leastPersonFirst(allTiles, in: image, proposer: proposer))
            }, false),
        ])
        let result = outcome.withLock { $0 }
        if let one = result.one { return one }
        if result.found.count > 1 { return mergeWholeImage(result.found, runs: result.each, maxPeople: maxPeople) }
        return try landmarkWholeImage(result.found, in: image, maxPeople: maxPeople, runs: runs)
    }

    /// Searches the tiles the people found do not already fill (those not searched beside the whole-image pass),
    /// gives each new detection a landmark run, and adds the mask regions nobody holds as proposals.
    private func searchTiles(
        _ search: TileSearch, adding people: inout [PersonPose], maxPeople: Int, options multi: MultiScaleOptions
    ) throws {
        let image = search.image, allTiles = search.tiles
        // A tile mostly covered by the people found already has no room for someone they hide from the whole-image
        // pass; the others are searched.
        let found = people.map(\.landmarkBoundingBox)
        let tiles = allTiles.indices.filter { !Self.isCovered(allTiles[$0], by: found, threshold: multi.coverageToSkipTile) }
        guard !tiles.isEmpty else { return }

        // The tiles are independent single-threaded detector runs: side by side, results in tile order. The
        // segmentation proposals' masks of the same tiles do not depend on who is found, so they are made in the
        // same batch (on a core a lone remaining tile search would leave idle), those not made yet.
        var (searched, made) = search.state.withLock { ($0.found, $0.masks) }
        let remaining = tiles.filter { searched[$0] == nil }
        let proposer = multi.segmentationProposals && multi.maxProposalRuns > 0 ? try personProposals() : nil
        let unmasked = proposer == nil ? [] : tiles.filter { made[$0] == nil }
        enum Work: Sendable { case detections([Detection]), mask([Float]) }
        var jobs = remaining.map { i in { @Sendable in Work.detections(try search.search(i)) } }
        if let proposer {
            jobs += unmasked.map { i in { @Sendable in Work.mask(try proposer.mask(of: image, tile: allTiles[i])) } }
        }
        let done = try concurrently(jobs)
        for (k, i) in remaining.enumerated() { if case .detections(let d) = done[k] { searched[i] = d } }
        for (k, i) in unmasked.enumerated() { if case .mask(let m) = done[remaining.count + k] { made[i] = m } }
        let masks = proposer == nil ? [] : tiles.compactMap { made[$0] }
        var candidates = Array(tiles.compactMap { searched[$0] }.joined())
        // Across tiles: plain NMS (no averaging), highest score first.
        candidates = NonMaxSuppression.standard(candidates, iouThreshold: PoseDetector.iouThreshold)
        // Already found: a person whose ROI is nearly this one, or whose nose this head box covers (the same person
        // seen again by a tile).
        let sameROIIoU = multi.sameROIIoU, duplicateIoU = multi.duplicateIoU
        try runLandmarks(
            for: candidates, in: image, into: &people, maxPeople: maxPeople, runs: search.runs,
            skip: { detection, people in
                let box = Self.roi(for: detection).boundingBox
                return Self.isOnAFoundHead(detection, people)
                    || people.contains(where: { $0.roi.boundingBox.intersectionOverUnion(with: box) > sameROIIoU })
            }
        ) { person, people in
            // A tile sees part of the picture, so its detection can describe a person already found from a worse
            // angle: a result whose landmark box overlaps a found person's is dropped, never swapped in.
            let found = person.landmarkBoundingBox
            if !people.contains(where: { $0.landmarkBoundingBox.intersectionOverUnion(with: found) > duplicateIoU }),
                !Self.sharesAHead(person, with: people)
            {
                people.append(person)
            }
        }
        guard proposer != nil, people.count < maxPeople else { return }
        try addSegmentationProposals(
            in: image, tiles: tiles.map { allTiles[$0] }, masks: masks, to: &people, maxPeople: maxPeople, options: multi,
            runs: search.runs)
    }

    /// Gives the mask regions of the searched tiles (`masks`, the landscape selfie model's, one per tile) that no
    /// person found holds a landmark run each (``MultiScaleOptions/segmentationProposals``);
    /// ``accepts(_:from:among:duplicateIoU:)`` decides who joins.
    private func addSegmentationProposals(
        in image: PixelBuffer, tiles: [RotatedRect], masks: [[Float]], to people: inout [PersonPose], maxPeople: Int,
        options multi: MultiScaleOptions, runs: PoseRuns?
    ) throws {
        let known = people.map(\.landmarkBoundingBox)
        var regions: [PersonProposals.Region] = []
        for (mask, tile) in zip(masks, tiles) { regions += PersonProposals.regions(of: mask, tile: tile, excluding: known) }
        // Overlapping tiles see the same person twice: the heavier region (the more complete view) stays.
        regions.sort { $0.weight > $1.weight }
        var kept: [PersonProposals.Region] = []
        for r in regions where !kept.contains(where: { Self.overlaps($0.box, r.box) }) { kept.append(r) }
        // What remains beside a found person (a helmet above the landmarks, a flag in hand) is not a person unless
        // it is at least half their height (a coach whose arm reached into the player's box).
        let tried = Array(
            kept.filter { r in
                !known.contains { Self.overlaps($0, r.box) }
                    && !known.contains { k in Self.touches(r.box, k, tolerance: max(2, r.cell)) && r.box.height < 0.5 * k.height }
            }.prefix(multi.maxProposalRuns))
        let found = try concurrently(tried.map { r in
            { @Sendable in try self.landmarks(in: image, roi: PersonProposals.roi(for: r), runs: runs) }
        })
        for (region, person) in zip(tried, found) where people.count < maxPeople {
            if let person, Self.accepts(person, from: region, among: people, duplicateIoU: multi.duplicateIoU) {
                people.append(person)
            }
        }
    }

    /// Whether a segmentation proposal's person joins `people`: the landmark model is sure of it
    /// (``PersonProposals/minimumPresence``), it explains its region (landmark box centred in it and at least
    /// ``PersonProposals/minimumExtent`` of its longer side: a logo or a machine part read as a tiny person does not),
    /// and it is someone new (landmark-box IoU with every person found at most `duplicateIoU`).
    static func accepts(_ person: PersonPose, from region: PersonProposals.Region, among people: [PersonPose], duplicateIoU: Double)
        -> Bool
    {
        let box = person.landmarkBoundingBox
        return person.presence >= PersonProposals.minimumPresence && region.box.contains(box.center)
            && max(box.width, box.height) >= PersonProposals.minimumExtent * max(region.box.width, region.box.height)
            && !people.contains { $0.landmarkBoundingBox.intersectionOverUnion(with: box) > duplicateIoU }
            && !sharesAHead(person, with: people)
    }

    /// Whether `person`'s nose lies within three quarters of an ear-to-ear span (the larger of the two people's) of a
    /// found person's: the same head read again from a tile or a mask region, whatever the rest of the body came out
    /// as (a crop that shows less of a person gives a shorter, differently placed body whose box overlaps theirs by
    /// less than ``MultiScaleOptions/duplicateIoU``). Two people's noses are at least a face apart.
    static func sharesAHead(_ person: PersonPose, with people: [PersonPose]) -> Bool {
        func span(_ p: PersonPose) -> Double {
            let ears = p.landmarks[7].position - p.landmarks[8].position
            return (ears * ears).sum().squareRoot()
        }
        return people.contains { p in
            let reach = 0.75 * max(span(p), span(person))
            let d = p.landmarks[0].position - person.landmarks[0].position
            return (d * d).sum() < reach * reach
        }
    }

    /// The order in which to search `tiles` before anyone is found: those holding the least of the landscape selfie
    /// model's whole-image mask first (about 1 ms; the tiles a person fills are the ones their landmark box will
    /// cover), else those farthest from the image's centre first.
    static func leastPersonFirst(_ tiles: [RotatedRect], in image: PixelBuffer, proposer: PersonProposals?) throws -> [Int] {
        let centre = SIMD2(Double(image.width), Double(image.height)) / 2
        var key = tiles.map { -distance($0.boundingBox.center, centre, centre) }
        if let proposer {
            let mask = try proposer.mask(of: image, tile: RotatedRect(covering: image))
            let w = PersonProposals.maskWidth, h = PersonProposals.maskHeight
            let sx = Double(image.width) / Double(w), sy = Double(image.height) / Double(h)
            key = tiles.map { tile in
                let b = tile.boundingBox
                let x0 = max(0, Int(b.xMin / sx)), x1 = min(w, Int((b.xMax / sx).rounded(.up)))
                let y0 = max(0, Int(b.yMin / sy)), y1 = min(h, Int((b.yMax / sy).rounded(.up)))
                var mass = 0.0
                for y in y0..<max(y0, y1) { for x in x0..<max(x0, x1) where mask[y * w + x] > PersonProposals.threshold { mass += 1 } }
                return mass
            }
        }
        return tiles.indices.sorted { (key[$0], $0) < (key[$1], $1) }
    }

    /// Whether two boxes overlap by IoU above 0.3 or one holds the other's centre.
    static func overlaps(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
        a.intersectionOverUnion(with: b) > 0.3 || a.contains(b.center) || b.contains(a.center)
    }

    /// Whether two boxes overlap or touch (within `tolerance` pixels; default 2).
    static func touches(_ a: BoundingBox, _ b: BoundingBox, tolerance: Double = 2) -> Bool {
        min(a.xMax, b.xMax) >= max(a.xMin, b.xMin) - tolerance && min(a.yMax, b.yMax) >= max(a.yMin, b.yMin) - tolerance
    }

    /// The whole-image pass's landmark runs, as in ``detectMultiScale(in:maxPeople:options:)``.
    private func landmarkWholeImage(_ whole: [Detection], in image: PixelBuffer, maxPeople: Int, runs: PoseRuns?) throws
        -> [PersonPose]
    {
        var people: [PersonPose] = []
        try runLandmarks(
            for: whole, in: image, into: &people, maxPeople: maxPeople, runs: runs, skip: Self.isOnAFoundHead
        ) {
            self.add($0, to: &$1)
        }
        return people
    }

    /// ``landmarkWholeImage(_:in:maxPeople:runs:)``'s result from landmark runs already made (`runs[k]` for `whole[k]`):
    /// the same loop, skips and merges.
    private func mergeWholeImage(_ whole: [Detection], runs: [Int: PersonPose?], maxPeople: Int) -> [PersonPose] {
        var people: [PersonPose] = []
        for (k, detection) in whole.enumerated() {
            if people.count >= maxPeople { break }
            if Self.isOnAFoundHead(detection, people) { continue }
            if let person = runs[k] ?? nil { add(person, to: &people) }
        }
        return people
    }

    /// The distance from `p` to the segment `a`–`b`.
    static func distance(_ p: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let ab = b - a, ap = p - a
        let length2 = (ab * ab).sum()
        let t = length2 > 0 ? min(1, max(0, (ap * ab).sum() / length2)) : 0
        let d = ap - t * ab
        return (d * d).sum().squareRoot()
    }

    /// Whether `boxes` cover at least `threshold` of the tile's area (the sum of their overlaps with it).
    static func isCovered(_ tile: RotatedRect, by boxes: [BoundingBox], threshold: Double) -> Bool {
        let t = tile.boundingBox
        let covered = boxes.reduce(0.0) { sum, b in
            let w = min(t.xMax, b.xMax) - max(t.xMin, b.xMin), h = min(t.yMax, b.yMax) - max(t.yMin, b.yMin)
            return sum + (w > 0 && h > 0 ? w * h : 0)
        }
        return covered >= threshold * t.width * t.height
    }

    /// Whether a detection's head box (the pose detector's box is about the head) is centred on a found person's head:
    /// their nose within half the box's size, or within the person's ear-to-ear distance, of the box centre (a tile
    /// that sees a large head in part boxes it smaller and off-centre).
    static func isOnAFoundHead(_ detection: Detection, _ people: [PersonPose]) -> Bool {
        let c = detection.box.center
        let half = 0.5 * max(detection.box.width, detection.box.height)
        return people.contains { p in
            let ears = p.landmarks[7].position - p.landmarks[8].position
            let reach = max(half, (ears * ears).sum().squareRoot())
            let d = p.landmarks[0].position - c
            return (d * d).sum() < reach * reach
        }
    }
}

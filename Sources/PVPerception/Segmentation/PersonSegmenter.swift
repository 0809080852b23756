import Foundation
import PVImaging
import PVInference
import PVThreads
import Synchronization
import PVCore

/// The three person-segmentation levels, as Vision's `QualityLevel` (raw values: accurate 0, balanced 1, fast 2).
public enum SegmentationQuality: Int, Sendable, CaseIterable {
    /// Full-resolution mask: selfie and per-person pose masks fused, edges refined against the image.
    case accurate = 0
    /// The general selfie model's 256×256 mask.
    case balanced = 1
    /// The landscape selfie model's 256×144 mask.
    case fast = 2
}

/// Person segmentation: a soft mask (1 = person, 0 = background) of an upright image.
///
/// | level | models | mask size |
/// |---|---|---|
/// | fast | `selfie_segmentation_landscape` + short-range face detector, pose detector when needed (gate) | 256×144 |
/// | balanced | `selfie_segmentation` + the same gate | 256×256 |
/// | accurate | landscape selfie + pose detector + pose landmarker's per-person masks, fused, colour guided filter | the image's size |
///
/// The selfie models mark any salient foreground (a cat, a chair) as "person", so the fast and balanced
/// levels keep their mask only inside body regions: below the faces the short-range face detector finds, and,
/// when those leave more than 1 % of the mask out, around the people the pose detector finds. Every level
/// returns an empty mask when no person is found. The selfie models are trained on people close to the camera and miss
/// small full-body figures; the pose landmarker's mask is tight but exists only for the people it finds. The
/// accurate level therefore uses the pose mask inside each found person's landmark ROI and the selfie mask
/// outside them, then refines the boundary band (0.05–0.95) with a colour guided filter. When the selfie mask
/// shows someone standing apart from everyone the whole-image pose pass found, the multi-scale body search
/// (``PoseLandmarker/detectMultiScale(in:maxPeople:options:)``: tiles, segmentation proposals) continues from the
/// people found, so that their pose mask decides too.
///
/// Safe to share between threads: each call borrows interpreters from pools.
public final class PersonSegmenter: Sendable {
    /// The level this segmenter runs.
    public let quality: SegmentationQuality
    private let landscape: InterpreterPool
    private let general: InterpreterPool?
    private let detector: PoseDetector
    /// The fast and balanced levels' first gate (short-range face detector).
    private let faces: FaceDetector?
    private let landmarker: PoseLandmarker?
    /// The accurate level's landmarker on two threads, for a lone person whose landmark run starts after the selfie
    /// branch has ended (the other core would idle).
    private let wideLandmarker: PoseLandmarker?
    private let threads: Int
    /// Whether the two branches (selfie model; pose detector or landmarker) run side by side.
    private let concurrent: Bool

    /// Creates a segmenter; models are loaded once per process and shared.
    ///
    /// By default (`threads` nil) every model runs on one thread and the selfie model runs beside the pose
    /// branch, one core each: XNNPACK's multi-threaded runs spin-wait between operators and slow down several
    /// times when other work holds the cores, single-threaded runs do not. The one exception: at the accurate
    /// level, a lone person's landmark run, which starts once the selfie branch has ended, uses both cores. An
    /// explicit thread count runs the models multi-threaded, one after the other.
    /// - Throws: `InferenceError` `.modelNotFound` when the models are not installed.
    public init(quality: SegmentationQuality, threads: Int? = nil) throws {
        self.quality = quality
        self.threads = threads ?? CPUBudget.modelThreads
        concurrent = threads == nil && CPUBudget.available > 1
        let n = self.threads
        landscape = try InterpreterPool(modelNamed: "selfie_segmentation_landscape.tflite", threads: n)
        general = quality == .balanced ? try InterpreterPool(modelNamed: "selfie_segmentation.tflite", threads: n) : nil
        if quality == .accurate {
            var options = PoseLandmarker.Options()
            options.segmentation = .roi
            let landmarker = try PoseLandmarker(options: options, threads: n)
            self.landmarker = landmarker
            wideLandmarker = concurrent ? try PoseLandmarker(options: options, threads: 2) : nil
            detector = landmarker.detector
            faces = nil
        } else {
            landmarker = nil
            wideLandmarker = nil
            detector = try PoseDetector(threads: n)
            faces = try FaceDetector(threads: n)
        }
    }

    /// Runs `a` and `b`, side by side when the segmenter is concurrent, and returns both results (or the first error).
    private func both<A, B>(_ a: () throws -> A, _ b: () throws -> B) throws -> (A, B) {
        guard concurrent else { return (try a(), try b()) }
        var first: Result<A, any Error>?, second: Result<B, any Error>?
        // Each job runs one closure and writes only its own result; both finish before `forEach` returns.
        WorkerPool.shared.forEach(count: 2) { i in
            if i == 0 { first = Result { try a() } } else { second = Result { try b() } }
        }
        return (try first!.get(), try second!.get())
    }

    /// Segments the people in `image` (any pixel format, upright).
    /// - Returns: a `.oneComponent32Float` mask with values in 0…1, of the size the level documents.
    public func segment(_ image: PixelBuffer) throws -> PixelBuffer {
        try segment(image, as: .oneComponent32Float)
    }

    /// ``segment(_:)`` in a one-component `format`: the float mask converted to it (the accurate level's refinement
    /// writes 8-bit masks directly, with the same bytes, sparing the full-size float pass).
    public func segment(_ image: PixelBuffer, as format: PixelFormat) throws -> PixelBuffer {
        guard [.oneComponent8, .oneComponent16Half, .oneComponent32Float].contains(format) else {
            throw PerceptionError(.invalidArgument, "a person mask is one component, not \(format)")
        }
        let mask = try segmentNatively(image, as: format)
        return mask.format == format ? mask : try mask.converted(to: format)
    }

    /// The mask in `format` where the level makes it so, else as float.
    private func segmentNatively(_ image: PixelBuffer, as format: PixelFormat) throws -> PixelBuffer {
        switch quality {
        case .fast, .balanced:
            // The gate's cheap first try: the short-range face detector (about 1 ms, beside the selfie model). When
            // the body regions of the faces it finds hold all but a trace of the mask, the pose detector (about
            // 7 ms) could only confirm them. Otherwise (no face, or mask outside them: someone whose face is too
            // small or hidden, or a cat) the pose detector's regions are added.
            let (faces, selfie) = try both(
                { try self.faces!.detect(in: image, model: .shortRange).map { PersonRegion(face: $0.box) } },
                {
                    self.quality == .fast
                        ? try self.selfieMask(image, pool: self.landscape, width: 256, height: 144)
                        : try self.selfieMask(image, pool: self.general!, width: 256, height: 256)
                })
            var mask = selfie, regions = faces
            if faces.isEmpty
                || Self.massOutside(mask, imageWidth: image.width, imageHeight: image.height, regions: faces) > Self.faceGateSlack
            {
                regions += try detector.detect(in: image).map { PersonRegion(roi: PoseLandmarker.roi(for: $0)) }
            }
            Self.gate(&mask, imageWidth: image.width, imageHeight: image.height, regions: regions)
            return mask
        case .accurate:
            return try refine(try fuse(image), guide: image, as: format)
        }
    }

    /// What the accurate level computes before its full-size refinement: the people found and the fused soft mask on
    /// a grid covering the image. A person mask and person instances of one image can share it.
    package struct Fusion: Sendable {
        /// The image's size.
        package let imageWidth: Int, imageHeight: Int
        /// The grid is the image shrunk by this whole factor (rounded up), at most 512 px a side.
        package let factor: Int
        /// The fused soft mask on the grid (`.oneComponent32Float`); `nil` when nobody was found.
        package let fused: PixelBuffer?
        /// What the guided filter needs from the image alone (nil for guides the fused kernel does not take).
        let statistics: GuideStatistics?
        /// The people found, with their pose masks.
        package let people: [PersonPose]
        /// Whether the people are those followed from the previous frame (``fuse(_:runs:following:)``), found
        /// without the detector.
        package var followed = false

        /// The image shrunk to the grid (RGBA 8-bit), when the guide statistics that hold it are still here.
        package func shrunkImage() throws -> PixelBuffer? { try statistics?.shrunkGuide() }

        /// The same without the guide statistics (``refine(_:guide:as:)`` then computes them again), for keeping:
        /// they take several times the memory of the rest.
        package func droppingGuideStatistics() -> Fusion {
            var kept = Fusion(
                imageWidth: imageWidth, imageHeight: imageHeight, factor: factor, fused: fused, statistics: nil, people: people)
            kept.followed = followed
            return kept
        }
    }

    /// The accurate level's grid factor for a `W × H` image: at least what keeps the grid within 512 px a side, and
    /// half the filter radius (up to 4: the fast guided filter's usual subsampling).
    package static func gridFactor(_ W: Int, _ H: Int) -> Int {
        max((max(W, H) + 511) / 512, min(4, max(2, min(W, H) / 80) / 2))
    }

    /// The accurate level up to the fused grid mask (``Fusion``). Throws for any level but accurate.
    /// `runs`, when given, holds the pose runs already made on `image` (by the body requests) and takes this one's.
    /// `following`, when given, are the landmark ROIs of the people followed from the previous frame of a video
    /// (``PoseTracking``): the landmark model runs on them instead of the detector pass, unless someone is lost in
    /// their ROI, or the selfie mask shows someone none of them accounts for (then the people are searched for as
    /// without them, and the fusion is not ``Fusion/followed``).
    package func fuse(_ image: PixelBuffer, runs: PoseRuns? = nil, following: [RotatedRect]? = nil) throws -> Fusion {
        guard quality == .accurate else {
            throw PerceptionError(.invalidArgument, "only the accurate level fuses per-person masks; this segmenter is \(quality)")
        }
        let W = image.width, H = image.height
        // Fuse on a grid of at most 512 px a side, the image shrunk by a whole factor; the guided filter brings the
        // result to the image's size along its edges. What the filter needs from the image alone is computed
        // beside the pose branch (the longer one), with the selfie model.
        let factor = Self.gridFactor(W, H)
        let w = (W + factor - 1) / factor, h = (H + factor - 1) / factor
        let selfieBranchDone = Flag()
        let (found, (selfie, statistics, selfieOnGrid)) = try both(
            {
                if let following, let followed = try self.people(in: image, following: following, runs: runs) {
                    return (people: followed, followed: true)
                }
                return (people: try self.people(in: image, otherCoreFree: selfieBranchDone, runs: runs), followed: false)
            },
            {
                defer { selfieBranchDone.set() }
                let selfie = try self.selfieMask(image, pool: self.landscape, width: 256, height: 144)
                let statistics = GuidedFilter.guideStatistics(
                    image, factor: factor, radius: Self.refineRadius(W, H, factor: factor), epsilon: Self.refineEpsilon)
                return (selfie, statistics, try selfie.resized(width: w, height: h, method: .bilinear))
            })
        // The selfie model marks someone no found person accounts for (or the whole-image pass found nobody, as
        // in a group photo whose faces are too small for it): search as the body request does (tiles, segmentation
        // proposals), starting from the people found, so that their pose mask, not the selfie mask, decides around
        // them.
        let search = found.people.isEmpty || !Self.unaccountedRegions(selfie, image: image, found: found.people).isEmpty
        var people = found.people
        if search {
            // Followed people leave someone out: the frame is searched as if nobody were followed.
            if found.followed { people = try self.people(in: image, otherCoreFree: selfieBranchDone, runs: runs) }
            people = try landmarker!.detectMultiScale(
                in: image, maxPeople: landmarker!.options.maxPeople, options: PoseLandmarker.MultiScaleOptions(),
                tilesBeside: false, wholeImage: people, runs: runs)
        }
        guard !people.isEmpty else {
            return Fusion(imageWidth: W, imageHeight: H, factor: factor, fused: nil, statistics: statistics, people: [])
        }
        // Per grid pixel: inside each person's landmark ROI the pose model's mask decides (the people's pose
        // masks merged by maximum); outside, the selfie model covers what the landmarker missed (people it did
        // not find, objects they hold). The rows are independent, so the grid is fused in bands on every core.
        var fused = selfieOnGrid
        let masks = people.compactMap(\.segmentation)
        let warps = masks.map {
            ROIMaskWarp(
                maskWidth: $0.maskWidth, maskHeight: $0.maskHeight, crop: $0.cropRect, imageWidth: W, imageHeight: H,
                width: w, height: h)
        }
        let gate = GateRows(
            regions: people.map { PersonRegion(roi: $0.roi, scale: 1.1) }, imageWidth: W, imageHeight: H, width: w, height: h)
        let s = fused.bytesPerRow() / 4
        fused.withUnsafeMutableBytes { raw in
            let f = raw.baseAddress!.assumingMemoryBound(to: Float.self)
            let bands = concurrent ? 2 * CPUBudget.available : 1
            // Each band writes only its own rows of `fused`.
            WorkerPool.shared.forEach(count: bands) { band in
                let pose = UnsafeMutablePointer<Float>.allocate(capacity: 2 * w)
                defer { pose.deallocate() }
                let other = pose + w
                for y in (h * band / bands)..<(h * (band + 1) / bands) {
                    if warps.isEmpty { pose.update(repeating: 0, count: w) }
                    for (k, warp) in warps.enumerated() {
                        masks[k].roiMask.withUnsafeBufferPointer { warp.row(y, of: $0.baseAddress!, into: k == 0 ? pose : other) }
                        if k > 0 { for x in 0..<w { pose[x] = max(pose[x], other[x]) } }
                    }
                    let (py, first, last) = gate.columns(y)
                    let row = f + y * s
                    for x in 0..<w {
                        let r: Float = x >= first && x <= last ? gate.weight(x, py) : 0
                        row[x] = r * pose[x] + (1 - r) * row[x]
                    }
                }
            }
        }
        var fusion = Fusion(imageWidth: W, imageHeight: H, factor: factor, fused: fused, statistics: statistics, people: people)
        fusion.followed = found.followed && !search
        return fusion
    }

    /// The people followed into `image` through their landmark ROIs (one landmark run each, no detector), or nil
    /// when someone is lost (no person in their ROI).
    private func people(in image: PixelBuffer, following rois: [RotatedRect], runs: PoseRuns?) throws -> [PersonPose]? {
        let landmarker = self.landmarker!
        var people: [PersonPose] = []
        for roi in rois {
            guard let person = try landmarker.landmarks(in: image, roi: roi, runs: runs) else { return nil }
            landmarker.add(person, to: &people)
        }
        return people
    }

    /// The accurate level's mask from its ``Fusion`` of `image`: brought to the image's size along its edges, in
    /// `format` where the refinement writes it directly (8-bit), else as float.
    package func refine(_ fusion: Fusion, guide image: PixelBuffer, as format: PixelFormat) throws -> PixelBuffer {
        guard let fused = fusion.fused else {
            return try PixelBuffer(width: image.width, height: image.height, format: .oneComponent32Float)
        }
        try StopRequest.check(before: "refining the person mask")
        // The refinement at the image's size runs on every core: stop multi-threaded inference workers
        // spinning first.
        if threads > 1, image.width * image.height >= 1 << 20 { SpinningPools.quiet(.inference) }
        guard image.width == fusion.imageWidth, image.height == fusion.imageHeight else {
            throw PerceptionError(
                .invalidArgument,
                "the guide is \(image.width)×\(image.height), the fusion was made on a \(fusion.imageWidth)×\(fusion.imageHeight) image")
        }
        return try Self.refine(gridMask: fused, guide: image, statistics: fusion.statistics, as: format)
    }

    /// A soft mask on the accurate level's grid of `image` (``gridFactor(_:_:)``) brought to the image's size
    /// along its edges, as the accurate level refines its own (values 0…1): in `format` where the refinement writes it
    /// directly (8-bit), else as `.oneComponent32Float`. `statistics` are the guide's, when already computed.
    package static func refine(
        gridMask mask: PixelBuffer, guide image: PixelBuffer, statistics: GuideStatistics? = nil,
        as format: PixelFormat = .oneComponent32Float
    ) throws -> PixelBuffer {
        let W = image.width, H = image.height, factor = gridFactor(W, H)
        if let statistics = statistics
            ?? GuidedFilter.guideStatistics(image, factor: factor, radius: refineRadius(W, H, factor: factor), epsilon: refineEpsilon),
            let refined = try GuidedFilter.refineMask(
                mask, statistics: statistics, guide: image, band: refineBand,
                format: format == .oneComponent8 ? .oneComponent8 : .oneComponent32Float)
        {
            return refined
        }
        return try refine(mask, guide: image)
    }

    /// The accurate level's whole-image pose pass (``PoseLandmarker/detect(in:)``, same result). A lone detection's
    /// landmark run uses both cores when the selfie branch has ended by then (or within ``wideWait``) and no other
    /// model run is under way in the process (another request's would compete for the cores: multi-threaded runs
    /// spin-wait, single-threaded ones do not): the pool's idle thread is told to sleep rather than spin, so
    /// XNNPACK's worker gets its core, and the workers are parked after the run, before the refinement wants both
    /// cores.
    private func people(in image: PixelBuffer, otherCoreFree: Flag, runs: PoseRuns?) throws -> [PersonPose] {
        let landmarker = self.landmarker!
        let minScore = landmarker.options.minDetectionScore
        let detections = try landmarker.detector.detect(
            in: image, minScore: min(minScore, runs?.clusterScore ?? minScore), tiling: landmarker.options.detectorTiling,
            runs: runs
        ).filter { $0.score >= minScore }
        if let wide = wideLandmarker, detections.count == 1, otherCoreFree.wait(upTo: Self.wideWait),
            Interpreter.runsInFlight == 0
        {
            SpinningPools.quiet(.workers)
            defer { SpinningPools.quiet(.inference) }
            return try wide.landmarks(for: detections[0], in: image, runs: runs).map { [$0] } ?? []
        }
        return try landmarker.people(for: detections, in: image, maxPeople: landmarker.options.maxPeople, runs: runs)
    }

    /// How long a lone person's landmark run waits for the selfie branch before running on one thread.
    static let wideWait: UInt64 = 1_500_000

    /// The regions of the selfie mask (256×144, the whole image) that stand apart from every found person: someone
    /// the whole-image pose pass missed, or something the selfie model takes for a person.
    static func unaccountedRegions(_ selfie: PixelBuffer, image: PixelBuffer, found: [PersonPose]) -> [PersonProposals.Region] {
        guard selfie.width == PersonProposals.maskWidth, selfie.height == PersonProposals.maskHeight else { return [] }
        let w = selfie.width, h = selfie.height, stride = selfie.bytesPerRow() / 4
        let values = selfie.withUnsafeBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            return (0..<(w * h)).map { m[($0 / w) * stride + $0 % w] }
        }
        let known = found.map(\.landmarkBoundingBox)
        let whole = RotatedRect(covering: image)
        // Stand-alone regions only: a blob touching a found person (a flag held, a helmet above the landmarks, the
        // background beside a close-up) would send a single portrait through the whole body search.
        return PersonProposals.regions(of: values, tile: whole, excluding: known).filter { r in
            !known.contains { PoseLandmarker.touches(r.box, $0, tolerance: 1.5 * r.cell) }
        }
    }

    /// The area a detected person may occupy: the landmark model's square ROI (centre at the hips, side 2.5 times
    /// the hip-to-head-top distance, turned along the body), enlarged by `scale` (default 15 % for hair, hands
    /// and loose clothes).
    struct PersonRegion {
        var center: SIMD2<Double>
        var axisX: SIMD2<Double>
        var axisY: SIMD2<Double>
        var half: Double

        /// The area of the body below a face box (pixels): centred three face heights below the face's centre, five
        /// face sizes to each side, upright; about the pose ROI of a standing person whose face this is.
        init(face box: BoundingBox) {
            let size = max(box.width, box.height)
            center = SIMD2(box.center.x, box.center.y + 3 * size)
            axisX = SIMD2(1, 0)
            axisY = SIMD2(0, 1)
            half = 5 * size
        }

        init(roi: RotatedRect, scale: Double = 1.15) {
            center = SIMD2(roi.centerX, roi.centerY)
            axisX = SIMD2(cos(roi.angle), sin(roi.angle))
            axisY = SIMD2(-sin(roi.angle), cos(roi.angle))
            half = max(roi.width, roi.height) / 2 * scale
        }

        /// 1 well inside, 0 outside, linear over the outer `feather` fraction.
        func weight(_ p: SIMD2<Double>, feather: Double = 0.15) -> Float {
            let q = p - center
            let m = max(abs((q * axisX).sum()), abs((q * axisY).sum())) / half
            return Float(min(1, max(0, (1 - m) / feather)))
        }
    }

    /// The union of person regions on a `width × height` mask covering the image, row by row: where some region's
    /// weight may be above 0, and the weight (the largest region's) at a pixel there.
    struct GateRows {
        let regions: [PersonRegion]
        let sx: Double, sy: Double, width: Int
        private let boxes: [(x0: Double, x1: Double, y0: Double, y1: Double)]

        init(regions: [PersonRegion], imageWidth: Int, imageHeight: Int, width: Int, height: Int) {
            self.regions = regions
            self.width = width
            let sx = Double(imageWidth) / Double(width), sy = Double(imageHeight) / Double(height)
            (self.sx, self.sy) = (sx, sy)
            // Each region's weight is 0 outside its bounding box (a pixel beyond it lies farther than `half` along
            // an axis): there, only the product with 0 is left to do. The boxes are widened by a pixel so that
            // pixels near their edges take the exact path.
            boxes = regions.map { r in
                let ex = r.half * (abs(r.axisX.x) + abs(r.axisY.x)) + sx, ey = r.half * (abs(r.axisX.y) + abs(r.axisY.y)) + sy
                return (r.center.x - ex, r.center.x + ex, r.center.y - ey, r.center.y + ey)
            }
        }

        /// Row `y`'s centre in image pixels, and the columns some region's box covers on it (in mask pixels, rounded
        /// outwards; `first > last` when none): the weight is 0 outside them.
        func columns(_ y: Int) -> (py: Double, first: Int, last: Int) {
            let py = (Double(y) + 0.5) * sy - 0.5
            var first = width, last = -1
            for b in boxes where py >= b.y0 && py <= b.y1 {
                first = min(first, max(0, Int(((b.x0 + 0.5) / sx - 0.5).rounded(.down))))
                last = max(last, min(width - 1, Int(((b.x1 + 0.5) / sx - 0.5).rounded(.up))))
            }
            return (py, first, last)
        }

        /// The weight at column `x` of the row whose centre is `py`.
        @inline(__always) func weight(_ x: Int, _ py: Double) -> Float {
            let p = SIMD2((Double(x) + 0.5) * sx - 0.5, py)
            var g: Float = 0
            for r in regions where g < 1 { g = max(g, r.weight(p)) }
            return g
        }
    }

    /// Multiplies the mask by the union of the person regions (mapped from image pixels to mask pixels).
    static func gate(_ mask: inout PixelBuffer, imageWidth: Int, imageHeight: Int, regions: [PersonRegion]) {
        let w = mask.width, h = mask.height, stride = mask.bytesPerRow() / 4
        let rows = GateRows(regions: regions, imageWidth: imageWidth, imageHeight: imageHeight, width: w, height: h)
        mask.withUnsafeMutableBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            for y in 0..<h {
                let (py, first, last) = rows.columns(y)
                for x in 0..<w {
                    let i = y * stride + x
                    guard m[i] > 0 else { continue }
                    guard x >= first, x <= last else {
                        m[i] *= 0
                        continue
                    }
                    m[i] *= rows.weight(x, py)
                }
            }
        }
    }

    /// The fraction of the mask's total that the regions' gate would remove (0 for an empty mask).
    static func massOutside(_ mask: PixelBuffer, imageWidth: Int, imageHeight: Int, regions: [PersonRegion]) -> Double {
        var gated = mask
        gate(&gated, imageWidth: imageWidth, imageHeight: imageHeight, regions: regions)
        let total = sum(mask), kept = sum(gated)
        return total > 0 ? (total - kept) / total : 0
    }

    static func sum(_ mask: PixelBuffer) -> Double {
        let w = mask.width, h = mask.height, stride = mask.bytesPerRow() / 4
        return mask.withUnsafeBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            var total = 0.0
            for y in 0..<h { for x in 0..<w { total += Double(m[y * stride + x]) } }
            return total
        }
    }

    /// Mask fraction the face regions may leave out before the pose detector is asked.
    static let faceGateSlack = 0.01

    /// Runs a selfie model on the whole image, stretched to the model's input, and returns its probability mask.
    private func selfieMask(_ image: PixelBuffer, pool: InterpreterPool, width: Int, height: Int) throws -> PixelBuffer {
        let sampler = TensorSampler(width: width, height: height, range: 0...1, fit: .stretch, border: .zero)
        return try pool.withInterpreter { interpreter in
            _ = try interpreter.withInput(0) { try sampler.sample(image, rect: RotatedRect(covering: image), into: $0) }
            try interpreter.invoke()
            var mask = try PixelBuffer(width: width, height: height, format: .oneComponent32Float)
            let stride = mask.bytesPerRow() / 4
            interpreter.withOutput(0) { out in
                mask.withUnsafeMutableBytes { dst in
                    let d = dst.bindMemory(to: Float.self)
                    for y in 0..<height { for x in 0..<width { d[y * stride + x] = out[y * width + x] } }
                }
            }
            return mask
        }
    }

    /// The guided filter's window radius at the image's size (1/80 of its shorter side, at least 2 px), and on
    /// the grid shrunk by `factor`.
    static func refineRadius(_ width: Int, _ height: Int, factor: Int) -> Int {
        max(1, Int((Double(max(2, min(width, height) / 80)) / Double(factor)).rounded()))
    }
    /// The guided filter's ε (0…1 units) and the half-width of the uncertain band it refines.
    static let refineEpsilon: Float = 1e-2
    static let refineBand: Float = 0.5

    /// Brings a (possibly lower-resolution) mask to the image's size and refines it along the image's edges: a
    /// colour guided filter, applied only in the uncertain band at the person's boundary (confident pixels keep
    /// their bilinearly upsampled value, so the filter cannot bleed into them).
    ///
    /// The general path, for guides the fused kernel (``GuidedFilter/refineMask(_:statistics:guide:band:)``, used
    /// for 8-bit colour images) does not take.
    static func refine(_ mask: PixelBuffer, guide image: PixelBuffer) throws -> PixelBuffer {
        let side = min(image.width, image.height)
        let radius = max(2, side / 80)
        let filter = GuidedFilter(radius: radius, epsilon: refineEpsilon, guide: .color, subsampling: max(1, min(4, radius / 2)))
        var refined = try filter.filter(mask, guide: image)
        let up = mask.width == image.width && mask.height == image.height
            ? mask : try mask.resized(width: image.width, height: image.height, method: .bilinear)
        let band = refineBand
        let s = up.bytesPerRow() / 4, rs = refined.bytesPerRow() / 4, w = image.width, h = image.height
        up.withUnsafeBytes { mb in
            let m = mb.bindMemory(to: Float.self)
            refined.withUnsafeMutableBytes { rb in
                let r = rb.bindMemory(to: Float.self)
                for y in 0..<h {
                    for x in 0..<w {
                        let v = m[y * s + x]
                        // Weight 1 at 0.5, falling to 0 at 0.5 ± band.
                        let t = max(0, 1 - abs(v - 0.5) / band)
                        r[y * rs + x] = v + (r[y * rs + x] - v) * t
                    }
                }
            }
        }
        return refined
    }
}

import Foundation
import PVImaging
import PVPerception
import Synchronization
import PVCore

/// What the three face requests share: the loaded pipelines, face detection as the rectangles request does it,
/// the mesh for a given observation, and coordinate conversion.
enum VNFacePipeline {
    private static let cache = Mutex<[Bool: FaceLandmarker]>([:])

    /// XNNPACK threads per face model. The face models are small (about 1 ms each on one core): a second
    /// thread saves about a quarter of that on an idle machine, while on a busy one the shared worker pool's
    /// waiting made each run up to ten times slower (measured with `peoplevision bench faces --stages`).
    static let threads = 1

    /// The face landmarker (models load once per process), with or without the iris stage.
    static func landmarker(irises: Bool) throws -> FaceLandmarker {
        if let hit = cache.withLock({ $0[irises] }) { return hit }
        var options = FaceLandmarker.Options()
        options.refineIrises = irises
        let made = try FaceLandmarker(options: options, threads: threads)
        return cache.withLock { c in
            if let raced = c[irises] { return raced }
            c[irises] = made
            return made
        }
    }

    /// Most faces one request reports.
    static let maximumFaces = 64

    /// The work done on one handler's image region, reused by the next face request performed on the same
    /// handler: the detections (with and without the small-face tiles), revision 3's first mesh per detection and
    /// the mesh with irises per mesh ROI. Several face requests on one image (rectangles, landmarks, capture
    /// quality, in one `perform` or several) then run the detectors and each mesh once.
    private final class Shared: @unchecked Sendable {  // state guarded by `recent`'s lock
        weak var context: VNImageContext?
        let roi: CGRect
        var detections: [Bool: (all: [Detection], shortRange: [Detection])] = [:]
        var firstMeshes: [Bool: [Int: FaceMesh?]] = [:]
        var refined: [RotatedRect: FaceMesh?] = [:]
        /// The attention mesh on short-range crops (`nil` where it doubted the face).
        var onShortRangeCrop: [RotatedRect: FaceMesh?] = [:]
        /// The same, run early beside the detectors (before the first mesh it measures its spread from is chosen).
        var attentionEarly: [RotatedRect: FaceMesh?] = [:]

        init(context: VNImageContext, roi: CGRect) {
            self.context = context
            self.roi = roi
        }
    }

    private static let recent = Mutex<[Shared]>([])

    /// Where a face request works: its handler's image and region of interest.
    struct Scope {
        let context: VNImageContext
        let roi: CGRect
    }

    /// Reads or updates the shared work of `scope` (the last few handler regions are kept, weakly).
    private static func shared<R>(_ scope: Scope?, _ body: (Shared) -> R) -> R? {
        guard let scope else { return nil }
        return recent.withLock { list in
            if let hit = list.first(where: { $0.context === scope.context && $0.roi == scope.roi }) { return body(hit) }
            list.removeAll { $0.context == nil }
            let made = Shared(context: scope.context, roi: scope.roi)
            list.append(made)
            if list.count > 4 { list.removeFirst(list.count - 4) }
            return body(made)
        }
    }

    /// Runs `body`, reporting pipeline errors as Vision errors.
    static func run<R>(_ body: () throws -> R) throws -> R {
        try ErrorTranslation.translating(body)
    }

    /// Face detection as ``VNDetectFaceRectanglesRequest`` does it at `revision`, on `region`.
    ///
    /// Revision 3 runs the face mesh on every detection, on the short-range detector's crop of the face when that
    /// detector found it (MediaPipe's crop; those meshes start while the full-range passes still run), else on the
    /// merged detection's: the box becomes the mesh's extent and roll, yaw and
    /// pitch come from the mesh (``HeadPose/init(mesh:)``); a detection the mesh rejects keeps the detector's
    /// box and gets roll and yaw from its keypoints, pitch nil. Revision 2
    /// reports the detector's box with roll and yaw from the keypoints rounded to multiples of π/4; revision 1
    /// only the box.
    ///
    /// With `landmarksToFollow` (a landmarks or capture-quality request), revision 3 also starts the attention mesh on
    /// each short-range crop early, and, where it doubts the face there but the plain mesh does not, on the plain
    /// mesh's region (both kept in `scope` for ``mesh(for:in:irises:scope:)``). These meshes, longest first, are
    /// shared between the thread that ran the short-range detector and, once its pass ends, the full-range one.
    static func detectFaces(
        in region: PixelBuffer, revision: Int, smallFaces: Bool = false, scope: Scope? = nil, landmarksToFollow: Bool = false
    ) throws -> [VNFaceObservation] {
        let landmarker = try landmarker(irises: false)
        let refiner = landmarksToFollow && scope != nil ? try Self.landmarker(irises: true) : nil
        let detections: [Detection], shortRange: [Detection]
        // Revision 3's meshes on short-range crops, by short-range index, started as soon as those faces are known.
        let early = Mutex<[Int: FaceMesh?]>([:])
        if let known = shared(scope, { $0.detections[smallFaces] }) ?? nil {
            (detections, shortRange) = known
        } else {
            var alongside: (@Sendable ([Detection]) throws -> Void)?
            var afterFullRange: (@Sendable () throws -> Void)?
            if revision == 3 {
                let queue = Mutex<[@Sendable () throws -> Void]>([])
                let drain: @Sendable () throws -> Void = {
                    while let job = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { try job() }
                }
                // Per short-range face, what its two early meshes gave: when the attention mesh doubts the face on
                // that crop and the plain mesh does not, the landmarks will come from the region the plain mesh
                // defines (``mesh(for:in:irises:scope:)``), so that run is queued as soon as both are known.
                let both = Mutex<[Int: (attention: FaceMesh??, plain: FaceMesh??)]>([:])
                @Sendable func settle(_ k: Int, attention: FaceMesh?? = nil, plain: FaceMesh?? = nil) {
                    let ready: FaceMesh? = both.withLock { state in
                        var entry = state[k] ?? (nil, nil)
                        if let attention { entry.attention = attention }
                        if let plain { entry.plain = plain }
                        state[k] = entry
                        guard case .some(.none) = entry.attention, case .some(.some(let first)) = entry.plain else { return nil }
                        return first
                    }
                    guard let first = ready, let refiner else { return }
                    queue.withLock { $0.append { _ = try Self.refined(from: first, in: region, by: refiner, scope: scope) } }
                }
                alongside = { faces in
                    let rois = faces.prefix(maximumFaces).map { FaceLandmarker.roi(for: $0) }
                    var jobs: [@Sendable () throws -> Void] = []
                    if let refiner {
                        for (k, roi) in rois.enumerated() {
                            jobs.append {
                                guard roi.hasSampleableCentreAndSide else { return }
                                let found = try refiner.attentionLandmarks(in: region, roi: roi)
                                _ = shared(scope) { $0.attentionEarly[roi] = .some(found) }
                                settle(k, attention: .some(found))
                            }
                        }
                    }
                    for (k, roi) in rois.enumerated() {
                        jobs.append {
                            let mesh = try Self.mesh(on: roi, in: region, by: landmarker)
                            early.withLock { $0[k] = .some(mesh) }
                            settle(k, plain: .some(mesh))
                        }
                    }
                    queue.withLock { $0 += jobs }
                    try drain()
                }
                afterFullRange = drain
            }
            (detections, shortRange) = try run {
                try landmarker.detector.detectWithShortRange(
                    in: region, tiling: smallFaces ? .grid2x2 : nil, alongsideShortRange: alongside, afterFullRange: afterFullRange)
            }
            _ = shared(scope) { $0.detections[smallFaces] = (detections, shortRange) }
        }
        let earlyMeshes = early.withLock { $0 }
        let W = region.width, H = region.height
        var result: [VNFaceObservation] = []
        var meshBoxes: [BoundingBox] = []
        for (index, detection) in detections.enumerated() {
            if result.count >= maximumFaces { break }
            let score = VNConfidence(detection.score)
            let k = Self.shortRangeIndex(of: detection, among: shortRange)
            var box = detection.box
            var roll: NSNumber?, yaw: NSNumber?, pitch: NSNumber?
            var mesh: FaceMesh?
            switch revision {
            case 3:
                if let known = shared(scope, { $0.firstMeshes[smallFaces]?[index] }) ?? nil {
                    mesh = known
                } else {
                    // The short-range crop first (computed early, or now); where the mesh rejects it, the merged one.
                    if let k {
                        mesh = try earlyMeshes[k]
                            ?? run { try Self.mesh(on: FaceLandmarker.roi(for: shortRange[k]), in: region, by: landmarker) }
                    }
                    if mesh == nil {
                        mesh = try run { try Self.mesh(on: FaceLandmarker.roi(for: detection), in: region, by: landmarker) }
                    }
                    _ = shared(scope) { [mesh] in $0.firstMeshes[smallFaces, default: [:]][index] = .some(mesh) }
                }
                if let m = mesh {
                    let mb = m.meshBoundingBox
                    if meshBoxes.contains(where: { $0.intersectionOverUnion(with: mb) > 0.5 }) { continue }
                    meshBoxes.append(mb)
                    box = mb
                    let pose = m.headPose
                    (roll, yaw, pitch) = (NSNumber(value: pose.roll), NSNumber(value: pose.yaw), NSNumber(value: pose.pitch))
                } else {
                    let pose = HeadPose(detectionKeypoints: detection.keypoints)
                    (roll, yaw) = (NSNumber(value: pose.roll), NSNumber(value: pose.yaw))
                }
            case 2:
                let pose = HeadPose(detectionKeypoints: detection.keypoints)
                let step = Double.pi / 4
                roll = NSNumber(value: ROI.wrapAngle((pose.roll / step).rounded() * step))
                yaw = NSNumber(value: (pose.yaw / step).rounded() * step)
            default:
                break
            }
            result.append(
                VNFaceObservation(
                    boundingBox: VisionCoordinates.rect(box, width: W, height: H), confidence: score, requestRevision: revision,
                    roll: roll, yaw: yaw, pitch: pitch, landmarks: nil, faceCaptureQuality: nil,
                    source: FaceSource(
                        detection: detection, mesh: mesh, width: W, height: H,
                        shortRange: k.map { shortRange[$0] })))
        }
        return result
    }

    /// The index of the short-range detection that is `detection` (IoU above 0.5), if the short-range model found
    /// that face.
    static func shortRangeIndex(of detection: Detection, among shortRange: [Detection]) -> Int? {
        shortRange.indices.filter { shortRange[$0].box.intersectionOverUnion(with: detection.box) > 0.5 }
            .max { shortRange[$0].box.intersectionOverUnion(with: detection.box) < shortRange[$1].box.intersectionOverUnion(with: detection.box) }
    }

    /// `landmarker`'s mesh on `roi`, or `nil` when the ROI cannot be sampled (not finite, or empty) or the mesh
    /// finds no face there.
    static func mesh(on roi: RotatedRect, in region: PixelBuffer, by landmarker: FaceLandmarker) throws -> FaceMesh? {
        guard roi.hasSampleableCentreAndSide else { return nil }
        return try landmarker.landmarks(in: region, roi: roi)
    }

    /// The iris-refining mesh on the ROI `first` defines (MediaPipe's tracking ROI, which aligns the crop with the face
    /// better than a detector's box, as the eyes and irises need), with its spread from `first`; `first` refined by
    /// the iris model where that mesh finds no face. Kept in `scope`, so it runs once per handler region.
    static func refined(from first: FaceMesh, in region: PixelBuffer, by landmarker: FaceLandmarker, scope: Scope?) throws
        -> FaceMesh?
    {
        let roi = FaceLandmarker.roi(for: first.landmarks)
        if let known = shared(scope, { $0.refined[roi] }) ?? nil { return known }
        let refined = try landmarker.landmarks(in: region, roi: roi)?.measuringSpread(from: first)
            ?? landmarker.refiningIrises(first, in: region)
        _ = shared(scope) { $0.refined[roi] = .some(refined) }
        return refined
    }

    /// The mesh (with irises when `irises`) for an observation on `region`. When the observation came from
    /// this pipeline on an image of the same size: its mesh as is (no irises); with irises, the refined mesh on
    /// the short-range detector's crop of the face when that detector found it, else re-run on the ROI the first
    /// mesh defines; or, without a mesh, run from its detection. Otherwise the mesh runs on a ROI built
    /// from the observation's box (×1.5, square) levelled by its roll. `nil` when the mesh model
    /// finds no face there.
    static func mesh(for observation: VNFaceObservation, in region: PixelBuffer, irises: Bool, scope: Scope? = nil) throws
        -> FaceMesh?
    {
        let landmarker = try landmarker(irises: irises)
        return try run {
            if let source = observation.source, source.width == region.width, source.height == region.height {
                // With irises, the attention mesh on the crop MediaPipe runs it on: the short-range detector's, when
                // it found the face (the merged detector box, or a first mesh's extent, frame the face a little
                // differently). Where it doubts the face there, the region of the first mesh follows.
                if irises, let s = source.shortRange {
                    let roi = FaceLandmarker.roi(for: s)
                    let known: FaceMesh?? = shared(scope) { $0.onShortRangeCrop[roi] } ?? nil
                    let refined: FaceMesh?
                    if let known {
                        refined = known
                    } else {
                        let early: FaceMesh?? = shared(scope) { $0.attentionEarly[roi] } ?? nil
                        let found = try early ?? landmarker.attentionLandmarks(in: region, roi: roi)
                        refined = found.map { f in source.mesh.map { f.measuringSpread(from: $0) } ?? f }
                        _ = shared(scope) { $0.onShortRangeCrop[roi] = .some(refined) }
                    }
                    if let refined { return refined }
                }
                if let m = source.mesh {
                    guard irises else { return m }
                    return try Self.refined(from: m, in: region, by: landmarker, scope: scope)
                }
                if let d = source.detection {
                    return try landmarker.landmarks(in: region, roi: FaceLandmarker.roi(for: d))
                }
            }
            let b = observation.boundingBox
            guard b.width > 0, b.height > 0, b.minX.isFinite, b.minY.isFinite, b.width.isFinite, b.height.isFinite else {
                throw VNError(.invalidArgument, "input face observation has an empty or non-finite boundingBox \(b)")
            }
            let box = VisionCoordinates.pixelBox(b, width: region.width, height: region.height)
            let angle = -(observation.roll?.doubleValue ?? 0)
            guard angle.isFinite else { throw VNError(.invalidArgument, "input face observation has a non-finite roll") }
            let roi = ROI.rect(box: box, angle: angle).transformed(by: .faceMesh)
            return try landmarker.landmarks(in: region, roi: roi)
        }
    }
}

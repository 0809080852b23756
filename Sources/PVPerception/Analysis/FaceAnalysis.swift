import PVCore
import PVImaging
import PVThreads

/// What the analysis knows of one face: its detection and (when computed) its mesh, in pixels of an image of
/// `width × height`. Requests keep it with their results, so that later requests on the same image start from it.
package struct FaceRecord: Sendable {
    package var detection: Detection?
    package var mesh: FaceMesh?
    package var width: Int
    package var height: Int
    /// The short-range detector's own detection of this face, when it found it: the crop the landmarks run on.
    package var shortRange: Detection?

    package init(detection: Detection?, mesh: FaceMesh?, width: Int, height: Int, shortRange: Detection? = nil) {
        self.detection = detection
        self.mesh = mesh
        self.width = width
        self.height = height
        self.shortRange = shortRange
    }
}

/// The face work on one image: detections (with and without the small-face tiles), the first mesh per detection and
/// the iris-refining meshes, each computed at most once however many face requests ask.
///
/// Stages, as they run:
/// 1. detection: the full-range and short-range passes (and tiles) side by side on the job queue;
/// 2. as soon as the short-range faces are known (when meshes are wanted), the first mesh on each short-range crop
///    and, when landmarks will follow, the attention mesh there too; where the attention mesh doubts a face that the
///    plain mesh finds, the attention mesh on the plain mesh's region follows. The full-range pass's thread joins
///    these jobs when it ends.
/// 3. per detection (largest score first), the first mesh: the short-range crop's, else one on the merged detection.
package final class FaceAnalysis: Sendable {
    /// Most faces one analysis reports.
    package static let maximumFaces = 64

    /// The upright image analysed (a request's region).
    package let image: PixelBuffer

    private struct State {
        var detections: [Bool: (all: [Detection], shortRange: [Detection])] = [:]
        var firstMeshes: [Bool: [Int: FaceMesh?]] = [:]
        var refined: [RotatedRect: FaceMesh?] = [:]
        /// The attention mesh on short-range crops (`nil` where it doubted the face).
        var onShortRangeCrop: [RotatedRect: FaceMesh?] = [:]
        /// The same, run early beside the detectors (before the first mesh it measures its spread from is chosen).
        var attentionEarly: [RotatedRect: FaceMesh?] = [:]
    }

    private let state = Locked(State())

    package init(image: PixelBuffer) {
        self.image = image
    }

    /// A face found by ``faces(withMeshes:smallFaces:landmarksToFollow:)``.
    package struct Finding: Sendable {
        package let detection: Detection
        /// The short-range detector's detection of the same face, when it found it.
        package let shortRange: Detection?
        /// The first mesh (only with meshes); nil where the mesh model found no face.
        package let mesh: FaceMesh?
    }

    /// The faces of the image, by descending score, at most ``maximumFaces``.
    ///
    /// With `withMeshes`, the face mesh runs on every detection, on the short-range detector's crop of the face when
    /// that detector found it (MediaPipe's crop), else on the merged detection's; a face whose mesh box overlaps an
    /// earlier face's by more than half is dropped, as is a detection the mesh rejects (unless smaller than
    /// ``smallestFaceToConfirm``) and one that holds most of an earlier face with more around it. With `landmarksToFollow`, the attention meshes that the landmarks
    /// will need start early, beside the detectors.
    package func faces(withMeshes: Bool, smallFaces: Bool = false, landmarksToFollow: Bool = false) throws -> [Finding] {
        let plain = try Pipelines.faceLandmarker(irises: false)
        let refiner = landmarksToFollow ? try Pipelines.faceLandmarker(irises: true) : nil
        let early = EarlyMeshes()
        let detections: [Detection], shortRange: [Detection]
        if let known = state.withLock({ $0.detections[smallFaces] }) {
            (detections, shortRange) = known
        } else {
            let onShortRange = withMeshes ? earlyMeshJobs(plain: plain, refiner: refiner, into: early) : nil
            (detections, shortRange) = try plain.detector.detectWithShortRange(
                in: image, tiling: smallFaces ? .grid2x2 : nil, onShortRange: onShortRange)
            state.withLock { $0.detections[smallFaces] = (detections, shortRange) }
        }
        let earlyMeshes = early.meshes.withLock { $0 }
        var result: [Finding] = []
        var meshBoxes: [BoundingBox] = []
        for (index, detection) in detections.enumerated() {
            if result.count >= Self.maximumFaces { break }
            let k = Self.shortRangeIndex(of: detection, among: shortRange)
            guard withMeshes else {
                result.append(Finding(detection: detection, shortRange: k.map { shortRange[$0] }, mesh: nil))
                continue
            }
            let mesh = try firstMesh(index, of: detection, shortRange: k.map { ($0, shortRange[$0]) }, smallFaces: smallFaces,
                                     early: earlyMeshes, by: plain)
            // A box around a face already found, with more around it (a hand and a phone beside the face), is not a
            // second face, whatever the mesh makes of it.
            if meshBoxes.contains(where: { Self.holdsMost(of: $0, detection.box) }) { continue }
            if let m = mesh {
                let mb = m.meshBoundingBox
                if meshBoxes.contains(where: { $0.intersectionOverUnion(with: mb) > 0.5 }) { continue }
                meshBoxes.append(mb)
            } else if min(detection.box.width, detection.box.height) >= Self.smallestFaceToConfirm {
                // The mesh found no face in a crop large enough for it to see one: a balloon, a torso, a shadow.
                continue
            }
            result.append(Finding(detection: detection, shortRange: k.map { shortRange[$0] }, mesh: mesh))
        }
        return result
    }

    /// The side (pixels) from which a detection must be confirmed by the face mesh to count as a face. Below it the
    /// crop, enlarged about six times to the mesh model's 192 px, is too blurred for the mesh's face test, which
    /// rejects real faces there (a 31 px face in a crowd, on the evaluation sets), so the detector's word stands.
    package static let smallestFaceToConfirm = 40.0

    /// Whether `box` holds at least 70 % of `face` while being larger: the same face seen with what surrounds it.
    static func holdsMost(of face: BoundingBox, _ box: BoundingBox) -> Bool {
        guard box.area > face.area, let common = face.intersection(with: box) else { return false }
        return common.area >= 0.7 * face.area
    }

    /// The first mesh of detection `index`: the short-range crop's (computed early, or now), else, where the mesh
    /// rejects that crop, the merged detection's.
    private func firstMesh(
        _ index: Int, of detection: Detection, shortRange: (index: Int, detection: Detection)?, smallFaces: Bool,
        early: [Int: FaceMesh?], by landmarker: FaceLandmarker
    ) throws -> FaceMesh? {
        if let known = state.withLock({ $0.firstMeshes[smallFaces]?[index] }) { return known }
        var mesh: FaceMesh?
        if let (k, s) = shortRange {
            mesh = try early[k] ?? Self.mesh(on: FaceLandmarker.roi(for: s), in: image, by: landmarker)
        }
        if mesh == nil {
            mesh = try Self.mesh(on: FaceLandmarker.roi(for: detection), in: image, by: landmarker)
        }
        state.withLock { [mesh] in $0.firstMeshes[smallFaces, default: [:]][index] = .some(mesh) }
        return mesh
    }

    /// The jobs started on the short-range faces as soon as they are known: the first mesh on each crop (into
    /// `early`, by short-range index) and, with a `refiner`, the attention mesh there too; where that one doubts a face
    /// that the plain mesh finds, the attention mesh on the plain mesh's region follows. The attention meshes, longer,
    /// are queued first.
    private func earlyMeshJobs(plain: FaceLandmarker, refiner: FaceLandmarker?, into early: EarlyMeshes)
        -> @Sendable ([Detection], JobQueue) throws -> Void
    {
        let image = self.image
        return { [self] faces, queue in
            let rois = faces.prefix(Self.maximumFaces).map { FaceLandmarker.roi(for: $0) }
            // Per short-range face, what its two early meshes gave.
            let both = Locked<[Int: (attention: FaceMesh??, plain: FaceMesh??)]>([:])
            @Sendable func settle(_ k: Int, attention: FaceMesh?? = nil, plain: FaceMesh?? = nil, queue: JobQueue) {
                let ready: FaceMesh? = both.withLock { s in
                    var entry = s[k] ?? (nil, nil)
                    if let attention { entry.attention = attention }
                    if let plain { entry.plain = plain }
                    s[k] = entry
                    guard case .some(.none) = entry.attention, case .some(.some(let first)) = entry.plain else { return nil }
                    return first
                }
                guard let first = ready, let refiner else { return }
                queue.add { [self] _ in _ = try self.refined(from: first, by: refiner) }
            }
            if let refiner {
                for (k, roi) in rois.enumerated() {
                    queue.add({ [self] queue in
                        guard roi.hasSampleableCentreAndSide else { return }
                        let found = try refiner.attentionLandmarks(in: image, roi: roi)
                        state.withLock { $0.attentionEarly[roi] = .some(found) }
                        settle(k, attention: .some(found), queue: queue)
                    }, mayAddJobs: true)
                }
            }
            for (k, roi) in rois.enumerated() {
                queue.add({ queue in
                    let mesh = try Self.mesh(on: roi, in: image, by: plain)
                    early.meshes.withLock { $0[k] = .some(mesh) }
                    settle(k, plain: .some(mesh), queue: queue)
                }, mayAddJobs: refiner != nil)
            }
        }
    }

    /// The first meshes made early, by short-range index.
    private final class EarlyMeshes: Sendable {
        let meshes = Locked<[Int: FaceMesh?]>([:])
    }

    /// The index of the short-range detection that is `detection` (IoU above 0.5), if the short-range model found
    /// that face.
    static func shortRangeIndex(of detection: Detection, among shortRange: [Detection]) -> Int? {
        shortRange.indices.filter { shortRange[$0].box.intersectionOverUnion(with: detection.box) > 0.5 }
            .max { shortRange[$0].box.intersectionOverUnion(with: detection.box) < shortRange[$1].box.intersectionOverUnion(with: detection.box) }
    }

    /// `landmarker`'s mesh on `roi`, or `nil` when the ROI cannot be sampled (not finite, or empty) or the mesh
    /// finds no face there.
    static func mesh(on roi: RotatedRect, in image: PixelBuffer, by landmarker: FaceLandmarker) throws -> FaceMesh? {
        guard roi.hasSampleableCentreAndSide else { return nil }
        return try landmarker.landmarks(in: image, roi: roi)
    }

    /// The iris-refining mesh on the ROI `first` defines (MediaPipe's tracking ROI, which aligns the crop with the face
    /// better than a detector's box, as the eyes and irises need), with its spread from `first`; `first` refined by
    /// the iris model where that mesh finds no face.
    private func refined(from first: FaceMesh, by landmarker: FaceLandmarker) throws -> FaceMesh? {
        let roi = FaceLandmarker.roi(for: first.landmarks)
        if let known = state.withLock({ $0.refined[roi] }) { return known }
        let refined = try landmarker.landmarks(in: image, roi: roi)?.measuringSpread(from: first)
            ?? landmarker.refiningIrises(first, in: image)
        state.withLock { $0.refined[roi] = .some(refined) }
        return refined
    }

    /// Every face's mesh with refined lips and irises: the faces of ``faces(withMeshes:smallFaces:landmarksToFollow:)``
    /// (whole-image search), their meshes as face landmarks find them (``mesh(of:irises:)``); faces the mesh model
    /// rejects are left out.
    package func refinedMeshes() throws -> [FaceMesh] {
        try faces(withMeshes: true, landmarksToFollow: true).compactMap { finding in
            let record = FaceRecord(
                detection: finding.detection, mesh: finding.mesh, width: image.width, height: image.height,
                shortRange: finding.shortRange)
            return try mesh(of: record, irises: true) ?? nil
        }
    }

    /// The mesh (with irises when `irises`) of a face this analysis or an earlier one on an image of the same size
    /// recorded: its mesh as is (no irises); with irises, the attention mesh on the short-range detector's crop of the
    /// face when that detector found it, else on the ROI the first mesh defines; or, without a mesh, run from its
    /// detection. nil when the record is of another image size or has neither (use ``mesh(box:roll:irises:)``), and
    /// `.some(nil)` when the mesh model finds no face.
    package func mesh(of record: FaceRecord, irises: Bool) throws -> FaceMesh?? {
        guard record.width == image.width, record.height == image.height else { return nil }
        let landmarker = try Pipelines.faceLandmarker(irises: irises)
        if irises, let s = record.shortRange {
            let roi = FaceLandmarker.roi(for: s)
            let refined: FaceMesh?
            if let known = state.withLock({ $0.onShortRangeCrop[roi] }) {
                refined = known
            } else {
                let early = state.withLock { $0.attentionEarly[roi] }
                let found = try early ?? landmarker.attentionLandmarks(in: image, roi: roi)
                refined = found.map { f in record.mesh.map { f.measuringSpread(from: $0) } ?? f }
                state.withLock { $0.onShortRangeCrop[roi] = .some(refined) }
            }
            if let refined { return .some(refined) }
        }
        if let m = record.mesh {
            guard irises else { return .some(m) }
            return .some(try refined(from: m, by: landmarker))
        }
        if let d = record.detection {
            return .some(try landmarker.landmarks(in: image, roi: FaceLandmarker.roi(for: d)))
        }
        return nil
    }

    /// The mesh on a ROI built from a face box in pixels (×1.5, square), levelled by its roll (radians, clockwise
    /// positive as the image is shown); nil when the mesh model finds no face there.
    package func mesh(box: BoundingBox, roll: Double, irises: Bool) throws -> FaceMesh? {
        let roi = ROI.rect(box: box, angle: -roll).transformed(by: .faceMesh)
        return try Pipelines.faceLandmarker(irises: irises).landmarks(in: image, roi: roi)
    }
}

import Foundation
import PVImaging
import PVPerception
import Synchronization

/// What the three face requests share: the loaded pipelines, face detection as the rectangles request does it,
/// the mesh for a given observation, and coordinate conversion.
enum VNFacePipeline {
    private static let cache = Mutex<[Bool: FaceLandmarker]>([:])

    /// The face landmarker (models load once per process), with or without the iris stage.
    static func landmarker(irises: Bool) throws -> FaceLandmarker {
        if let hit = cache.withLock({ $0[irises] }) { return hit }
        var options = FaceLandmarker.Options()
        options.refineIrises = irises
        let made = try FaceLandmarker(options: options)
        return cache.withLock { c in
            if let raced = c[irises] { return raced }
            c[irises] = made
            return made
        }
    }

    /// Most faces one request reports.
    static let maximumFaces = 64

    /// A pixel box (top-left origin) as a normalized rect with a lower-left origin.
    static func normalizedRect(_ b: BoundingBox, width: Int, height: Int) -> CGRect {
        let W = Double(width), H = Double(height)
        return CGRect(x: b.xMin / W, y: 1 - b.yMax / H, width: b.width / W, height: b.height / H)
    }

    /// A normalized lower-left rect as a pixel box (top-left origin).
    static func pixelBox(_ r: CGRect, width: Int, height: Int) -> BoundingBox {
        let W = Double(width), H = Double(height)
        return BoundingBox(
            xMin: Double(r.minX) * W, yMin: (1 - Double(r.maxY)) * H, xMax: Double(r.maxX) * W, yMax: (1 - Double(r.minY)) * H)
    }

    /// Runs `body`, reporting pipeline errors as Vision errors.
    static func run<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let e as PerceptionError {
            throw VNError(e.code == .invalidArgument ? .invalidArgument : .internalError, e.message, underlying: e)
        }
    }

    /// Face detection as ``VNDetectFaceRectanglesRequest`` does it at `revision`, on `region`.
    ///
    /// Revision 3 runs the face mesh on every detection: the box becomes the mesh's extent and roll, yaw and
    /// pitch come from the mesh (``HeadPose/init(mesh:)``); a detection the mesh rejects keeps the detector's
    /// box (grown to the mesh's usual extent) and gets roll and yaw from its keypoints, pitch nil. Revision 2
    /// reports the detector's box with roll and yaw from the keypoints rounded to multiples of π/4; revision 1
    /// only the box.
    static func detectFaces(in region: PixelBuffer, revision: Int) throws -> [VNFaceObservation] {
        let landmarker = try landmarker(irises: false)
        let detections = try run { try landmarker.detector.detect(in: region) }
        let W = region.width, H = region.height
        var result: [VNFaceObservation] = []
        var meshBoxes: [BoundingBox] = []
        for detection in detections {
            if result.count >= maximumFaces { break }
            let score = VNConfidence(detection.score)
            var box = detection.box
            var roll: NSNumber?, yaw: NSNumber?, pitch: NSNumber?
            var mesh: FaceMesh?
            switch revision {
            case 3:
                let roi = FaceLandmarker.roi(for: detection)
                if roi.width > 0, roi.width.isFinite, roi.centerX.isFinite, roi.centerY.isFinite {
                    mesh = try run { try landmarker.landmarks(in: region, roi: roi) }
                }
                if let m = mesh {
                    let mb = m.meshBoundingBox
                    if meshBoxes.contains(where: { $0.intersectionOverUnion(with: mb) > 0.5 }) { continue }
                    meshBoxes.append(mb)
                    box = mb
                    let pose = m.headPose
                    (roll, yaw, pitch) = (NSNumber(value: pose.roll), NSNumber(value: pose.yaw), NSNumber(value: pose.pitch))
                } else {
                    box = grownToMeshExtent(detection.box)
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
                    boundingBox: normalizedRect(box, width: W, height: H), confidence: score, requestRevision: revision,
                    roll: roll, yaw: yaw, pitch: pitch, landmarks: nil, faceCaptureQuality: nil,
                    source: FaceSource(detection: detection, mesh: mesh, width: W, height: H)))
        }
        return result
    }

    /// The detector's box grown about its centre to the size the mesh's extent usually has (wider and taller:
    /// the mesh reaches the hairline and the cheeks' outline).
    static func grownToMeshExtent(_ b: BoundingBox) -> BoundingBox {
        let c = b.center, w = b.width * meshExtentScale.x, h = b.height * meshExtentScale.y
        return BoundingBox(xMin: c.x - w / 2, yMin: c.y - h / 2, xMax: c.x + w / 2, yMax: c.y + h / 2)
    }

    static let meshExtentScale = SIMD2<Double>(1.0, 1.0)

    /// The mesh (with irises when `irises`) for an observation on `region`: reused or re-run from the
    /// detection when the observation came from this pipeline on an image of the same size, otherwise run on a
    /// ROI built from the observation's box (×1.5, square) levelled by its roll. `nil` when the mesh model
    /// finds no face there.
    static func mesh(for observation: VNFaceObservation, in region: PixelBuffer, irises: Bool) throws -> FaceMesh? {
        let landmarker = try landmarker(irises: irises)
        return try run {
            if let source = observation.source, source.width == region.width, source.height == region.height {
                if let m = source.mesh {
                    return irises ? try landmarker.refiningIrises(m, in: region) : m
                }
                if let d = source.detection {
                    return try landmarker.landmarks(in: region, roi: FaceLandmarker.roi(for: d))
                }
            }
            let b = observation.boundingBox
            guard b.width > 0, b.height > 0, b.minX.isFinite, b.minY.isFinite, b.width.isFinite, b.height.isFinite else {
                throw VNError(.invalidArgument, "input face observation has an empty or non-finite boundingBox \(b)")
            }
            let box = pixelBox(b, width: region.width, height: region.height)
            let angle = -(observation.roll?.doubleValue ?? 0)
            guard angle.isFinite else { throw VNError(.invalidArgument, "input face observation has a non-finite roll") }
            let roi = ROI.rect(box: box, angle: angle).transformed(by: .faceMesh)
            return try landmarker.landmarks(in: region, roi: roi)
        }
    }
}

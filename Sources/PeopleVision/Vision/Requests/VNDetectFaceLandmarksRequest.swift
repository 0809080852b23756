import Foundation
import PVCore
import PVImaging
import PVPerception

/// Requests that can start from faces found earlier, as Apple's `VNFaceObservationAccepting`.
public protocol VNFaceObservationAccepting: AnyObject {
    /// Faces to analyse; when nil the request finds the faces itself first.
    var inputFaceObservations: [VNFaceObservation]? { get set }
}

/// Finds face landmarks, as Apple's `VNDetectFaceLandmarksRequest` (revisions 1–3, default 3).
///
/// The landmarks come from MediaPipe's 468-point face mesh with both eyes refined by its iris model
/// (pupils are the iris centres). Each result is a ``VNFaceObservation`` with ``VNFaceObservation/landmarks``
/// set; its box, confidence and pose are those of the input observation; when the request finds the faces
/// itself (as ``VNDetectFaceRectanglesRequest`` revision 3 does), box and pose come from the final mesh, so
/// every point lies inside the box. Points are normalized to that box (lower-left origin).
///
/// Constellations: `.constellation76Points` (revision 3 only) and `.constellation65Points`; left at
/// `.constellationNotDefined`, revision 3 produces 76 points and revisions 1–2 produce 65. Which mesh points
/// form each region is documented on the regions' table below; the counts are stable:
///
/// | region | 65 | 76 | classification |
/// |---|---|---|---|
/// | `allPoints` | 65 | 76 | disconnected |
/// | `leftEyebrow`, `rightEyebrow` | 4 | 6 | open path |
/// | `leftEye`, `rightEye` | 8 | 8 | closed path |
/// | `outerLips` | 10 | 14 | closed path |
/// | `innerLips` | 6 | 6 | closed path |
/// | `faceContour` | 11 | 17 | open path |
/// | `nose` | 7 | 7 | closed path |
/// | `noseCrest` | 3 | 3 | open path |
/// | `medianLine` | 3 | 5 | open path |
/// | `leftPupil`, `rightPupil` | 1 | 1 | closed path |
///
/// With ``inputFaceObservations`` no detection runs: the mesh runs on a region built from each observation's
/// box (×1.5, levelled by its `roll`); an observation where the mesh finds no face comes back with
/// `landmarks` nil, and each result keeps its input's `uuid`. As a PeopleVision extension, ``VNFaceLandmarks2D/faceMesh`` holds all 478 mesh points.
///
/// ```swift
/// let request = VNDetectFaceLandmarksRequest()
/// try VNImageRequestHandler(url: url).perform([request])
/// let pupil = request.results?.first?.landmarks?.leftPupil?.normalizedPoints.first
/// ```
public final class VNDetectFaceLandmarksRequest: VNImageBasedRequest, VNFaceObservationAccepting, @unchecked Sendable {
    private struct Settings {
        var inputs: [VNFaceObservation]?
        var constellation: VNRequestFaceLandmarksConstellation = .constellationNotDefined
    }
    private let settings = Locked(Settings())

    /// Faces to analyse; nil (default) finds them first.
    public var inputFaceObservations: [VNFaceObservation]? {
        get { settings.withLock { $0.inputs } }
        set { settings.withLock { $0.inputs = newValue } }
    }

    /// The point set to produce. Default `.constellationNotDefined` (76 points at revision 3, else 65).
    public var constellation: VNRequestFaceLandmarksConstellation {
        get { settings.withLock { $0.constellation } }
        set { settings.withLock { $0.constellation = newValue } }
    }

    /// The faces, with landmarks.
    public var results: [VNFaceObservation]? { storedResults as? [VNFaceObservation] }

    public override class var supportedRevisions: IndexSet {
        IndexSet(integersIn: 1...3)  // revision 1 is deprecated, still supported
    }

    /// Whether a revision can produce a constellation: 65 points with every revision, 76 only with revision 3.
    public class func revision(_ requestRevision: Int, supportsConstellation constellation: VNRequestFaceLandmarksConstellation) -> Bool {
        guard supportedRevisions.contains(requestRevision) else { return false }
        switch constellation {
        case .constellationNotDefined, .constellation65Points: return true
        case .constellation76Points: return requestRevision >= 3
        }
    }

    override func validate() throws {
        try super.validate()
        guard Self.revision(revision, supportsConstellation: constellation) else {
            throw NSError(vision: .invalidOption, "revision \(revision) does not support \(constellation); the 76-point constellation needs revision 3")
        }
    }

    override func announce(to image: HandlerImage) {
        if inputFaceObservations == nil { (try? image.analysis(of: regionOfInterest))?.expectFaceLandmarks() }
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let analysis = try image.analysis(of: regionOfInterest)
        let region = analysis.image
        let (inputs, requested) = settings.withLock { ($0.inputs, $0.constellation) }
        let rev = revision
        let uses76 = requested == .constellation76Points || (requested == .constellationNotDefined && rev >= 3)
        let constellation = uses76 ? FaceLandmarkConstellation.points76 : .points65
        let faces = try inputs ?? FaceObservations.detect(in: analysis, revision: 3, landmarksToFollow: true)
        var meshes = try faces.map { try FaceObservations.mesh(for: $0, in: analysis, irises: true) }
        if let (sequence, time) = image.sequence {
            // In a sequence the landmarks are smoothed over the frames (the meshes found, in order).
            let found = meshes.indices.filter { meshes[$0] != nil }
            let smoothed = sequence.smoothed(found.map { meshes[$0]! }, for: self, timestamp: time)
            for (i, mesh) in zip(found, smoothed) { meshes[i] = mesh }
        }
        return zip(faces, meshes).map { face, mesh in
            // Faces this request found itself get the box and pose of their final mesh, so every landmark lies
            // inside the box; given observations keep theirs.
            var box = face.boundingBox
            var (roll, yaw, pitch) = (face.roll, face.yaw, face.pitch)
            if inputs == nil, let mesh {
                box = VisionCoordinates.rect(mesh.meshBoundingBox, width: region.width, height: region.height)
                let pose = mesh.headPose
                (roll, yaw, pitch) = (NSNumber(value: pose.roll), NSNumber(value: pose.yaw), NSNumber(value: pose.pitch))
            }
            let landmarks = mesh.map {
                VNFaceLandmarks2D(
                    mesh: $0, width: region.width, height: region.height, faceBoundingBox: box,
                    constellation: constellation, precisionEstimates: uses76, requestRevision: rev)
            }
            var source = face.source ?? FaceRecord(detection: nil, mesh: nil, width: region.width, height: region.height)
            if let mesh {
                source.mesh = mesh
                source.width = region.width
                source.height = region.height
            }
            return VNFaceObservation(
                boundingBox: box, confidence: face.confidence, requestRevision: rev, roll: roll, yaw: yaw, pitch: pitch,
                landmarks: landmarks, faceCaptureQuality: face.faceCaptureQuality, source: source, uuid: face.uuid)
        }
    }
}

/// Revision 1 of the face-landmarks request (65 points).
@available(*, deprecated, message: "use VNDetectFaceLandmarksRequestRevision3")
public let VNDetectFaceLandmarksRequestRevision1: Int = 1
/// Revision 2 of the face-landmarks request (65 points).
public let VNDetectFaceLandmarksRequestRevision2: Int = 2
/// Revision 3 of the face-landmarks request (65 or 76 points).
public let VNDetectFaceLandmarksRequestRevision3: Int = 3

import Foundation
import PVCore
import PVImaging
import PVPerception

/// Scores how well each face is captured, as Apple's `VNDetectFaceCaptureQualityRequest` (revisions 1–2,
/// default 2).
///
/// Fills ``VNFaceObservation/faceCaptureQuality`` with a score in [0, 1] that, like Apple's, is a
/// **comparative** measure for the same subject: of several photos of one person, the higher score is the
/// better capture. It is built from five measurements of the face (the engine's `FaceCaptureQuality` gives the
/// formulas): sharpness of the face crop, its exposure (brightness near mid-grey, enough contrast), head pose
/// (frontal is best), eye openness, and visibility (the mesh model's face presence, which drops when the face is
/// covered, and the share of the face inside the frame). Revisions 1, 2 and 3 compute the same score.
///
/// With ``inputFaceObservations`` no detection runs, and each result keeps its input's `uuid` (apps match the
/// scores to their faces by it); a face where the mesh finds nothing keeps a nil score.
///
/// ```swift
/// let request = VNDetectFaceCaptureQualityRequest()
/// try VNImageRequestHandler(url: url).perform([request])
/// let best = request.results?.max { ($0.faceCaptureQuality ?? 0) < ($1.faceCaptureQuality ?? 0) }
/// ```
public final class VNDetectFaceCaptureQualityRequest: VNImageBasedRequest, VNFaceObservationAccepting, @unchecked Sendable {
    private let inputs = Locked<[VNFaceObservation]?>(nil)

    /// Faces to score; nil (default) finds them first.
    public var inputFaceObservations: [VNFaceObservation]? {
        get { inputs.withLock { $0 } }
        set { inputs.withLock { $0 = newValue } }
    }

    /// The faces, with ``VNFaceObservation/faceCaptureQuality`` set.
    public var results: [VNFaceObservation]? { storedResults as? [VNFaceObservation] }

    public override class var supportedRevisions: IndexSet {
        IndexSet([
            VNDetectFaceCaptureQualityRequestRevision1, VNDetectFaceCaptureQualityRequestRevision2,
            VNDetectFaceCaptureQualityRequestRevision3,
        ])
    }

    override func announce(to image: HandlerImage) {
        if inputFaceObservations == nil { (try? image.analysis(of: regionOfInterest))?.expectFaceLandmarks() }
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let analysis = try image.analysis(of: regionOfInterest)
        let rev = revision
        let faces = try inputFaceObservations ?? FaceObservations.detect(in: analysis, revision: 3, landmarksToFollow: true)
        return try faces.map { face in
            let mesh = try FaceObservations.mesh(for: face, in: analysis, irises: true)
            let quality = try mesh.map { m in Float(try FaceCaptureQuality(face: m, in: analysis.image).score) }
            return VNFaceObservation(
                boundingBox: face.boundingBox, confidence: face.confidence, requestRevision: rev, roll: face.roll,
                yaw: face.yaw, pitch: face.pitch, landmarks: face.landmarks, faceCaptureQuality: quality, source: face.source,
                uuid: face.uuid)
        }
    }
}

/// Revision 1 of the capture-quality request.
public let VNDetectFaceCaptureQualityRequestRevision1: Int = 1
/// Revision 2 of the capture-quality request.
public let VNDetectFaceCaptureQualityRequestRevision2: Int = 2
/// Revision 3 of the capture-quality request (Apple's since iOS 17; the same score here).
public let VNDetectFaceCaptureQualityRequestRevision3: Int = 3

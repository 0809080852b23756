import Foundation
import PVCore
import PVImaging
import PVPerception

/// Finds faces, as Apple's `VNDetectFaceRectanglesRequest` (revisions 1–3, default 3).
///
/// Faces are found by MediaPipe's short-range and full-range face detectors together, so close-ups and small,
/// distant faces are both found (the engine's `FaceDetector` documents how the two are merged). Each result is a
/// ``VNFaceObservation`` with a normalized, lower-left `boundingBox` and the detector's `confidence`.
///
/// | revision | box | roll, yaw | pitch |
/// |---|---|---|---|
/// | 3 (default) | the extent of the face mesh (forehead to chin, cheek to cheek) | continuous, from the 3-D face mesh | continuous, from the mesh |
/// | 2 | the detector's box | from the detector's keypoints, rounded to multiples of π/4 | nil |
/// | 1 | the detector's box | nil | nil |
///
/// Revision 3 costs one face-mesh run per face on top of the two detectors. A face the mesh model rejects
/// (very small or blurred) is still reported, with the detector's box, roll and yaw from its keypoints and
/// pitch nil. `landmarks` is always nil.
///
/// ```swift
/// let request = VNDetectFaceRectanglesRequest()
/// try VNImageRequestHandler(url: url).perform([request])
/// for face in request.results ?? [] { print(face.boundingBox, face.roll ?? 0, face.yaw ?? 0, face.pitch ?? 0) }
/// ```
public final class VNDetectFaceRectanglesRequest: VNImageBasedRequest, @unchecked Sendable {
    private let smallFaces = Locked(false)

    /// PeopleVision extension: also search 2×2 overlapping tiles of the image with the full-range detector, which
    /// finds faces of about 2–5 % of the image's width that the whole-image passes miss (crowds, group photos).
    /// Costs four more detector runs. Default false.
    public var searchesForSmallFaces: Bool {
        get { smallFaces.withLock { $0 } }
        set { smallFaces.withLock { $0 = newValue } }
    }

    /// The faces.
    public var results: [VNFaceObservation]? { storedResults as? [VNFaceObservation] }

    public override class var supportedRevisions: IndexSet {
        IndexSet(integersIn: 1...3)  // revision 1 is deprecated, still supported
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let analysis = try image.analysis(of: regionOfInterest)
        return try FaceObservations.detect(
            in: analysis, revision: revision, smallFaces: searchesForSmallFaces,
            landmarksToFollow: !searchesForSmallFaces && analysis.faceLandmarksExpected)
    }
}

/// Revision 1 of the face-rectangles request (box only).
@available(*, deprecated, message: "use VNDetectFaceRectanglesRequestRevision3")
public let VNDetectFaceRectanglesRequestRevision1: Int = 1
/// Revision 2 of the face-rectangles request (adds coarse roll and yaw).
public let VNDetectFaceRectanglesRequestRevision2: Int = 2
/// Revision 3 of the face-rectangles request (continuous roll, yaw and pitch).
public let VNDetectFaceRectanglesRequestRevision3: Int = 3

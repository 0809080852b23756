import Foundation
import PVPerception

/// The abstract base of face landmarks, as Apple's `VNFaceLandmarks`.
open class VNFaceLandmarks: NSObject, VNRequestRevisionProviding, @unchecked Sendable {
    /// Confidence in the landmarks, 0 (none) … 1 (full): the mesh model's face-presence probability.
    public let confidence: VNConfidence
    /// The revision of the request that produced them.
    public let requestRevision: Int

    init(confidence: VNConfidence, requestRevision: Int) {
        self.confidence = confidence
        self.requestRevision = requestRevision
        super.init()
    }
}

/// A face's 2-D landmarks, as Apple's `VNFaceLandmarks2D`: the 65- or 76-point constellation split into
/// regions (see ``VNDetectFaceLandmarksRequest`` for which points each region holds), plus, as a PeopleVision
/// extension, the whole face mesh (``faceMesh``).
///
/// Every point is normalized to the face observation's `boundingBox`, lower-left origin; "left" and "right"
/// are the subject's own (the left eye is on the image's right in an unmirrored photo).
public final class VNFaceLandmarks2D: VNFaceLandmarks, @unchecked Sendable {
    /// Every point of the constellation (65 or 76), unconnected.
    public let allPoints: VNFaceLandmarkRegion2D?
    /// Left cheek → chin → right cheek.
    public let faceContour: VNFaceLandmarkRegion2D?
    /// The subject's left eye outline.
    public let leftEye: VNFaceLandmarkRegion2D?
    /// The subject's right eye outline.
    public let rightEye: VNFaceLandmarkRegion2D?
    /// The subject's left eyebrow.
    public let leftEyebrow: VNFaceLandmarkRegion2D?
    /// The subject's right eyebrow.
    public let rightEyebrow: VNFaceLandmarkRegion2D?
    /// The nose outline.
    public let nose: VNFaceLandmarkRegion2D?
    /// The centre crest of the nose.
    public let noseCrest: VNFaceLandmarkRegion2D?
    /// The vertical centre line of the face.
    public let medianLine: VNFaceLandmarkRegion2D?
    /// The outside of the lips.
    public let outerLips: VNFaceLandmarkRegion2D?
    /// The space between the lips.
    public let innerLips: VNFaceLandmarkRegion2D?
    /// The subject's left pupil (one point, the iris centre).
    public let leftPupil: VNFaceLandmarkRegion2D?
    /// The subject's right pupil (one point, the iris centre).
    public let rightPupil: VNFaceLandmarkRegion2D?
    /// PeopleVision extension: the whole face mesh, 478 points (MediaPipe's 468-point topology, MODELS.md §12.2,
    /// with the iris-refined eyes, then 468–472 the right iris and 473–477 the left), unconnected.
    public let faceMesh: VNFaceLandmarkRegion2D?

    /// A point's precision estimate in (0, 1]: the mesh's face presence times `exp(−spread / (0.05 · d))`, where
    /// `spread` is how far the point lies from the first mesh's (``FaceMesh/pointSpread``: the plain mesh of
    /// revision 3, on the same crop or the detector's) and `d` the
    /// distance between the eye corners' midpoints; a pupil takes its eye corners' spread. Just the presence when
    /// the mesh ran once.
    static func precision(of meshIndex: Int, in mesh: FaceMesh) -> Float {
        guard let spread = mesh.pointSpread, spread.count == FaceMeshTopology.meshCount else { return Float(mesh.presence) }
        let right = FaceMeshTopology.rightEyeCorners, left = FaceMeshTopology.leftEyeCorners
        func mid(_ c: (Int, Int)) -> SIMD2<Double> { (mesh.landmarks[c.0].position + mesh.landmarks[c.1].position) / 2 }
        let d = mid(right) - mid(left)
        let scale = 0.05 * max(1e-6, (d * d).sum().squareRoot())
        let moved: Double
        switch meshIndex {
        case FaceMeshTopology.rightIrisCenter: moved = (spread[right.0] + spread[right.1]) / 2
        case FaceMeshTopology.leftIrisCenter: moved = (spread[left.0] + spread[left.1]) / 2
        default: moved = meshIndex < spread.count ? spread[meshIndex] : (spread.reduce(0, +) / Double(spread.count))
        }
        return Float(mesh.presence * exp(-moved / scale))
    }

    /// Builds the regions from a face mesh in pixels of an image of `width × height`.
    init(
        mesh: FaceMesh, width: Int, height: Int, faceBoundingBox box: CGRect, constellation: FaceLandmarkConstellation,
        precisionEstimates: Bool, requestRevision: Int
    ) {
        let W = Double(width), H = Double(height)
        let bw = Double(box.width), bh = Double(box.height), bx = Double(box.minX), by = Double(box.minY)
        func normalized(_ p: SIMD2<Double>) -> CGPoint {
            CGPoint(x: (p.x / W - bx) / bw, y: ((1 - p.y / H) - by) / bh)
        }
        func meshPoint(_ i: Int) -> SIMD2<Double> {
            if i == FaceMeshTopology.rightIrisCenter { return mesh.rightPupil }
            if i == FaceMeshTopology.leftIrisCenter { return mesh.leftPupil }
            return mesh.landmarks[i].position
        }
        let all = constellation.allPoints.map { normalized(meshPoint($0)) }
        let estimate = Float(mesh.presence)
        let estimates = precisionEstimates ? constellation.allPoints.map { Self.precision(of: $0, in: mesh) } : []
        func region(_ indices: [Int], _ classification: VNPointsClassification) -> VNFaceLandmarkRegion2D {
            VNFaceLandmarkRegion2D(
                normalizedPoints: indices.map { all[$0] },
                precisionEstimates: precisionEstimates ? indices.map { estimates[$0] } : nil,
                classification: classification, faceBoundingBox: box, requestRevision: requestRevision)
        }
        func named(_ r: FaceLandmarkConstellation.Region) -> VNFaceLandmarkRegion2D? {
            constellation.regions[r].map { region($0, r.classification) }
        }
        allPoints = region(Array(all.indices), .disconnected)
        faceContour = named(.faceContour)
        leftEye = named(.leftEye)
        rightEye = named(.rightEye)
        leftEyebrow = named(.leftEyebrow)
        rightEyebrow = named(.rightEyebrow)
        nose = named(.nose)
        noseCrest = named(.noseCrest)
        medianLine = named(.medianLine)
        outerLips = named(.outerLips)
        innerLips = named(.innerLips)
        leftPupil = named(.leftPupil)
        rightPupil = named(.rightPupil)
        faceMesh = VNFaceLandmarkRegion2D(
            normalizedPoints: mesh.landmarks.map { normalized($0.position) }, precisionEstimates: nil,
            classification: .disconnected, faceBoundingBox: box, requestRevision: requestRevision)
        super.init(confidence: estimate, requestRevision: requestRevision)
    }
}

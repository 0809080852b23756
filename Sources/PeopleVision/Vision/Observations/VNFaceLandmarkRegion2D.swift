import Foundation

/// How a landmark region's points connect, as Apple's `VNPointsClassification`.
public enum VNPointsClassification: Int, Sendable {
    /// Separate points.
    case disconnected = 0
    /// A polyline, not closed.
    case openPath = 1
    /// A polygon.
    case closedPath = 2
}

/// The abstract base of landmark regions, as Apple's `VNFaceLandmarkRegion`.
open class VNFaceLandmarkRegion: NSObject, VNRequestRevisionProviding, @unchecked Sendable {
    /// Number of points; 0 when nothing was found.
    public let pointCount: Int
    /// The revision of the request that produced the region.
    public let requestRevision: Int

    init(pointCount: Int, requestRevision: Int) {
        self.pointCount = pointCount
        self.requestRevision = requestRevision
        super.init()
    }
}

/// One face region's 2-D points, as Apple's `VNFaceLandmarkRegion2D`.
///
/// Points are normalized to the face observation's `boundingBox` with a lower-left origin, as Apple's are:
/// `(0, 0)` is the box's lower-left corner, `(1, 1)` its upper-right.
///
/// ```swift
/// if let pupil = face.landmarks?.leftPupil {
///     let p = pupil.pointsInImage(imageSize: CGSize(width: 1920, height: 1080))[0]   // pixels, lower-left
/// }
/// ```
public final class VNFaceLandmarkRegion2D: VNFaceLandmarkRegion, @unchecked Sendable {
    /// The points, normalized to the face box, lower-left origin.
    public let normalizedPoints: [CGPoint]
    /// One estimate per point with the 76-point constellation, nil with the 65-point one (as Apple's): in (0, 1],
    /// higher for a point the model places more consistently — the mesh's face presence times
    /// `exp(−moved / (0.05 · eye distance))`, where `moved` is how far the point shifted between the request's two
    /// mesh passes (the second runs on the crop the first one defines).
    public let precisionEstimatesPerPoint: [Float]?
    /// How the points connect.
    public let pointsClassification: VNPointsClassification
    private let faceBoundingBox: CGRect

    init(
        normalizedPoints: [CGPoint], precisionEstimates: [Float]?, classification: VNPointsClassification,
        faceBoundingBox: CGRect, requestRevision: Int
    ) {
        self.normalizedPoints = normalizedPoints
        precisionEstimatesPerPoint = precisionEstimates
        pointsClassification = classification
        self.faceBoundingBox = faceBoundingBox
        super.init(pointCount: normalizedPoints.count, requestRevision: requestRevision)
    }

    /// The points in pixels of an image of `imageSize` (lower-left origin), through the face's bounding box.
    public func pointsInImage(imageSize: CGSize) -> [CGPoint] {
        let b = faceBoundingBox
        return normalizedPoints.map { p in
            CGPoint(
                x: (b.minX + p.x * b.width) * imageSize.width, y: (b.minY + p.y * b.height) * imageSize.height)
        }
    }
}

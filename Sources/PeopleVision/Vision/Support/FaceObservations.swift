import Foundation
import PVImaging
import PVPerception

/// Face observations from an image's face analysis, as the three face requests report them.
enum FaceObservations {
    /// Face detection as ``VNDetectFaceRectanglesRequest`` reports it at `revision`.
    ///
    /// Revision 3 runs the face mesh on every detection (``FaceAnalysis/faces(withMeshes:smallFaces:landmarksToFollow:)``):
    /// the box becomes the mesh's extent and roll, yaw and pitch come from the mesh (``HeadPose/init(mesh:)``). A
    /// detection the mesh rejects is no face, unless too small for the mesh to judge
    /// (``FaceAnalysis/smallestFaceToConfirm``): it keeps the detector's box, roll and yaw from its keypoints, pitch nil.
    /// Revision 2 reports the detector's box with roll and yaw from the keypoints rounded to multiples of π/4;
    /// revision 1 only the box.
    static func detect(in analysis: ImageAnalysis, revision: Int, smallFaces: Bool = false, landmarksToFollow: Bool = false)
        throws -> [VNFaceObservation]
    {
        let findings = try analysis.faces.faces(
            withMeshes: revision == 3, smallFaces: smallFaces, landmarksToFollow: landmarksToFollow)
        let W = analysis.image.width, H = analysis.image.height
        return findings.map { finding in
            let detection = finding.detection
            var box = detection.box
            var roll: NSNumber?, yaw: NSNumber?, pitch: NSNumber?
            switch revision {
            case 3:
                if let m = finding.mesh {
                    box = m.meshBoundingBox
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
            return VNFaceObservation(
                boundingBox: VisionCoordinates.rect(box, width: W, height: H), confidence: VNConfidence(detection.score),
                requestRevision: revision, roll: roll, yaw: yaw, pitch: pitch, landmarks: nil, faceCaptureQuality: nil,
                source: FaceRecord(
                    detection: detection, mesh: finding.mesh, width: W, height: H, shortRange: finding.shortRange))
        }
    }

    /// The mesh (with irises when `irises`) for an observation: from the analysis's record of that face when the
    /// observation came from an analysis of an image of the same size, otherwise on a ROI built from the observation's
    /// box (×1.5, square) levelled by its roll. nil when the mesh model finds no face there.
    static func mesh(for observation: VNFaceObservation, in analysis: ImageAnalysis, irises: Bool) throws -> FaceMesh? {
        if let record = observation.source, let known = try analysis.faces.mesh(of: record, irises: irises) { return known }
        let b = observation.boundingBox
        guard b.width > 0, b.height > 0, b.minX.isFinite, b.minY.isFinite, b.width.isFinite, b.height.isFinite else {
            throw NSError(vision: .invalidArgument, "input face observation has an empty or non-finite boundingBox \(b)")
        }
        let roll = observation.roll?.doubleValue ?? 0
        guard roll.isFinite else { throw NSError(vision: .invalidArgument, "input face observation has a non-finite roll") }
        let box = VisionCoordinates.pixelBox(b, width: analysis.image.width, height: analysis.image.height)
        return try analysis.faces.mesh(box: box, roll: roll, irises: irises)
    }
}

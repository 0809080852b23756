import Foundation
import PeopleVision

/// The most prominent person's 3-D body pose (harness `bodies3d`: joints in metres relative to the root, x right,
/// y up, z toward the camera), drawn as the projected skeleton.
final class Bodies3DStep: AnalyzeStep {
    let request = VNDetectHumanBodyPose3DRequest()

    func perform(on handler: VNImageRequestHandler) throws {
        try handler.perform([request])
    }

    func write(into record: inout [String: Any], context: AnalyzeContext) throws {
        record["bodies3d"] = try Body3DRecords.records(request.results ?? [])
    }

    func draw(on canvas: inout Canvas, context: AnalyzeContext) throws {
        try Body3DRecords.draw(request.results ?? [], on: &canvas)
    }
}

/// 3-D body results for the command line.
enum Body3DRecords {
    /// Harness name of each joint.
    static let names: [(VNHumanBodyPose3DObservation.JointName, String)] = [
        (.topHead, "topHead"), (.centerHead, "centerHead"), (.centerShoulder, "centerShoulder"),
        (.leftShoulder, "leftShoulder"), (.rightShoulder, "rightShoulder"), (.spine, "spine"), (.leftElbow, "leftElbow"),
        (.rightElbow, "rightElbow"), (.leftWrist, "leftWrist"), (.rightWrist, "rightWrist"), (.root, "root"),
        (.leftHip, "leftHip"), (.rightHip, "rightHip"), (.leftKnee, "leftKnee"), (.rightKnee, "rightKnee"),
        (.leftAnkle, "leftAnkle"), (.rightAnkle, "rightAnkle"),
    ]

    /// `[{"bodyHeight", "heightEstimation", "joints": {name: [x, y, z]}, "rootPosition": [x, y, z], "cameraDistance"}]`:
    /// joints relative to the root and the root's position from the camera, in camera axes (x right, y up, z toward
    /// the camera); `heightEstimation` is `measured` (from depth) or `reference` (1.8 m).
    static func records(_ bodies: [VNHumanBodyPose3DObservation]) throws -> [[String: Any]] {
        try bodies.map { body in
            let root = try body.cameraRelativePosition(.root).columns.3
            var joints: [String: Any] = [:]
            for (name, key) in names {
                let p = try body.cameraRelativePosition(name).columns.3 - root
                joints[key] = [Double(p.x), Double(p.y), Double(p.z)]
            }
            let distance = (root.x * root.x + root.y * root.y + root.z * root.z).squareRoot()
            return [
                "bodyHeight": Double(body.bodyHeight), "joints": joints, "cameraDistance": Double(distance),
                "rootPosition": [Double(root.x), Double(root.y), Double(root.z)],
                "heightEstimation": body.heightEstimation == .measured ? "measured" : "reference",
            ]
        }
    }

    /// The skeleton (parent to child) projected onto the image.
    static func draw(_ bodies: [VNHumanBodyPose3DObservation], on canvas: inout Canvas) throws {
        for body in bodies {
            for (name, _) in names where name != .root {
                guard let parent = body.parentJointName(name) else { continue }
                let a = try body.pointInImage(name), b = try body.pointInImage(parent)
                canvas.line(canvas.point(normalized: SIMD2(a.x, a.y)), canvas.point(normalized: SIMD2(b.x, b.y)), color: .yellow, width: 3)
            }
        }
    }
}

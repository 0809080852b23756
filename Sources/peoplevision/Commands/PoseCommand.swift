import ArgumentParser
import Foundation
import PeopleVision
import PVImaging

/// `peoplevision pose IMAGE [--json] [--overlay OUT.png]`: every person's body pose and human rectangles.
struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Find every person's 2-D body pose (19 Vision joints) and human rectangles.",
        discussion: """
            Runs VNDetectHumanBodyPoseRequest and VNDetectHumanRectanglesRequest (upper-body and full-body boxes). \
            --json prints one JSON object in the evaluation harness's format (normalized coordinates, lower-left \
            origin, Vision's joint names) plus "humanRectangles"; otherwise a summary per person. --overlay draws \
            the skeletons and boxes on the image. --3d adds VNDetectHumanBodyPose3DRequest: the most prominent person's             17 joints in metres ("bodies3d" in JSON, relative to the root, x right, y up, z toward the camera; drawn             in yellow, projected). With depth (a HEIC's own, or --depth FILE: a 16-bit grey PNG in millimetres or a             PFM in metres, upright like the photo, any resolution of its aspect ratio) the person is measured:             "heightEstimation" says "measured", else "reference" (1.8 m).
            """)

    @Argument(help: "The input image (JPEG, PNG, HEIC, WebP).") var image: String
    @Flag(help: "Print the results as JSON.") var json = false
    @Option(help: "Write the image with the skeletons drawn on it (.png).") var overlay: String?
    @Flag(help: "Ignore EXIF orientation (analyse the pixels as stored).") var ignoreOrientation = false
    @Flag(name: .customLong("3d"), help: "Also the most prominent person's 3-D pose (17 joints, metres).") var threeD = false
    @Option(help: "A depth map for --3d: 16-bit grey PNG (millimetres) or PFM (metres).") var depth: String?

    func validate() throws {
        if depth != nil, !threeD { throw ValidationError("--depth is used by the 3-D pose: add --3d") }
        try Overlay.validate(overlay)
    }

    func run() throws {
        let url = URL(fileURLWithPath: image)
        let handler: VNImageRequestHandler
        if let depth {
            handler = try DepthInput.handler(photo: url, depth: try DepthInput.read(depth), ignoringOrientation: ignoreOrientation)
        } else {
            handler = ignoreOrientation ? VNImageRequestHandler(url: url, orientation: .up) : VNImageRequestHandler(url: url)
        }
        let bodies = VNDetectHumanBodyPoseRequest()
        let upper = VNDetectHumanRectanglesRequest()
        let full = VNDetectHumanRectanglesRequest()
        full.upperBodyOnly = false
        let body3D = VNDetectHumanBodyPose3DRequest()
        try handler.perform([bodies, upper, full] + (threeD ? [body3D] : []))
        let size = try handler.imageSize()
        let found = bodies.results ?? []
        let found3D = body3D.results ?? []
        if json {
            var record: [String: Any] = ["image": url.lastPathComponent, "width": size.width, "height": size.height]
            record["bodies"] = BodyRecords.records(found)
            record["humanRectangles"] = [
                "upperBody": BodyRecords.boxes(upper.results ?? []), "fullBody": BodyRecords.boxes(full.results ?? []),
            ]
            if threeD { record["bodies3d"] = try Body3DRecords.records(found3D) }
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("\(image): \(found.count) \(found.count == 1 ? "person" : "people") (\(size.width)×\(size.height))")
            for (k, body) in found.enumerated() {
                let joints = try body.recognizedPoints(.all).values.filter { $0.confidence >= BodyRecords.shownConfidence }.count
                let box = (full.results ?? []).count > k ? full.results![k].boundingBox : .zero
                print(String(format: "  person %d: confidence %.2f, %d/19 joints, full body box x %.3f y %.3f w %.3f h %.3f",
                    k + 1, body.confidence, joints, box.minX, box.minY, box.width, box.height))
            }
            for body in found3D {
                let root = try body.cameraRelativePosition(.root).columns.3
                let wrists = try [VNHumanBodyPose3DObservation.JointName.leftWrist, .rightWrist].map { try body.recognizedPoint($0).position.columns.3 }
                print(String(format: "  3D: root %.2f m from the camera (x %+.2f y %+.2f z %+.2f), height %.2f m (%@); "
                    + "wrists at (%+.2f, %+.2f, %+.2f) and (%+.2f, %+.2f, %+.2f) m from the root",
                    (root.x * root.x + root.y * root.y + root.z * root.z).squareRoot(), root.x, root.y, root.z, body.bodyHeight,
                    body.heightEstimation == .measured ? "measured" : "reference",
                    wrists[0].x, wrists[0].y, wrists[0].z, wrists[1].x, wrists[1].y, wrists[1].z))
            }
        }
        try Overlay.write(to: overlay, of: handler) { canvas in
            BodyRecords.draw(found, upper: upper.results ?? [], full: full.results ?? [], on: &canvas)
            try Body3DRecords.draw(found3D, on: &canvas)
        }
    }
}

/// Body-pose results in the harness's prediction format, and their drawing.
enum BodyRecords {
    /// Harness name of each Vision joint.
    static let names: [(VNHumanBodyPoseObservation.JointName, String)] = [
        (.nose, "nose"), (.leftEye, "leftEye"), (.rightEye, "rightEye"), (.leftEar, "leftEar"), (.rightEar, "rightEar"),
        (.neck, "neck"), (.leftShoulder, "leftShoulder"), (.rightShoulder, "rightShoulder"), (.leftElbow, "leftElbow"),
        (.rightElbow, "rightElbow"), (.leftWrist, "leftWrist"), (.rightWrist, "rightWrist"), (.root, "root"),
        (.leftHip, "leftHip"), (.rightHip, "rightHip"), (.leftKnee, "leftKnee"), (.rightKnee, "rightKnee"),
        (.leftAnkle, "leftAnkle"), (.rightAnkle, "rightAnkle"),
    ]

    /// Bones drawn between joints.
    static let bones: [(VNHumanBodyPoseObservation.JointName, VNHumanBodyPoseObservation.JointName)] = [
        (.leftEar, .leftEye), (.leftEye, .nose), (.nose, .rightEye), (.rightEye, .rightEar), (.nose, .neck),
        (.leftShoulder, .rightShoulder), (.leftShoulder, .leftElbow), (.leftElbow, .leftWrist),
        (.rightShoulder, .rightElbow), (.rightElbow, .rightWrist), (.neck, .root), (.leftHip, .rightHip),
        (.leftShoulder, .leftHip), (.rightShoulder, .rightHip), (.leftHip, .leftKnee), (.leftKnee, .leftAnkle),
        (.rightHip, .rightKnee), (.rightKnee, .rightAnkle),
    ]

    /// `[{"confidence", "joints": {name: [x, y, confidence]}}]`, every joint with its confidence (0 outside the
    /// image).
    static func records(_ bodies: [VNHumanBodyPoseObservation]) -> [[String: Any]] {
        bodies.map { body in
            var joints: [String: Any] = [:]
            for (name, key) in names {
                if let p = try? body.recognizedPoint(name) { joints[key] = [p.x, p.y, Double(p.confidence)] }
            }
            return ["confidence": Double(body.confidence), "joints": joints]
        }
    }

    /// `[[x, y, w, h, confidence]]`, normalized, lower-left origin.
    static func boxes(_ people: [VNHumanObservation]) -> [[Double]] {
        people.map {
            [Double($0.boundingBox.minX), Double($0.boundingBox.minY), Double($0.boundingBox.width),
             Double($0.boundingBox.height), Double($0.confidence)]
        }
    }

    /// Joints drawn and counted from this confidence up (as Apple's sample code filters): below it a joint is the
    /// model's guess at an occluded point.
    static let shownConfidence: Float = 0.1

    /// Skeletons (joints with confidence ≥ ``shownConfidence``; left side cyan, right side yellow) and boxes (upper
    /// body green, full body white).
    static func draw(_ bodies: [VNHumanBodyPoseObservation], upper: [VNHumanObservation], full: [VNHumanObservation],
                     on canvas: inout Canvas) {
        let W = Double(canvas.picture.width), H = Double(canvas.picture.height)
        func pixel(_ p: VNRecognizedPoint) -> SIMD2<Double> { SIMD2(p.x * W, (1 - p.y) * H) }
        let width = max(2, min(W, H) / 300)
        for (people, color) in [(full, Canvas.Color.white), (upper, Canvas.Color.green)] {
            for person in people {
                let b = person.boundingBox
                canvas.rectangle(x: Double(b.minX) * W, y: (1 - Double(b.maxY)) * H, width: Double(b.width) * W,
                                 height: Double(b.height) * H, color: color, lineWidth: width)
            }
        }
        for body in bodies {
            for (a, b) in bones {
                guard let p = try? body.recognizedPoint(a), let q = try? body.recognizedPoint(b),
                    p.confidence >= shownConfidence, q.confidence >= shownConfidence
                else { continue }
                let left = a.rawValue.rawValue.hasPrefix("left") || b.rawValue.rawValue.hasPrefix("left")
                let right = a.rawValue.rawValue.hasPrefix("right") || b.rawValue.rawValue.hasPrefix("right")
                canvas.line(pixel(p), pixel(q), color: left && !right ? .cyan : right && !left ? .yellow : .magenta, width: width)
            }
            for (name, _) in names {
                guard let p = try? body.recognizedPoint(name), p.confidence >= shownConfidence else { continue }
                canvas.dot(pixel(p), radius: width * 1.5, color: .red)
            }
        }
    }
}

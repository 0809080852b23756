import ArgumentParser
import Foundation
import PeopleVision
import PVImaging

/// `peoplevision faces IMAGE`: faces with head pose, optionally landmarks and capture quality.
struct FacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faces",
        abstract: "Find faces with roll, yaw and pitch; optionally landmarks and capture quality.",
        discussion: """
            One line per face: the box (normalized, lower-left origin), confidence and the three angles in \
            degrees; with --landmarks the pupils too. --json prints the evaluation harness's faces record \
            instead (radians, normalized image coordinates). --overlay draws boxes, landmark regions, pupils \
            and the angles on the image.
            """)

    @Argument(help: "The input image (JPEG, PNG, HEIC, WebP).") var image: String
    @Flag(help: "Also find the 76 face landmarks with pupils.") var landmarks = false
    @Flag(help: "Also score each face's capture quality (0…1, comparable for the same person).") var quality = false
    @Flag(help: "Print JSON instead of text.") var json = false
    @Flag(inversion: .prefixedNo, help: "Also search image tiles for small faces (four more detector runs).") var smallFaces = true
    @Option(help: "Write a picture of the results (.png).") var overlay: String?

    func validate() throws {
        try Overlay.validate(overlay)
    }

    func run() throws {
        let url = URL(fileURLWithPath: image)
        let handler = VNImageRequestHandler(url: url)
        let step = FacesStep(landmarks: landmarks, quality: quality, smallFaces: smallFaces)
        try step.perform(on: handler)
        let size = try handler.imageSize()
        let context = AnalyzeContext(imageWidth: size.width, imageHeight: size.height, jsonURL: nil)
        if json {
            var record: [String: Any] = ["image": url.lastPathComponent, "width": size.width, "height": size.height]
            try step.write(into: &record, context: context)
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            let faces = step.faces
            print("\(url.lastPathComponent): \(size.width)×\(size.height), \(faces.count) face\(faces.count == 1 ? "" : "s")")
            for (i, (face, score)) in faces.enumerated() {
                let b = face.boundingBox
                func deg(_ n: NSNumber?) -> String { n.map { String(format: "%+.1f°", $0.doubleValue * 180 / .pi) } ?? "n/a" }
                var line = String(
                    format: "face %d: box (%.3f, %.3f, %.3f, %.3f) confidence %.2f", i + 1, Double(b.minX), Double(b.minY),
                    Double(b.width), Double(b.height), Double(face.confidence))
                line += "  roll \(deg(face.roll)) yaw \(deg(face.yaw)) pitch \(deg(face.pitch))"
                if let score { line += String(format: "  quality %.3f", Double(score)) }
                if let l = face.landmarks, let left = l.leftPupil, let right = l.rightPupil {
                    let imageSize = CGSize(width: size.width, height: size.height)
                    let lp = left.pointsInImage(imageSize: imageSize)[0], rp = right.pointsInImage(imageSize: imageSize)[0]
                    line += String(
                        format: "  pupils L (%.1f, %.1f) R (%.1f, %.1f) px", Double(lp.x), Double(lp.y), Double(rp.x), Double(rp.y))
                    line += "  \(l.allPoints?.pointCount ?? 0) points"
                } else if landmarks {
                    line += "  (no landmarks)"
                }
                print(line)
            }
        }
        try Overlay.write(to: overlay, of: handler) { try step.draw(on: &$0, context: context) }
    }
}

/// The background colour `greet --background pose` uses, as the FacePoseBackground example chooses it: yaw
/// picks the hue, pitch the saturation, roll the brightness; mid-grey without a face.
enum FacePoseColor {
    static func color(of photo: CIImage) throws -> CIColor {
        let request = VNDetectFaceRectanglesRequest()
        try VNImageRequestHandler(ciImage: photo).perform([request])
        let largest = request.results?.max { $0.boundingBox.width * $0.boundingBox.height < $1.boundingBox.width * $1.boundingBox.height }
        guard let face = largest else { return CIColor(red: 0.5, green: 0.5, blue: 0.5) }
        return color(roll: face.roll?.doubleValue ?? 0, yaw: face.yaw?.doubleValue ?? 0, pitch: face.pitch?.doubleValue ?? 0)
    }

    static func color(roll: Double, yaw: Double, pitch: Double) -> CIColor {
        let hue = min(max((yaw + .pi / 2) / .pi, 0), 1) * 0.83
        let saturation = 0.3 + 0.7 * min(abs(pitch) / (.pi / 4), 1)
        let value = 0.45 + 0.55 * max(cos(roll), 0)
        let h = hue * 6, sector = Int(h) % 6, f = h - Double(Int(h))
        let p = value * (1 - saturation), q = value * (1 - saturation * f), t = value * (1 - saturation * (1 - f))
        let rgb: (Double, Double, Double) = [
            (value, t, p), (q, value, p), (p, value, t), (p, q, value), (t, p, value), (value, p, q),
        ][sector]
        return CIColor(red: CGFloat(rgb.0), green: CGFloat(rgb.1), blue: CGFloat(rgb.2))
    }
}

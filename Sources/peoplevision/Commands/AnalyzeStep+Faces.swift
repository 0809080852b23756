import Foundation
import PeopleVision

/// Faces: rectangles with head pose (revision 3, by default also searching for small faces in tiles), then
/// landmarks (and optionally capture quality) for those faces, written as the harness's `faces` list and drawn
/// as boxes, landmark regions, pupils and angles.
final class FacesStep: AnalyzeStep {
    let rectangles = VNDetectFaceRectanglesRequest()
    let landmarksRequest: VNDetectFaceLandmarksRequest?
    let qualityRequest: VNDetectFaceCaptureQualityRequest?

    init(landmarks: Bool = true, quality: Bool = false, smallFaces: Bool = true) {
        rectangles.searchesForSmallFaces = smallFaces
        landmarksRequest = landmarks ? VNDetectFaceLandmarksRequest() : nil
        qualityRequest = quality ? VNDetectFaceCaptureQualityRequest() : nil
    }

    /// Vision's region names and the regions, in the harness's order.
    nonisolated(unsafe) static let regions: [(String, KeyPath<VNFaceLandmarks2D, VNFaceLandmarkRegion2D?>)] = [
        ("faceContour", \.faceContour), ("leftEyebrow", \.leftEyebrow), ("rightEyebrow", \.rightEyebrow),
        ("leftEye", \.leftEye), ("rightEye", \.rightEye), ("nose", \.nose), ("noseCrest", \.noseCrest),
        ("medianLine", \.medianLine), ("outerLips", \.outerLips), ("innerLips", \.innerLips),
        ("leftPupil", \.leftPupil), ("rightPupil", \.rightPupil),
    ]

    func perform(on handler: VNImageRequestHandler) throws {
        try handler.perform([rectangles])
        let faces = rectangles.results ?? []
        if let landmarksRequest {
            landmarksRequest.inputFaceObservations = faces
            try handler.perform([landmarksRequest])
        }
        if let qualityRequest {
            qualityRequest.inputFaceObservations = faces
            try handler.perform([qualityRequest])
        }
    }

    /// The faces: landmarked ones where the landmarks request ran, with the quality scores merged in.
    var faces: [(face: VNFaceObservation, quality: Float?)] {
        let base = landmarksRequest?.results ?? rectangles.results ?? []
        let scores = qualityRequest?.results?.map(\.faceCaptureQuality) ?? []
        return base.enumerated().map { (i, f) in (f, i < scores.count ? scores[i] : nil) }
    }

    /// A region's points in normalized image coordinates (lower-left origin).
    static func imagePoints(_ region: VNFaceLandmarkRegion2D) -> [[Double]] {
        region.pointsInImage(imageSize: CGSize(width: 1, height: 1)).map { [Double($0.x), Double($0.y)] }
    }

    func records() -> [[String: Any]] {
        faces.map { (face, quality) in
            let b = face.boundingBox
            var r: [String: Any] = [
                "boundingBox": [b.minX, b.minY, b.width, b.height].map { Double($0) },
                "confidence": Double(face.confidence),
                "roll": face.roll?.doubleValue ?? NSNull(), "yaw": face.yaw?.doubleValue ?? NSNull(),
                "pitch": face.pitch?.doubleValue ?? NSNull(),
            ]
            if let landmarks = face.landmarks {
                var regions: [String: Any] = [:]
                for (name, path) in Self.regions {
                    if let region = landmarks[keyPath: path] { regions[name] = Self.imagePoints(region) }
                }
                r["landmarks"] = regions
            }
            if let quality { r["faceCaptureQuality"] = Double(quality) }
            return r
        }
    }

    func write(into record: inout [String: Any], context: AnalyzeContext) throws {
        record["faces"] = records()
    }

    func draw(on canvas: inout Canvas, context: AnalyzeContext) throws {
        for (face, quality) in faces {
            let b = face.boundingBox
            let topLeft = canvas.point(normalized: SIMD2(Double(b.minX), Double(b.maxY)))
            let w = Double(b.width) * Double(context.imageWidth), h = Double(b.height) * Double(context.imageHeight)
            canvas.rectangle(x: topLeft.x, y: topLeft.y, width: w, height: h, color: .green, lineWidth: 2)
            if let landmarks = face.landmarks {
                for (name, path) in Self.regions {
                    guard let region = landmarks[keyPath: path] else { continue }
                    let points = Self.imagePoints(region).map { canvas.point(normalized: SIMD2($0[0], $0[1])) }
                    if name.hasSuffix("Pupil") {
                        for p in points { canvas.dot(p, radius: max(2, w / 60), color: .red) }
                    } else {
                        canvas.polyline(points, closed: region.pointsClassification == .closedPath, color: .cyan, width: 1.5)
                    }
                }
            }
            func deg(_ n: NSNumber?) -> String { n.map { String(format: "%.0f", $0.doubleValue * 180 / .pi) } ?? "-" }
            var label = "R\(deg(face.roll)) Y\(deg(face.yaw)) P\(deg(face.pitch))"
            if let quality { label += String(format: " Q%.2f", quality) }
            let scale = w > 150 ? 2 : 1
            canvas.text(label, at: SIMD2(topLeft.x, max(0, topLeft.y - Double(9 * scale))), color: .yellow, scale: scale)
        }
    }
}

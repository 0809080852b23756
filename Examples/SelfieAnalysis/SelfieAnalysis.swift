// Analyses a selfie with Vision's Swift API (iOS 18): faces with their landmarks, the body pose with its hands, and
// the person mask, all performed on one ImageRequestHandler; then draws what was found over the photo with Core
// Image. This is the code an iOS or macOS app writes, imports included: on Linux the package's modules `Vision`
// and `CoreImage` stand for Apple's.
import CoreImage
import Foundation
import Vision

/// What the analysis found.
struct SelfieSummary: Sendable {
    var faces: [FaceObservation]
    var bodies: [HumanBodyPoseObservation]
    var mask: PixelBufferObservation

    /// How many landmark points the faces have in all.
    var landmarkPointCount: Int { faces.reduce(0) { $0 + ($1.landmarks?.allPoints.points.count ?? 0) } }
    /// How many hands the bodies have in all.
    var handCount: Int { bodies.reduce(0) { $0 + ($1.leftHand == nil ? 0 : 1) + ($1.rightHand == nil ? 0 : 1) } }
}

enum SelfieError: Error {
    case unreadableImage(URL)
}

/// Performs the requests on the photo at `url`, sharing one handler (one decode, one analysis).
func analyzeSelfie(at url: URL) async throws -> SelfieSummary {
    let handler = ImageRequestHandler(url)
    var bodyRequest = DetectHumanBodyPoseRequest()
    bodyRequest.detectsHands = true
    let maskRequest = GeneratePersonSegmentationRequest()
    maskRequest.qualityLevel = .balanced
    let (faces, bodies, mask) = try await handler.perform(DetectFaceLandmarksRequest(), bodyRequest, maskRequest)
    return SelfieSummary(faces: faces, bodies: bodies, mask: mask)
}

/// The photo with the background darkened by the person mask, face boxes in yellow, landmarks in cyan, body joints in
/// magenta and hand joints in green.
func drawOverlay(_ summary: SelfieSummary, on url: URL) throws -> CIImage {
    guard let photo = CIImage(contentsOf: url) else { throw SelfieError.unreadableImage(url) }
    let size = photo.extent.size

    // The person stays as photographed; everything else is dimmed.
    let maskImage = CIImage(cgImage: try summary.mask.cgImage)
    let scaledMask = maskImage.transformed(
        by: CGAffineTransform(scaleX: size.width / maskImage.extent.width, y: size.height / maskImage.extent.height))
    let dimmed = CIImage(color: CIColor(red: 0, green: 0, blue: 0, alpha: 0.6)).cropped(to: photo.extent)
        .composited(over: photo)
    let blend = CIFilter(name: "CIBlendWithMask", parameters: [
        kCIInputImageKey: photo, kCIInputBackgroundImageKey: dimmed, kCIInputMaskImageKey: scaledMask,
    ])
    var marks: [CIImage] = []

    func dot(_ point: CGPoint, _ color: CIColor, radius: CGFloat) {
        marks.append(CIImage(color: color).cropped(to: CGRect(x: point.x - radius, y: point.y - radius, width: 2 * radius, height: 2 * radius)))
    }
    func frame(_ rect: CGRect, _ color: CIColor) {
        let t: CGFloat = 2
        for edge in [
            CGRect(x: rect.minX, y: rect.minY, width: rect.width, height: t),
            CGRect(x: rect.minX, y: rect.maxY - t, width: rect.width, height: t),
            CGRect(x: rect.minX, y: rect.minY, width: t, height: rect.height),
            CGRect(x: rect.maxX - t, y: rect.minY, width: t, height: rect.height),
        ] {
            marks.append(CIImage(color: color).cropped(to: edge))
        }
    }

    // Core Image's origin is the lower-left corner, as Vision's is.
    for face in summary.faces {
        frame(face.boundingBox.toImageCoordinates(size), CIColor(red: 1, green: 0.9, blue: 0))
        for p in face.landmarks?.allPoints.pointsInImageCoordinates(size) ?? [] {
            dot(p, CIColor(red: 0, green: 1, blue: 1), radius: 1.5)
        }
    }
    for body in summary.bodies {
        for joint in body.allJoints().values where joint.confidence > 0.3 {
            dot(joint.location.toImageCoordinates(size), CIColor(red: 1, green: 0, blue: 1), radius: 4)
        }
        for hand in [body.leftHand, body.rightHand].compactMap({ $0 }) {
            for joint in hand.allJoints().values where joint.confidence > 0.3 {
                dot(joint.location.toImageCoordinates(size), CIColor(red: 0, green: 1, blue: 0), radius: 2.5)
            }
        }
    }
    return layered(marks, over: blend?.outputImage ?? photo).cropped(to: photo.extent)
}

/// `marks` composited over `base`, merged pairwise so that the recipe stays shallow however many marks there are.
func layered(_ marks: [CIImage], over base: CIImage) -> CIImage {
    var level = marks
    while level.count > 1 {
        level = stride(from: 0, to: level.count, by: 2).map { i in
            i + 1 < level.count ? level[i + 1].composited(over: level[i]) : level[i]
        }
    }
    return level.first.map { $0.composited(over: base) } ?? base
}

/// Writes the overlay as an 8-bit sRGB PNG.
func writeOverlay(_ image: CIImage, to url: URL) throws {
    let context = CIContext()
    guard let sRGB = CGColorSpace(name: CGColorSpace.sRGB) else { throw SelfieError.unreadableImage(url) }
    try context.writePNGRepresentation(of: image, to: url, format: .RGBA8, colorSpace: sRGB)
}

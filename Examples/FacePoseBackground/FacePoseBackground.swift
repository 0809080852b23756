// The seed demo of the face suite: the person of a photo in front of a plain background whose colour is
// chosen by the head pose (roll, yaw, pitch) of the largest face. This is the code an iOS or macOS app writes,
// imports included: on Linux the package's modules `Vision` and `CoreImage` stand for Apple's.
import CoreImage
import CoreImage.CIFilterBuiltins
import Vision
import Foundation

/// The background colour of a head pose (radians, Vision's conventions): yaw picks the hue (turned to the
/// image's left → red, frontal → green-cyan, to the right → violet), pitch the saturation (a level head is
/// pale, nodding up or down makes it vivid) and roll the brightness (an upright head is bright, a tilted one
/// darker).
func backgroundColor(roll: Double, yaw: Double, pitch: Double) -> CIColor {
    let hue = min(max((yaw + Double.pi / 2) / Double.pi, 0), 1) * 0.83
    let saturation = 0.3 + 0.7 * min(abs(pitch) / (Double.pi / 4), 1)
    let brightness = 0.45 + 0.55 * max(cos(roll), 0)
    // HSV to RGB.
    let h = hue * 6, sector = Int(h) % 6, f = h - Double(Int(h))
    let p = brightness * (1 - saturation), q = brightness * (1 - saturation * f), t = brightness * (1 - saturation * (1 - f))
    let (r, g, b): (Double, Double, Double)
    switch sector {
    case 0: (r, g, b) = (brightness, t, p)
    case 1: (r, g, b) = (q, brightness, p)
    case 2: (r, g, b) = (p, brightness, t)
    case 3: (r, g, b) = (p, q, brightness)
    case 4: (r, g, b) = (t, p, brightness)
    default: (r, g, b) = (brightness, p, q)
    }
    return CIColor(red: CGFloat(r), green: CGFloat(g), blue: CGFloat(b))
}

/// Finds the largest face and the people in `photoURL` and returns them over a background of the pose's
/// colour, with the pose used (nil when there is no face: the background is then mid-grey).
func makePoseBackgroundImage(photoURL: URL) throws -> (image: CIImage, pose: (roll: Double, yaw: Double, pitch: Double)?)? {
    let faces = VNDetectFaceRectanglesRequest()
    faces.revision = VNDetectFaceRectanglesRequestRevision3
    let people = VNGeneratePersonSegmentationRequest()
    people.qualityLevel = .balanced
    people.outputPixelFormat = kCVPixelFormatType_OneComponent8
    try VNImageRequestHandler(url: photoURL, options: [:]).perform([faces, people])

    guard let maskBuffer = people.results?.first?.pixelBuffer, let photo = CIImage(contentsOf: photoURL) else { return nil }
    let largest = faces.results?.max { $0.boundingBox.width * $0.boundingBox.height < $1.boundingBox.width * $1.boundingBox.height }
    var pose: (roll: Double, yaw: Double, pitch: Double)?
    if let face = largest {
        pose = (face.roll?.doubleValue ?? 0, face.yaw?.doubleValue ?? 0, face.pitch?.doubleValue ?? 0)
    }
    let color = pose.map { backgroundColor(roll: $0.roll, yaw: $0.yaw, pitch: $0.pitch) }
        ?? CIColor(red: 0.5, green: 0.5, blue: 0.5)
    let background = CIImage(color: color).cropped(to: photo.extent)

    let mask = CIImage(cvPixelBuffer: maskBuffer)
    let scaledMask = mask.transformed(
        by: __CGAffineTransformMake(
            photo.extent.width / mask.extent.width, 0, 0, photo.extent.height / mask.extent.height, 0, 0))
    let blend = CIFilter.blendWithRedMask()
    blend.inputImage = photo
    blend.backgroundImage = background
    blend.maskImage = scaledMask
    guard let output = blend.outputImage else { return nil }
    return (output.cropped(to: photo.extent), pose)
}

/// Writes the image as JPEG through a `CIContext`.
func writeJPEG(_ image: CIImage, to url: URL) throws {
    let context = CIContext()
    guard let colorSpace = CGColorSpace(name: CGColorSpace.sRGB) else { return }
    try context.writeJPEGRepresentation(of: image, to: url, colorSpace: colorSpace)
}

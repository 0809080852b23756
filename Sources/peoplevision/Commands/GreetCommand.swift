import ArgumentParser
import Foundation
import PeopleVision

/// `peoplevision greet IMAGE --background …`: the photo greeting — the people of one image over a new background.
struct GreetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "greet",
        abstract: "Put the people of an image in front of a new background (an image, a colour, or the image blurred).",
        discussion: "Built exactly like Apple's sample: a person-segmentation request, then Core Image's blendWithRedMask.")

    @Argument(help: "The photo with people.") var image: String
    @Option(help: "A background image, a colour #RRGGBB, 'blur', or 'pose' (a colour from the head pose).") var background: String
    @Option(name: .shortAndLong, help: "Output image (.jpg, .png or .heic).") var output: String
    @Option(help: "fast, balanced or accurate.") var quality: QualityOption = .accurate

    func validate() throws {
        _ = try OutputKind(url: URL(fileURLWithPath: output))
        if background.hasPrefix("#") && parseColor(background) == nil {
            throw ValidationError("background colour '\(background)' is not #RRGGBB")
        }
    }

    func run() throws {
        let backdrop: Greeting.Backdrop
        if background == "blur" {
            backdrop = .blur
        } else if background == "pose" {
            backdrop = .pose
        } else if let color = parseColor(background) {
            backdrop = .color(color)
        } else {
            backdrop = .image(URL(fileURLWithPath: background))
        }
        let size = try Greeting.make(photo: URL(fileURLWithPath: image), backdrop: backdrop, quality: quality,
                                     output: URL(fileURLWithPath: output))
        print("\(output): \(size.width)×\(size.height), \(quality.rawValue) mask")
    }

    private func parseColor(_ text: String) -> CIColor? { PeopleVisionCLI.parseColor(text) }
}

enum PeopleVisionCLI {
    /// `#RRGGBB` → a colour.
    static func parseColor(_ text: String) -> CIColor? {
        guard text.hasPrefix("#"), text.count == 7, let v = UInt32(text.dropFirst(), radix: 16) else { return nil }
        return CIColor(red: CGFloat((v >> 16) & 0xFF) / 255, green: CGFloat((v >> 8) & 0xFF) / 255, blue: CGFloat(v & 0xFF) / 255)
    }
}

/// The photo greeting, as Apple's sample builds it: a person-segmentation request, the mask and the
/// background scaled to the photo's extent, Core Image's `blendWithRedMask`, a `CIContext` write.
enum Greeting {
    enum Backdrop {
        case image(URL)
        case color(CIColor)
        case blur
        /// A colour from the head pose of the largest face (``FacePoseColor``).
        case pose
    }

    /// Writes the greeting of `photo` to `output` (format from the extension) and returns its size.
    @discardableResult
    static func make(photo path: URL, backdrop: Backdrop, quality: QualityOption, output: URL) throws -> (width: Int, height: Int) {
        let photo = try loadImage(path.path).image
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = quality.level
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        // The photo is decoded once, for Core Image; Vision analyses the same pixels.
        try VNImageRequestHandler(ciImage: photo).perform([request])
        guard let maskBuffer = request.results?.first?.pixelBuffer else { throw ValidationError("no mask was produced") }
        let mask = CIImage(cvPixelBuffer: maskBuffer)

        let background: CIImage
        switch backdrop {
        case .blur:
            background = photo.clampedToExtent().applyingGaussianBlur(sigma: max(photo.extent.width, photo.extent.height) / 60)
                .cropped(to: photo.extent)
        case .color(let color):
            background = CIImage(color: color).cropped(to: photo.extent)
        case .pose:
            background = CIImage(color: try FacePoseColor.color(of: photo)).cropped(to: photo.extent)
        case .image(let file):
            let scene = try loadImage(file.path).image
            background = scene.transformed(by: __CGAffineTransformMake(
                photo.extent.width / scene.extent.width, 0, 0, photo.extent.height / scene.extent.height, 0, 0))
        }
        let scaledMask = mask.transformed(by: __CGAffineTransformMake(
            photo.extent.width / mask.extent.width, 0, 0, photo.extent.height / mask.extent.height, 0, 0))
        let blend = CIFilter.blendWithRedMask()
        blend.inputImage = photo
        blend.backgroundImage = background
        blend.maskImage = scaledMask
        guard let composite = blend.outputImage else { throw ValidationError("the blend produced no image") }
        try write(composite.cropped(to: photo.extent), to: output)
        return (Int(photo.extent.width), Int(photo.extent.height))
    }
}

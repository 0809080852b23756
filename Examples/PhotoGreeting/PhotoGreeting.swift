// The photo greeting from Apple's person-segmentation sample: the person of one photo over another
// photo as background. This is the code an iOS or macOS app writes, imports included: on Linux the package's
// modules `Vision` and `CoreImage` stand for Apple's.
import CoreImage
import CoreImage.CIFilterBuiltins
import Vision
import Foundation

/// Which Core Image blend the greeting uses: Apple's sample uses the red mask; its tutorial variant uses `blendWithMask`.
enum BlendVariant {
    case redMask
    case mask
}

/// Segments the person in `foregroundURL`, puts them over `backgroundURL`, and returns the composite.
func generatePhotoGreeting(foregroundURL: URL, backgroundURL: URL, variant: BlendVariant = .redMask) throws -> CIImage? {
    // Create the request.
    let request = VNGeneratePersonSegmentationRequest()
    request.qualityLevel = .accurate
    request.outputPixelFormat = kCVPixelFormatType_OneComponent8

    // Perform it on the photo.
    let requestHandler = VNImageRequestHandler(url: foregroundURL, options: [:])
    try requestHandler.perform([request])

    // Read the mask.
    guard let maskPixelBuffer = request.results?.first?.pixelBuffer else { return nil }

    // Wrap image, mask and background in CIImages.
    guard let originalImage = CIImage(contentsOf: foregroundURL),
        let backgroundImage = CIImage(contentsOf: backgroundURL)
    else { return nil }
    let maskImage = CIImage(cvPixelBuffer: maskPixelBuffer)

    return blend(original: originalImage, mask: maskImage, background: backgroundImage, variant: variant)
}

/// Scales mask and background to the original's extent and blends.
func blend(original: CIImage, mask: CIImage, background: CIImage, variant: BlendVariant) -> CIImage? {
    let maskScaleX = original.extent.width / mask.extent.width
    let maskScaleY = original.extent.height / mask.extent.height
    let maskScaled = mask.transformed(by: __CGAffineTransformMake(maskScaleX, 0, 0, maskScaleY, 0, 0))

    let backgroundScaleX = original.extent.width / background.extent.width
    let backgroundScaleY = original.extent.height / background.extent.height
    let backgroundScaled = background.transformed(
        by: __CGAffineTransformMake(backgroundScaleX, 0, 0, backgroundScaleY, 0, 0))

    switch variant {
    case .redMask:
        let blendFilter = CIFilter.blendWithRedMask()
        blendFilter.inputImage = original
        blendFilter.backgroundImage = backgroundScaled
        blendFilter.maskImage = maskScaled
        return blendFilter.outputImage
    case .mask:
        let blendFilter = CIFilter.blendWithMask()
        blendFilter.inputImage = original
        blendFilter.backgroundImage = backgroundScaled
        blendFilter.maskImage = maskScaled
        return blendFilter.outputImage
    }
}

/// Renders the greeting with a `CIContext` and writes it as JPEG.
func writeGreeting(_ image: CIImage, to url: URL) throws {
    let context = CIContext()
    guard let colorSpace = CGColorSpace(name: CGColorSpace.sRGB) else { return }
    try context.writeJPEGRepresentation(of: image, to: url, colorSpace: colorSpace)
}

import AVFoundation
import CoreImage
import CoreImage.CIFilterBuiltins

/// The skin matte of a Portrait photo, scaled to the photo's size, or nil when the file has none.
func skinMatte(of photoURL: URL, scaledTo photo: CIImage) -> CIImage? {
    guard let matte = CIImage(contentsOf: photoURL, options: [.auxiliarySemanticSegmentationSkinMatte: true]) else { return nil }
    let scale = CGAffineTransform(
        scaleX: photo.extent.width / matte.extent.width, y: photo.extent.height / matte.extent.height)
    return matte.transformed(by: scale)
}

/// "Makeup": the photo's skin brightened and evened out, everything else untouched.
///
/// The brighter look is the photo's largest colour component per pixel lifted by a square-root gamma; the skin
/// matte chooses where it replaces the original.
func applyMakeup(to photoURL: URL) -> CIImage? {
    guard let photo = CIImage(contentsOf: photoURL), let skin = skinMatte(of: photoURL, scaledTo: photo) else { return nil }

    let brightest = CIFilter.maximumComponent()
    brightest.inputImage = photo

    let lifted = CIFilter.gammaAdjust()
    lifted.inputImage = brightest.outputImage
    lifted.power = 0.5

    let blend = CIFilter.blendWithMask()
    blend.inputImage = lifted.outputImage
    blend.backgroundImage = photo
    blend.maskImage = skin
    return blend.outputImage
}

/// Writes `image` as a JPEG.
func writeJPEG(_ image: CIImage, to url: URL) throws {
    try CIContext().writeJPEGRepresentation(of: image, to: url, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
}

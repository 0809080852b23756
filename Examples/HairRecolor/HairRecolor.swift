import AVFoundation
import CoreImage
import CoreImage.CIFilterBuiltins

/// The photo's hair recoloured: inside the hair matte, the photo's brightness tinted by `red`, `green`, `blue`
/// (each 0…1); elsewhere the photo as it was. nil when the file cannot be read or has no hair matte.
func recolorHair(of photoURL: URL, red: CGFloat, green: CGFloat, blue: CGFloat) -> CIImage? {
    guard let photo = CIImage(contentsOf: photoURL),
        let matte = CIImage(contentsOf: photoURL, options: [.auxiliarySemanticSegmentationHairMatte: true])
    else { return nil }
    let hairMask = matte.transformed(
        by: CGAffineTransform(scaleX: photo.extent.width / matte.extent.width, y: photo.extent.height / matte.extent.height))

    // Grey first, so the old colour does not show through, a little brighter so dark hair can take a colour.
    let grey = CIFilter.colorControls()
    grey.inputImage = photo
    grey.saturation = 0
    grey.brightness = 0.08

    // Each channel becomes the grey level times the tint.
    let tint = CIFilter.colorMatrix()
    tint.inputImage = grey.outputImage
    tint.rVector = CIVector(x: red * 1.6, y: 0, z: 0, w: 0)
    tint.gVector = CIVector(x: 0, y: green * 1.6, z: 0, w: 0)
    tint.bVector = CIVector(x: 0, y: 0, z: blue * 1.6, w: 0)

    let blend = CIFilter.blendWithMask()
    blend.inputImage = tint.outputImage
    blend.backgroundImage = photo
    blend.maskImage = hairMask
    return blend.outputImage
}

import Foundation

extension VNGeneratePersonSegmentationRequest {
    /// What `CIFilter.personSegmentation()` outputs: the person mask of `image` at a quality level
    /// (0 accurate, 1 balanced, 2 fast) in the red channel (green and blue 0, alpha 1), scaled to the image's extent.
    static func coreImageMask(of image: CIImage, qualityLevel: Int) throws -> CIImage {
        guard qualityLevel >= 0, let level = QualityLevel(rawValue: UInt(qualityLevel)) else {
            throw NSError(vision: .invalidOption, "inputQualityLevel \(qualityLevel) is not 0 (accurate), 1 (balanced) or 2 (fast)")
        }
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = level
        try VNImageRequestHandler(ciImage: image).perform([request])
        guard let buffer = request.results?.first?.pixelBuffer else {
            throw NSError(vision: .internalError, "person segmentation produced no mask")
        }
        let mask = CIImage(cvPixelBuffer: buffer)
        let e = image.extent
        let scaled = mask.transformed(by: CGAffineTransform(
            a: e.width / mask.extent.width, b: 0, c: 0, d: e.height / mask.extent.height, tx: e.minX, ty: e.minY))
        return scaled.applyingFilter("CIColorMatrix", parameters: [
            "inputRVector": CIVector(x: 1, y: 0, z: 0, w: 0),
            "inputGVector": CIVector(x: 0, y: 0, z: 0, w: 0),
            "inputBVector": CIVector(x: 0, y: 0, z: 0, w: 0),
            "inputAVector": CIVector(x: 0, y: 0, z: 0, w: 0),
            "inputBiasVector": CIVector(x: 0, y: 0, z: 0, w: 1),
        ]).cropped(to: e)  // an opaque bias makes the colour matrix's extent infinite
    }
}

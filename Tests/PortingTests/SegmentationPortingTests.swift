// Apple's person-segmentation sample, with its imports as written for iOS: Vision, Core Image with its builtin
// filters, and Core Video to read the mask.
import CoreImage
import CoreImage.CIFilterBuiltins
import CoreVideo
import Testing
import Vision

@Suite struct SegmentationPortingTests {
    @Test func maskAndComposite() throws {
        let url = try Samples.image("astronaut.png")
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .balanced
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        try VNImageRequestHandler(url: url, options: [:]).perform([request])
        let mask = try #require(request.results?.first?.pixelBuffer)
        #expect(CVPixelBufferGetPixelFormatType(mask) == kCVPixelFormatType_OneComponent8)

        // Read the mask the Core Video way.
        #expect(CVPixelBufferLockBaseAddress(mask, .readOnly) == kCVReturnSuccess)
        defer { _ = CVPixelBufferUnlockBaseAddress(mask, .readOnly) }
        let width = CVPixelBufferGetWidth(mask), height = CVPixelBufferGetHeight(mask)
        let rowBytes = CVPixelBufferGetBytesPerRow(mask)
        let base = try #require(CVPixelBufferGetBaseAddress(mask)).assumingMemoryBound(to: UInt8.self)
        func value(atX x: Double, y: Double) -> UInt8 {  // x, y: fractions of the image, top-left origin
            base[min(height - 1, Int(y * Double(height))) * rowBytes + min(width - 1, Int(x * Double(width)))]
        }
        // On her face (MediaPipe's face box centre) the mask says person; in the sky above her shoulders, not.
        let reference = try Samples.reference("faces/astronaut.json")
        let box = try #require((reference["detection0"] as? [[String: Any]])?.first?["box"] as? [Double])
        #expect(value(atX: box[0] + box[2] / 2, y: box[1] + box[3] / 2) > 200)
        #expect(value(atX: 0.02, y: 0.02) < 50 && value(atX: 0.98, y: 0.02) < 50)

        // Composite her over a solid colour with the builtin filter, and render it.
        let original = try #require(CIImage(contentsOf: url))
        let scaledMask = CIImage(cvPixelBuffer: mask).transformed(by: CGAffineTransform(
            scaleX: original.extent.width / CGFloat(width), y: original.extent.height / CGFloat(height)))
        let blend = CIFilter.blendWithMask()
        blend.inputImage = original
        blend.backgroundImage = CIImage(color: CIColor(red: 0, green: 0, blue: 1)).cropped(to: original.extent)
        blend.maskImage = scaledMask
        let output = try #require(blend.outputImage)
        #expect(output.extent == original.extent)
        let rendered = try #require(CIContext().createCGImage(output, from: output.extent))
        #expect(rendered.width == 512 && rendered.height == 512)
    }
}

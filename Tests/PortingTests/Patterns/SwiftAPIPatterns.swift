// Patterns written for iOS 18's Swift-only Vision API: requests performed with async/await, normalized geometry
// converted with `toImageCoordinates`, and a mask read through its observation.
import CoreVideo
import Testing
import Vision

@Suite struct SwiftAPIPatterns {
    @Test func facesWithAsyncRequests() async throws {
        let url = try Samples.image("astronaut.png")
        let request = DetectFaceRectanglesRequest()
        let faces = try await request.perform(on: url)
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        // In an upper-left view of the 512-px portrait her face is in the upper half.
        let frame = face.boundingBox.toImageCoordinates(CGSize(width: 512, height: 512), origin: .upperLeft)
        #expect(frame.midY < 256 && frame.width > 50)
        // The same face as the VN API finds.
        let classic = VNDetectFaceRectanglesRequest()
        try VNImageRequestHandler(url: url).perform([classic])
        let box = try #require(classic.results?.first?.boundingBox)
        #expect(abs(face.boundingBox.cgRect.midX - box.midX) < 0.01 && abs(face.boundingBox.cgRect.midY - box.midY) < 0.01)
    }

    @Test func portraitMaskWithQualityAndFormat() async throws {
        let request = GeneratePersonSegmentationRequest()
        request.qualityLevel = .balanced
        request.outputPixelFormatType = kCVPixelFormatType_OneComponent32Float
        #expect(request.supportedOutputPixelFormats.contains(kCVPixelFormatType_OneComponent32Float))
        let mask = try await request.perform(on: try Samples.image("astronaut.png"))
        #expect(mask.pixelFormat == kCVPixelFormatType_OneComponent32Float && mask.size.width > 0)
        // Bright on her face, dark on the backdrop above her shoulder.
        #expect(mask.pixel(at: NormalizedPoint(x: 0.47, y: 0.74)) > 0.8)
        #expect(mask.pixel(at: NormalizedPoint(x: 0.67, y: 0.92)) < 0.2)
    }
}

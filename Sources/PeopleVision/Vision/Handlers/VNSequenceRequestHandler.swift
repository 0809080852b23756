import Foundation

/// Performs requests on a stream of images, as Apple's `VNSequenceRequestHandler`.
///
/// Stateful requests (person segmentation) performed on consecutive frames through the same requests keep
/// their state in the request objects, so the same requests should be reused frame after frame.
public final class VNSequenceRequestHandler: @unchecked Sendable {
    public init() {}

    public func perform(_ requests: [VNRequest], on image: CGImage) throws {
        try VNImageRequestHandler(cgImage: image).perform(requests)
    }
    public func perform(_ requests: [VNRequest], on image: CGImage, orientation: CGImagePropertyOrientation) throws {
        try VNImageRequestHandler(cgImage: image, orientation: orientation).perform(requests)
    }
    public func perform(_ requests: [VNRequest], on image: CIImage) throws {
        try VNImageRequestHandler(ciImage: image).perform(requests)
    }
    public func perform(_ requests: [VNRequest], on image: CIImage, orientation: CGImagePropertyOrientation) throws {
        try VNImageRequestHandler(ciImage: image, orientation: orientation).perform(requests)
    }
    public func perform(_ requests: [VNRequest], on pixelBuffer: CVPixelBuffer) throws {
        try VNImageRequestHandler(cvPixelBuffer: pixelBuffer).perform(requests)
    }
    public func perform(_ requests: [VNRequest], on pixelBuffer: CVPixelBuffer, orientation: CGImagePropertyOrientation) throws {
        try VNImageRequestHandler(cvPixelBuffer: pixelBuffer, orientation: orientation).perform(requests)
    }
    public func perform(_ requests: [VNRequest], onImageData imageData: Data) throws {
        try VNImageRequestHandler(data: imageData).perform(requests)
    }
    public func perform(_ requests: [VNRequest], onImageData imageData: Data, orientation: CGImagePropertyOrientation) throws {
        try VNImageRequestHandler(data: imageData, orientation: orientation).perform(requests)
    }
    public func perform(_ requests: [VNRequest], onImageURL imageURL: URL) throws {
        try VNImageRequestHandler(url: imageURL).perform(requests)
    }
    public func perform(_ requests: [VNRequest], onImageURL imageURL: URL, orientation: CGImagePropertyOrientation) throws {
        try VNImageRequestHandler(url: imageURL, orientation: orientation).perform(requests)
    }
}

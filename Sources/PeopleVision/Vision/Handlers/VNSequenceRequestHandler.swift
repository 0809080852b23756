import Foundation
import Synchronization

/// Performs requests on a stream of images, as Apple's `VNSequenceRequestHandler`.
///
/// Stateful requests (person segmentation) performed on consecutive frames through the same requests keep
/// their state in the request objects, so the same requests should be reused frame after frame. The landmarks of
/// the body-pose, 3D body-pose, hand-pose and face-landmarks requests are smoothed over the frames performed through
/// one sequence handler, with MediaPipe's video-mode filters (``smoothsLandmarks``); each person, hand or face is
/// followed by the overlap of its landmark box from frame to frame. A frame's time is its sample buffer's when it has one, else frames are taken as 1/30 s apart.
public final class VNSequenceRequestHandler: @unchecked Sendable {
    let sequence = SequenceState()

    public init() {}

    /// PeopleVision extension: whether body, hand and face landmarks are smoothed over the frames (default true).
    public var smoothsLandmarks: Bool {
        get { sequence.smoothsLandmarks }
        set { sequence.smoothsLandmarks = newValue }
    }

    /// PeopleVision extension: whether the body requests (body pose, 3D body pose, human rectangles, hands) and the
    /// accurate person mask follow the previous frame's people instead of running the pose detector on every frame
    /// (default false). A person's landmarks are then found in the region their previous landmarks give; the
    /// detector runs again when someone is lost, every 15 frames (so that someone new is found), on a scene cut, and,
    /// for the accurate mask, when the selfie model shows someone the people followed leave out. Faster on video; a
    /// person who walks in is found up to 15 frames late.
    public var tracksPeople: Bool {
        get { sequence.tracksPeople }
        set { sequence.tracksPeople = newValue }
    }

    /// Performs `requests` on `handler`'s frame, as a frame of this sequence.
    func perform(_ requests: [VNRequest], frame handler: VNImageRequestHandler) throws {
        handler.sequence = sequence
        try handler.perform(requests)
    }

    public func perform(_ requests: [VNRequest], on image: CGImage) throws {
        try perform(requests, frame: VNImageRequestHandler(cgImage: image))
    }
    public func perform(_ requests: [VNRequest], on image: CGImage, orientation: CGImagePropertyOrientation) throws {
        try perform(requests, frame: VNImageRequestHandler(cgImage: image, orientation: orientation))
    }
    public func perform(_ requests: [VNRequest], on image: CIImage) throws {
        try perform(requests, frame: VNImageRequestHandler(ciImage: image))
    }
    public func perform(_ requests: [VNRequest], on image: CIImage, orientation: CGImagePropertyOrientation) throws {
        try perform(requests, frame: VNImageRequestHandler(ciImage: image, orientation: orientation))
    }
    public func perform(_ requests: [VNRequest], on pixelBuffer: CVPixelBuffer) throws {
        try perform(requests, frame: VNImageRequestHandler(cvPixelBuffer: pixelBuffer))
    }
    public func perform(_ requests: [VNRequest], on pixelBuffer: CVPixelBuffer, orientation: CGImagePropertyOrientation) throws {
        try perform(requests, frame: VNImageRequestHandler(cvPixelBuffer: pixelBuffer, orientation: orientation))
    }
    public func perform(_ requests: [VNRequest], onImageData imageData: Data) throws {
        try perform(requests, frame: VNImageRequestHandler(data: imageData))
    }
    public func perform(_ requests: [VNRequest], onImageData imageData: Data, orientation: CGImagePropertyOrientation) throws {
        try perform(requests, frame: VNImageRequestHandler(data: imageData, orientation: orientation))
    }
    public func perform(_ requests: [VNRequest], onImageURL imageURL: URL) throws {
        try perform(requests, frame: VNImageRequestHandler(url: imageURL))
    }
    public func perform(_ requests: [VNRequest], onImageURL imageURL: URL, orientation: CGImagePropertyOrientation) throws {
        try perform(requests, frame: VNImageRequestHandler(url: imageURL, orientation: orientation))
    }
}

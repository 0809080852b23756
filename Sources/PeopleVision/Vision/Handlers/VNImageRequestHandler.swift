import Foundation
import PVCore
import PVImaging
import PVPerception

/// Options for an image request handler, as Apple's `VNImageOption`.
public struct VNImageOption: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Image-source properties (EXIF and similar).
    public static let properties = VNImageOption(rawValue: "VNImageOptionProperties")
    /// Camera intrinsics (a 3×3 matrix, pixels, principal point from the top-left).
    public static let cameraIntrinsics = VNImageOption(rawValue: "VNImageOptionCameraIntrinsics")
    /// A `CIContext` for the handler's Core Image work.
    public static let ciContext = VNImageOption(rawValue: "VNImageOptionCIContext")
}

/// Performs requests on one image, as Apple's `VNImageRequestHandler`.
///
/// The image is decoded (and turned upright) once, on the first `perform`, and shared by every request.
/// `perform(_:)` is synchronous: when it returns, every request has finished or failed and the
/// completion handlers have run. Handlers are independent: many may perform at once on different threads.
///
/// ```swift
/// let request = VNGeneratePersonSegmentationRequest()
/// try VNImageRequestHandler(url: photoURL).perform([request])
/// let mask = request.results?.first?.pixelBuffer
/// ```
public final class VNImageRequestHandler: @unchecked Sendable {
    enum Source {
        case url(URL)
        case data(Data)
        case pixels(PixelBuffer)
        case ciImage(CIImage)
        /// A camera or video frame, read at the first `perform` (VNImageRequestHandler+CMSampleBuffer.swift).
        case sampleBuffer(CMSampleBuffer)
    }

    private let source: Source
    /// nil: use the file's own EXIF orientation (URL and data sources).
    private let orientation: CGImagePropertyOrientation?
    private let options: [VNImageOption: Any]
    /// Depth given with the image (`init(cvPixelBuffer:depthData:…)`, `init(cmSampleBuffer:depthData:…)`).
    private let depthData: AVDepthData?
    private let prepared = Locked<HandlerImage?>(nil)
    private let reduced = Locked<HandlerImage?>(nil)
    private let frameStamp = Locked<Int64?>(nil)

    /// The video frame this handler's image is (``VNVideoProcessor``): its observations carry the time.
    private let frameTime: CMTimeRange?
    /// The sequence the image is a frame of (set by ``VNSequenceRequestHandler`` and ``VNVideoProcessor``).
    var sequence: SequenceState?

    init(
        source: Source, orientation: CGImagePropertyOrientation?, options: [VNImageOption: Any], frameTime: CMTimeRange? = nil,
        depthData: AVDepthData? = nil
    ) {
        self.source = source
        self.orientation = orientation
        self.options = options
        self.frameTime = frameTime
        self.depthData = depthData
    }

    /// A video frame's pixels, upright, shown at `time`.
    convenience init(frame: PixelBuffer, at time: CMTimeRange) {
        self.init(source: .pixels(frame), orientation: .up, options: [:], frameTime: time)
    }

    /// An image file (JPEG, PNG, HEIC, WebP); its EXIF orientation is honoured.
    public convenience init(url imageURL: URL, options: [VNImageOption: Any] = [:]) {
        self.init(source: .url(imageURL), orientation: nil, options: options)
    }

    /// An image file whose stored pixels have the given orientation.
    public convenience init(url imageURL: URL, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {
        self.init(source: .url(imageURL), orientation: orientation, options: options)
    }

    /// Encoded image data (JPEG, PNG, HEIC, WebP); its EXIF orientation is honoured.
    public convenience init(data imageData: Data, options: [VNImageOption: Any] = [:]) {
        self.init(source: .data(imageData), orientation: nil, options: options)
    }

    /// Encoded image data whose stored pixels have the given orientation.
    public convenience init(data imageData: Data, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {
        self.init(source: .data(imageData), orientation: orientation, options: options)
    }

    /// A `CGImage`.
    public convenience init(cgImage image: CGImage, options: [VNImageOption: Any] = [:]) {
        self.init(source: .pixels(image.buffer), orientation: .up, options: options)
    }

    /// A `CGImage` whose pixels have the given orientation.
    public convenience init(cgImage image: CGImage, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {
        self.init(source: .pixels(image.buffer), orientation: orientation, options: options)
    }

    /// A `CVPixelBuffer` (any supported format: 32BGRA, 32ARGB, 32RGBA, 24RGB, 420 bi-planar, one-component).
    public convenience init(cvPixelBuffer pixelBuffer: CVPixelBuffer, options: [VNImageOption: Any] = [:]) {
        self.init(source: .pixels(pixelBuffer.pixelBuffer), orientation: .up, options: options)
    }

    /// A `CVPixelBuffer` whose pixels have the given orientation.
    public convenience init(
        cvPixelBuffer pixelBuffer: CVPixelBuffer, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]
    ) {
        self.init(source: .pixels(pixelBuffer.pixelBuffer), orientation: orientation, options: options)
    }

    /// A `CVPixelBuffer` with the depth captured with it, as Vision's
    /// `VNImageRequestHandler(cvPixelBuffer:depthData:orientation:options:)`.
    ///
    /// The depth map is taken to be stored as the pixels are (`orientation` turns both upright) and to cover
    /// the same field of view at any resolution of the same aspect ratio. ``VNDetectHumanBodyPose3DRequest`` then
    /// measures the person (``VNHumanBodyPose3DObservation/HeightEstimation/measured``), with the depth data's
    /// camera calibration for intrinsics unless `VNImageOption.cameraIntrinsics` is given.
    public convenience init(
        cvPixelBuffer pixelBuffer: CVPixelBuffer, depthData: AVDepthData, orientation: CGImagePropertyOrientation,
        options: [VNImageOption: Any] = [:]
    ) {
        self.init(source: .pixels(pixelBuffer.pixelBuffer), orientation: orientation, options: options, depthData: depthData)
    }

    /// A `CIImage` (rendered once, over its extent, which must be finite).
    public convenience init(ciImage image: CIImage, options: [VNImageOption: Any] = [:]) {
        self.init(source: .ciImage(image), orientation: .up, options: options)
    }

    /// A `CIImage` whose pixels have the given orientation.
    public convenience init(ciImage image: CIImage, orientation: CGImagePropertyOrientation, options: [VNImageOption: Any] = [:]) {
        self.init(source: .ciImage(image), orientation: orientation, options: options)
    }

    /// Performs `requests` on the image, in order.
    ///
    /// Every request runs even when an earlier one fails; each request's completion handler receives its own
    /// outcome. Throws the first failure, an `NSError` in ``VNErrorDomain``.
    public func perform(_ requests: [VNRequest]) throws {
        let context: HandlerImage
        do {
            let sides = requests.map(\.sufficientImageSide)
            context = try prepare(sufficientSide: sides.contains(nil) ? nil : sides.compactMap { $0 }.max())
        } catch {
            let e = VNRequest.visionError(error)
            for r in requests { r.completionHandler?(r, e) }
            throw e
        }
        for r in requests { r.announce(to: context) }
        var first: Error?
        for r in requests {
            do { try r.run(on: context) } catch { if first == nil { first = error } }
        }
        if let first { throw first }
    }

    /// The size of the upright image the requests see (decodes it if no request ran yet).
    package func imageSize() throws -> (width: Int, height: Int) {
        if let c = prepared.withLock({ $0 }) { return (c.image.width, c.image.height) }
        // An encoded source's header gives the size without decoding (a request may have needed a smaller decode only).
        if reduced.withLock({ $0 }) != nil, let data = try? Self.encoded(source), let info = try? ImageDecoder.info(data: data) {
            let stored = (info.width, info.height)
            switch orientation {
            case nil: return info.orientedSize
            case let o?: return o.imaging.swapsDimensions ? (stored.1, stored.0) : stored
            }
        }
        let c = try prepare()
        return (c.image.width, c.image.height)
    }

    /// The upright image the requests see (decodes it if no request ran yet).
    package func uprightImage() throws -> PixelBuffer { try prepare().image }

    /// The sizes of the images decoded so far: the smaller decode some requests accept, then the full image.
    package func decodedSizes() -> (reduced: (width: Int, height: Int)?, full: (width: Int, height: Int)?) {
        let r = reduced.withLock { $0?.image }, f = prepared.withLock { $0?.image }
        return (r.map { ($0.width, $0.height) }, f.map { ($0.width, $0.height) })
    }

    /// The upright image, decoded on first use.
    func prepare() throws -> HandlerImage { try prepare(sufficientSide: nil) }

    /// The upright image, or, for an encoded source and a `sufficientSide`, possibly a smaller decode of it whose
    /// longer side is at least that (kept apart: a later request that needs the full image decodes it then).
    func prepare(sufficientSide: Int?) throws -> HandlerImage {
        if let c = prepared.withLock({ $0 }) { return c }
        if let side = sufficientSide {
            if let c = reduced.withLock({ $0 }), max(c.image.width, c.image.height) >= side { return c }
            if let loaded = try VNImageRequestHandler.load(source, orientation: orientation, sufficientSide: side) {
                let context = handlerImage(loaded)
                reduced.withLock { $0 = context }
                return context
            }
        }
        let context = handlerImage(try VNImageRequestHandler.load(source, orientation: orientation, sufficientSide: nil)!)
        prepared.withLock { $0 = context }
        return context
    }

    /// The requests' image of a loaded decode, with this handler's options, frame time, sequence place and depth.
    private func handlerImage(_ loaded: (pixels: PixelBuffer, focalLength35mm: Double?)) -> HandlerImage {
        let context = HandlerImage(image: loaded.pixels, options: options, handlerID: ObjectIdentifier(self))
        context.focalLength35mm = loaded.focalLength35mm
        context.frameTime = frameTime
        context.sequence = sequenceFrame()
        context.depthLoader = depthLoader()
        return context
    }

    /// The frame's place in its sequence: its time from the frame (a video's, a sample buffer's), else from its
    /// number. Counted once per handler (a handler is one frame).
    private func sequenceFrame() -> (state: SequenceState, timestamp: Int64)? {
        guard let sequence else { return nil }
        if let known = frameStamp.withLock({ $0 }) { return (sequence, known) }
        let number = sequence.nextFrame()
        let stamp: Int64
        if let t = frameTime?.start.seconds, t.isFinite {
            stamp = Int64((t * 1e9).rounded())
        } else {
            stamp = number * SequenceState.frameInterval
        }
        // The filters ignore a time not after the last; a first frame at 0 still counts.
        let time = max(1, stamp)
        frameStamp.withLock { $0 = time }
        return (sequence, time)
    }

    /// Reads the depth that goes with the image: the depth data given, else a HEIC or portrait JPEG file's own.
    private func depthLoader() -> @Sendable () -> SceneDepth? {
        let given = depthData, orientation = orientation, source = source
        return {
            if let given { return SceneDepth(given, storedIn: orientation ?? .up) }
            switch source {
            case .url, .data:
                guard let data = try? Self.encoded(source), let read = try? AVDepthData.read(fromFile: data) else { return nil }
                // The file's own orientation is applied to its depth as to its pixels (by the decoder); one given to
                // the handler says how both are stored.
                return SceneDepth(read, storedIn: orientation ?? .up)
            case .pixels, .ciImage, .sampleBuffer:
                return nil
            }
        }
    }

    /// The bytes of an encoded source (a file is read once, here), nil for pixel sources.
    private static func encoded(_ source: Source) throws -> Data? {
        switch source {
        case .url(let url):
            if let reason = ImageDecoder.unreadableReason(url) {
                throw NSError(vision: .invalidImage, "cannot read the image file \(url.path): \(reason)")
            }
            return try ImageDecoder.readFile(url)
        case .data(let data): return data
        case .pixels, .ciImage, .sampleBuffer: return nil
        }
    }

    /// Decodes the source; with a `sufficientSide`, only when a smaller decode is possible (else nil).
    private static func load(_ source: Source, orientation: CGImagePropertyOrientation?, sufficientSide: Int?) throws
        -> (pixels: PixelBuffer, focalLength35mm: Double?)?
    {
        var pixels: PixelBuffer
        var focalLength: Double?
        var options = ImageDecoder.Options()
        options.applyOrientation = orientation == nil
        func minimumSize(_ info: ImageInfo, _ side: Int) -> (width: Int, height: Int)? {
            let long = max(info.width, info.height)
            guard info.format == .jpeg, long >= 2 * side else { return nil }
            let w = (side * info.width + long - 1) / long, h = (side * info.height + long - 1) / long
            // The decoder's minimum applies to its output, turned upright only when it applies the file's orientation.
            return options.applyOrientation && info.orientation.swapsDimensions ? (h, w) : (w, h)
        }
        switch source {
        case .url, .data:
            guard let data = try encoded(source) else { return nil }
            if let side = sufficientSide {
                guard let size = minimumSize(try ImageDecoder.info(data: data), side) else { return nil }
                options.minimumSize = size
            }
            let decoded = try ImageDecoder.decode(data: data, options: options)
            pixels = decoded.pixels
            focalLength = decoded.focalLengthIn35mmFilm
        case .pixels(let p):
            if sufficientSide != nil { return nil }
            pixels = p
        case .ciImage(let image):
            if sufficientSide != nil { return nil }
            pixels = try image.renderForVision()
        case .sampleBuffer(let sample):
            if sufficientSide != nil { return nil }
            pixels = try sample.visionPixels()
        }
        if let orientation, orientation != .up {
            // Cameras deliver 4:2:0 YCbCr frames in the sensor's orientation (`.right` from an upright phone); turning
            // moves whole pixels of one plane, so such frames become RGBA first.
            if pixels.planeCount > 1 { pixels = try pixels.converted(to: .rgba32) }
            pixels = try pixels.applying(orientation.imaging)
        }
        return (pixels, focalLength)
    }
}

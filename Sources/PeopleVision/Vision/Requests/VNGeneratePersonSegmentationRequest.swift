import Foundation
import PVCore
import PVImaging
import PVPerception

/// Produces a matte of the people in an image, as Apple's `VNGeneratePersonSegmentationRequest` (revision 1).
///
/// The result is one ``VNPixelBufferObservation`` whose one-component buffer holds 1 (255) on people and
/// 0 on the background, soft at the edges. Like Apple's, the mask of the `fast` and `balanced` levels is
/// at the network's resolution, not the image's: scale it to the image extent before compositing.
///
/// | level | mask | how |
/// |---|---|---|
/// | `.fast` | 256×144 | MediaPipe's landscape selfie model, kept inside the people the face detector (and, where the faces do not explain the mask, the pose detector) finds |
/// | `.balanced` | 256×256 | MediaPipe's general selfie model, with the same gate |
/// | `.accurate` (default) | the image's size | the landscape model's mask and each detected person's pose-model mask (people the selfie mask shows apart from those found are searched for as the body request does), fused and refined along the image's edges by a colour guided filter |
///
/// The request is stateful: reused on consecutive frames of the same size (a ``VNSequenceRequestHandler``
/// with the same request object), it smooths the mask over time, weighting the previous mask where the
/// new one is uncertain (ratio 0.7 at the fast level, 0.5 at the others; the first frame's mask is kept as it
/// was returned, in the output's pixel format).
///
/// ```swift
/// let request = VNGeneratePersonSegmentationRequest()
/// request.qualityLevel = .balanced
/// request.outputPixelFormat = kCVPixelFormatType_OneComponent8
/// try VNImageRequestHandler(url: url).perform([request])
/// let mask = request.results?.first?.pixelBuffer
/// ```
public final class VNGeneratePersonSegmentationRequest: VNStatefulRequest, @unchecked Sendable {
    /// Speed versus quality, as Apple's `VNGeneratePersonSegmentationRequest.QualityLevel`.
    public enum QualityLevel: UInt, Sendable {
        case accurate = 0
        case balanced = 1
        case fast = 2
    }

    private struct Settings {
        var quality: QualityLevel = .accurate
        var format: OSType = kCVPixelFormatType_OneComponent8
        var previous: PixelBuffer?
    }
    private let settings = Locked(Settings())

    /// Speed versus quality. Default `.accurate`.
    public var qualityLevel: QualityLevel {
        get { settings.withLock { $0.quality } }
        set { settings.withLock { $0.quality = newValue; $0.previous = nil } }
    }

    /// The mask's pixel format: `kCVPixelFormatType_OneComponent8` (default, 0–255),
    /// `kCVPixelFormatType_OneComponent16Half` or `kCVPixelFormatType_OneComponent32Float` (0–1).
    /// Any other value makes `perform` fail with ``VNErrorCode/invalidOption``.
    public var outputPixelFormat: OSType {
        get { settings.withLock { $0.format } }
        set { settings.withLock { $0.format = newValue } }
    }

    /// The formats ``outputPixelFormat`` accepts.
    public func supportedOutputPixelFormats() throws -> [NSNumber] {
        Self.formats.map { NSNumber(value: $0) }
    }

    /// The mask: one observation.
    public var results: [VNPixelBufferObservation]? { storedResults as? [VNPixelBufferObservation] }

    public override class var supportedRevisions: IndexSet { IndexSet(integer: VNGeneratePersonSegmentationRequestRevision1) }

    /// The stateful initializer Apple hides on this request; use `init()` or `init(completionHandler:)`.
    @available(*, unavailable, message: "use init() or init(completionHandler:)")
    public override init(frameAnalysisSpacing: CMTime, completionHandler: VNRequestCompletionHandler? = nil) {
        fatalError("unavailable")
    }

    public override init(completionHandler: VNRequestCompletionHandler? = nil) {
        super.init(completionHandler: completionHandler)
    }

    static let formats: [OSType] = [
        kCVPixelFormatType_OneComponent8, kCVPixelFormatType_OneComponent16Half, kCVPixelFormatType_OneComponent32Float,
    ]

    override func validate() throws {
        try super.validate()
        let format = outputPixelFormat
        guard Self.formats.contains(format) else {
            throw NSError(vision: .invalidOption, "outputPixelFormat \(fourCC(format)) is not supported; use OneComponent8, OneComponent16Half or OneComponent32Float")
        }
    }

    /// The fast and balanced levels' masks come from 256-pixel model inputs, so a whole-image request is served as
    /// well by an image about twice that size (a JPEG file is then decoded at a half, quarter or eighth of its size,
    /// faster). The accurate level refines its mask at the image's full size.
    override var sufficientImageSide: Int? {
        guard qualityLevel != .accurate, regionOfInterest == VNNormalizedIdentityRect else { return nil }
        return 480
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let (quality, format) = settings.withLock { ($0.quality, $0.format) }
        let analysis = try image.analysis(of: regionOfInterest)
        let segmenter = try Pipelines.segmenter(SegmentationQuality(rawValue: Int(quality.rawValue))!)
        let layout = PixelFormat(rawValue: format)!
        let previous = settings.withLock { $0.previous }
        guard let previous else {
            // The first frame: nothing to smooth against, so the mask is made in the output's format (8-bit straight
            // from the accurate level's refinement) and kept as the next frame's past.
            let output = try mask(of: image, analysis, by: segmenter, as: layout)
            settings.withLock { $0.previous = output }
            return [VNPixelBufferObservation(pixelBuffer: CVPixelBuffer(output), requestRevision: revision)]
        }
        var mask = try self.mask(of: image, analysis, by: segmenter, as: .oneComponent32Float)
        if previous.width == mask.width, previous.height == mask.height {
            let past = previous.format == .oneComponent32Float ? previous : try previous.converted(to: .oneComponent32Float)
            try TemporalMaskSmoothing.apply(to: &mask, previous: past, ratio: quality == .fast ? 0.7 : 0.5)
        }
        settings.withLock { $0.previous = mask }
        let output = layout == .oneComponent32Float ? mask : try mask.converted(to: layout)
        return [VNPixelBufferObservation(pixelBuffer: CVPixelBuffer(output), requestRevision: revision)]
    }
}

extension VNGeneratePersonSegmentationRequest {
    /// The mask of the analysed region in `format`; at the accurate level from the analysis's fusion, which an
    /// instance-mask request on the same region shares (on a frame of a tracking sequence, its people are followed).
    private func mask(of image: HandlerImage, _ analysis: ImageAnalysis, by segmenter: PersonSegmenter, as format: PixelFormat) throws
        -> PixelBuffer
    {
        guard segmenter.quality == .accurate else { return try segmenter.segment(analysis.image, as: format) }
        let mask = try segmenter.refine(try image.accurateFusion(of: regionOfInterest), guide: analysis.image, as: format)
        return mask.format == format ? mask : try mask.converted(to: format)
    }
}

/// Revision 1 of the person-segmentation request.
public let VNGeneratePersonSegmentationRequestRevision1: Int = 1

/// A four-character code as text, for messages.
func fourCC(_ code: OSType) -> String {
    let bytes = [24, 16, 8, 0].map { UInt8((code >> $0) & 0xFF) }
    if bytes.allSatisfy({ $0 >= 32 && $0 < 127 }) { return "'" + String(decoding: bytes, as: UTF8.self) + "'" }
    return "\(code)"
}

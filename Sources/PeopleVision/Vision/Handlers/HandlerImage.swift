import Foundation
import PVCore
import PVImaging
import PVPerception

/// The upright image a request analyses, decoded once per handler and shared by its requests.
final class HandlerImage: @unchecked Sendable {
    /// The whole upright image.
    let image: PixelBuffer
    /// Options given to the handler.
    let options: [VNImageOption: Any]
    /// Identifies the handler (instance masks need the same handler again).
    let handlerID: ObjectIdentifier
    /// The video frame's time, when a ``VNVideoProcessor`` performs the requests: their observations carry it.
    var frameTime: CMTimeRange?
    /// The file's EXIF 35 mm-equivalent focal length, when the handler decoded a file that has one.
    var focalLength35mm: Double?
    /// The sequence this image is a frame of, and the frame's time in nanoseconds, when a sequence handler or a
    /// video processor performs the requests.
    var sequence: (state: SequenceState, timestamp: Int64)?

    /// Reads the depth that goes with the image (given to the handler, or in its file), for ``sceneDepth()``.
    var depthLoader: (@Sendable () -> SceneDepth?)?
    /// ``sceneDepth()``'s result once read: `.some(nil)` when there is none.
    private let depth = Locked<SceneDepth??>(nil)

    /// The depth that goes with the image, read on first use; nil when there is none or it cannot be used.
    func sceneDepth() -> SceneDepth? {
        if let known = depth.withLock({ $0 }) { return known }
        let loaded = depthLoader?()
        depth.withLock { $0 = .some(loaded) }
        return loaded
    }

    /// The analysis of each region of interest requests asked for (the last four): the work the requests share.
    private let analyses = Locked<[(roi: CGRect, analysis: ImageAnalysis)]>([])

    init(image: PixelBuffer, options: [VNImageOption: Any], handlerID: ObjectIdentifier) {
        self.image = image
        self.options = options
        self.handlerID = handlerID
    }

    /// The region of interest in pixels (top-left origin), from a normalized lower-left rect.
    func pixelRect(for roi: CGRect) -> (x: Int, y: Int, width: Int, height: Int) {
        let W = Double(image.width), H = Double(image.height)
        let x0 = Int((Double(roi.minX) * W).rounded()), x1 = Int((Double(roi.maxX) * W).rounded())
        let top = Int(((1 - Double(roi.maxY)) * H).rounded()), bottom = Int(((1 - Double(roi.minY)) * H).rounded())
        let x = max(0, min(image.width - 1, x0)), y = max(0, min(image.height - 1, top))
        return (x, y, max(1, min(image.width, x1) - x), max(1, min(image.height, bottom) - y))
    }

    /// The analysis of a region of interest (normalized, lower-left origin), made on first use.
    func analysis(of roi: CGRect) throws -> ImageAnalysis {
        if let known = analyses.withLock({ $0.first { $0.roi == roi }?.analysis }) { return known }
        let made = ImageAnalysis(image: try region(roi))
        let analysis = analyses.withLock { list in
            if let raced = list.first(where: { $0.roi == roi }) { return raced.analysis }
            list.append((roi, made))
            // A handler used for many regions keeps the last few.
            if list.count > 4 { list.removeFirst(list.count - 4) }
            return made
        }
        // A frame of a sequence starts from the previous frame's people before any model runs on it.
        if roi == Self.wholeImage { sequence?.state.begin(analysis) }
        return analysis
    }

    /// The body pipeline's people for a request's region of interest, in the region's pixels, with the region's
    /// size. A region is not searched as a picture of its own: cut out and enlarged, a cat's face or a fold of cloth
    /// can look like a person to the pose models, which the whole picture shows it is not. So the whole image's
    /// people are taken (the same analysis whatever the region) and those mostly inside the region kept: at least
    /// ``regionShareToKeep`` of their `extent` (in image pixels, within the image; by default the landmark box)
    /// lies inside the region.
    func people(in roi: CGRect, extent: (PersonPose) -> BoundingBox? = { $0.landmarkBoundingBox }) throws
        -> (people: [PersonPose], width: Int, height: Int)
    {
        let r = pixelRect(for: roi)
        let analysis = try analysis(of: Self.wholeImage)
        let everyone = try sequence.map { try $0.state.people(of: analysis, timestamp: $0.timestamp) } ?? analysis.people()
        if r.x == 0, r.y == 0, r.width == image.width, r.height == image.height { return (everyone, r.width, r.height) }
        let region = BoundingBox(xMin: Double(r.x), yMin: Double(r.y), xMax: Double(r.x + r.width), yMax: Double(r.y + r.height))
        let whole = BoundingBox(xMin: 0, yMin: 0, xMax: Double(image.width), yMax: Double(image.height))
        let kept = everyone.filter { person in
            guard let seen = extent(person)?.intersection(with: whole) else { return false }
            return (seen.intersection(with: region)?.area ?? 0) >= Self.regionShareToKeep * seen.area
        }
        return (kept.map { $0.translated(byX: Double(r.x), y: Double(r.y)) }, r.width, r.height)
    }

    /// The accurate person mask's fusion for a request's region of interest. On a frame of a sequence that tracks
    /// people, the whole image's follows the sequence's people (``SequenceState/accurateFusion(of:)``).
    func accurateFusion(of roi: CGRect) throws -> PersonSegmenter.Fusion {
        let analysis = try analysis(of: roi)
        if roi == Self.wholeImage, let sequence { return try sequence.state.accurateFusion(of: analysis, timestamp: sequence.timestamp) }
        return try analysis.accurateFusion()
    }

    /// The share of a person's box inside the image that must lie inside a region of interest for the person to be
    /// reported in it.
    static let regionShareToKeep = 0.4

    /// The whole image as a region of interest.
    static let wholeImage = CGRect(x: 0, y: 0, width: 1, height: 1)

    /// The image cropped to a request's region of interest (the image itself when it covers everything).
    func region(_ roi: CGRect) throws -> PixelBuffer {
        let r = pixelRect(for: roi)
        if r.x == 0, r.y == 0, r.width == image.width, r.height == image.height { return image }
        return try image.cropped(x: r.x, y: r.y, width: r.width, height: r.height)
    }
}

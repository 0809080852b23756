import Foundation
import PVCore
import PVImaging

/// Performs requests on the frames of a video file, as Apple's `VNVideoProcessor`.
///
/// ```swift
/// let processor = VNVideoProcessor(url: videoURL)
/// let segmentation = VNGeneratePersonSegmentationRequest { request, error in
///     let mask = (request as? VNGeneratePersonSegmentationRequest)?.results?.first   // one frame's mask
///     print(mask?.timeRange.start.seconds ?? -1)
/// }
/// try processor.addRequest(segmentation, processingOptions: VNVideoProcessor.RequestProcessingOptions())
/// try processor.analyze(CMTimeRange(start: .zero, end: .indefinite))
/// ```
///
/// Frames are decoded with FFmpeg (any container and codec Debian's FFmpeg decodes; rotation metadata is not
/// applied) and performed in order; each request's completion handler runs once per frame it is due on, with the
/// frame's time in its observations' `timeRange` (start: the frame's time from the stream's start; duration: one
/// frame at the stream's average rate). The same request objects are performed on every frame, so stateful
/// requests (person segmentation) smooth across frames. A request's failure on a frame goes to its completion
/// handler and the analysis goes on; a video that cannot be read fails ``analyze(_:)``.
public final class VNVideoProcessor: @unchecked Sendable {  // mutable state guarded by `state`
    /// How often a request runs, as Apple's `VNVideoProcessor.Cadence` (abstract).
    public class Cadence: NSObject, NSCopying, @unchecked Sendable {
        public func copy(with zone: NSZone? = nil) -> Any { self }
    }

    /// At most `frameRate` frames per second of video.
    public final class FrameRateCadence: Cadence, @unchecked Sendable {
        /// Frames per second.
        public let frameRate: Int
        public init(_ frameRate: Int) { self.frameRate = frameRate }
    }

    /// A frame every `timeInterval` seconds of video.
    public final class TimeIntervalCadence: Cadence, @unchecked Sendable {
        /// Seconds between frames.
        public let timeInterval: CFTimeInterval
        public init(_ timeInterval: CFTimeInterval) { self.timeInterval = timeInterval }
    }

    /// A request's options, as Apple's `VNVideoProcessor.RequestProcessingOptions`.
    public final class RequestProcessingOptions: NSObject, NSCopying, @unchecked Sendable {
        /// How often the request runs; nil: every frame.
        public var cadence: Cadence?
        public override init() {}
        public func copy(with zone: NSZone? = nil) -> Any {
            let c = RequestProcessingOptions()
            c.cadence = cadence
            return c
        }
    }

    private struct Entry {
        let request: VNRequest
        /// When it runs.
        var cadence: FrameCadence
    }

    private struct State {
        var entries: [Entry] = []
        var cancelled = false
        var tracksPeople = false
    }

    private let url: URL
    private let state = Locked(State())

    /// A processor for the video at `videoURL` (read when ``analyze(_:)`` runs).
    public init(url videoURL: URL) { url = videoURL }

    /// PeopleVision extension: whether the body-pose, 3D body-pose, human-rectangle and hand requests and the accurate
    /// person mask follow the previous frame's people instead of running the pose detector on every frame, as
    /// ``VNSequenceRequestHandler/tracksPeople`` (default false). Set before ``analyze(_:)``.
    ///
    /// Off by default, as Apple's processor behaves: each frame's results then depend on that frame alone, and
    /// someone who walks in is found on the first frame they appear in, where tracking finds them at the next
    /// detection (at most 15 frames later). On, a frame whose people are all followed runs only their landmark
    /// models: per-frame body pose on a one-person 720p video is several times faster.
    public var tracksPeople: Bool {
        get { state.withLock { $0.tracksPeople } }
        set { state.withLock { $0.tracksPeople = newValue } }
    }

    /// Adds a request, before ``analyze(_:)`` or from a completion handler (it then runs from the next frame).
    /// - Throws: ``VNErrorCode/invalidOption`` for a cadence of zero or less; ``VNErrorCode/invalidArgument`` for a
    ///   request already added.
    public func addRequest(_ request: VNRequest, processingOptions: RequestProcessingOptions) throws {
        let interval: Double
        switch processingOptions.cadence {
        case nil: interval = 0
        case let rate as FrameRateCadence:
            guard rate.frameRate > 0 else { throw NSError(vision: .invalidOption, "a frame-rate cadence needs a positive rate, not \(rate.frameRate)") }
            interval = 1 / Double(rate.frameRate)
        case let time as TimeIntervalCadence:
            guard time.timeInterval > 0, time.timeInterval.isFinite else {
                throw NSError(vision: .invalidOption, "a time-interval cadence needs a positive interval, not \(time.timeInterval)")
            }
            interval = time.timeInterval
        default:
            throw NSError(vision: .invalidOption, "use a FrameRateCadence or a TimeIntervalCadence")
        }
        try state.withLock { s in
            guard !s.entries.contains(where: { $0.request === request }) else {
                throw NSError(vision: .invalidArgument, "\(type(of: request)) was already added to this video processor")
            }
            s.entries.append(Entry(request: request, cadence: FrameCadence(interval: interval)))
        }
    }

    /// Adds a request with the processing options of Apple's first video API (deprecated there in favour of
    /// ``addRequest(_:processingOptions:)``): ``VNVideoProcessingOption/frameCadence`` (an integer N: every Nth
    /// frame of the range, the first included) or ``VNVideoProcessingOption/timeInterval`` (seconds between runs).
    /// - Throws: ``VNErrorCode/invalidOption`` for a value that is not a positive number, or both options at once;
    ///   ``VNErrorCode/invalidArgument`` for a request already added.
    public func add(_ request: VNRequest, withProcessingOptions processingOptions: [VNVideoProcessingOption: Any] = [:]) throws {
        func positive(_ option: VNVideoProcessingOption) throws -> Double? {
            guard let value = processingOptions[option] else { return nil }
            let number = (value as? NSNumber)?.doubleValue ?? (value as? Double) ?? (value as? Int).map(Double.init)
            guard let number, number > 0, number.isFinite else {
                throw NSError(vision: .invalidOption, "\(option.rawValue) must be a positive number, not \(value)")
            }
            return number
        }
        let step = try positive(.frameCadence), interval = try positive(.timeInterval)
        if step != nil && interval != nil {
            throw NSError(vision: .invalidOption, "give a frame cadence or a time interval, not both")
        }
        if let step, step != step.rounded() {
            throw NSError(vision: .invalidOption, "the frame cadence counts frames: \(step) is not a whole number")
        }
        try state.withLock { s in
            guard !s.entries.contains(where: { $0.request === request }) else {
                throw NSError(vision: .invalidArgument, "\(type(of: request)) was already added to this video processor")
            }
            s.entries.append(Entry(request: request, cadence: FrameCadence(interval: interval ?? 0, frameStep: Int(step ?? 1))))
        }
    }

    /// Removes a request added before.
    /// - Throws: ``VNErrorCode/invalidArgument`` for a request not added.
    public func removeRequest(_ request: VNRequest) throws {
        try state.withLock { s in
            guard let i = s.entries.firstIndex(where: { $0.request === request }) else {
                throw NSError(vision: .invalidArgument, "\(type(of: request)) was not added to this video processor")
            }
            s.entries.remove(at: i)
        }
    }

    /// Performs the requests on every frame whose time lies in `timeRange` (an indefinite or infinite duration runs
    /// to the end), and returns when done.
    /// - Throws: ``VNErrorCode/invalidImage`` for a file that is not a readable video; ``VNErrorCode/invalidArgument``
    ///   for a range with no frame in it; ``VNErrorCode/requestCancelled`` when ``cancel()`` stopped the analysis.
    public func analyze(_ timeRange: CMTimeRange) throws {
        state.withLock { s in
            s.cancelled = false
            for i in s.entries.indices { s.entries[i].cadence.restart() }
        }
        // The frames of one analysis are one sequence (body landmarks smoothed over them).
        let sequence = SequenceState()
        sequence.tracksPeople = tracksPeople
        try VideoFrames.read(url, in: timeRange, isCancelled: { state.withLock { $0.cancelled } }) { frame, time in
            let seconds = time.start.seconds
            let due: [VNRequest] = state.withLock { s in
                s.entries.indices.compactMap { s.entries[$0].cadence.isDue(at: seconds) ? s.entries[$0].request : nil }
            }
            guard !due.isEmpty else { return }
            // Failures reach each request's completion handler; the analysis goes on.
            let handler = VNImageRequestHandler(frame: frame, at: time)
            handler.sequence = sequence
            try? handler.perform(due)
        }
    }

    /// ``analyze(_:)`` under the name of Apple's first video API (deprecated there).
    @available(*, deprecated, renamed: "analyze(_:)")
    public func analyze(with timeRange: CMTimeRange) throws { try analyze(timeRange) }

    /// Stops ``analyze(_:)`` before its next frame (it then throws ``VNErrorCode/requestCancelled``).
    public func cancel() { state.withLock { $0.cancelled = true } }
}

/// An option of ``VNVideoProcessor/add(_:withProcessingOptions:)``, as Apple's `VNVideoProcessingOption`.
public struct VNVideoProcessingOption: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Every how many frames the request runs (an integer, as `NSNumber` or `Int`).
    public static let frameCadence = VNVideoProcessingOption(rawValue: "VNVideoProcessingOptionFrameCadence")
    /// Seconds of video between runs (a number).
    public static let timeInterval = VNVideoProcessingOption(rawValue: "VNVideoProcessingOptionTimeInterval")
}

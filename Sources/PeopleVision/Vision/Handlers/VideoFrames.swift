import Foundation
import PVImaging

/// When a request runs on a video's frames: every frame, every Nth frame, or once per interval of video time. Shared
/// by ``VNVideoProcessor`` and ``VideoProcessor``.
struct FrameCadence: Sendable {
    /// Seconds between runs (0: by frame count).
    var interval: Double = 0
    /// Every how many frames the request runs.
    var frameStep = 1
    /// The video time from which the request is next due.
    private var due: Double = -.infinity
    /// Frames seen since the analysis started.
    private var frames = 0

    init(interval: Double = 0, frameStep: Int = 1) {
        self.interval = interval
        self.frameStep = frameStep
    }

    /// Back to the start of an analysis.
    mutating func restart() {
        due = -.infinity
        frames = 0
    }

    /// Whether the request runs on the frame at `seconds` (called once per frame, in order).
    mutating func isDue(at seconds: Double) -> Bool {
        defer { frames += 1 }
        if frameStep > 1 { return frames % frameStep == 0 }
        guard seconds >= due - VideoFrames.slack else { return false }
        // Due again one interval after the last due time (so the rate holds on average when frames fall between),
        // and never before this frame.
        due = due.isInfinite ? seconds + interval : max(due + interval, seconds)
        return true
    }
}

/// The frames of a video file within a time range, read one by one, each with its time.
enum VideoFrames {
    /// A frame is in the range when its time is; this absorbs the timestamps' rounding.
    static let slack = 1e-6

    /// Calls `body` with every frame of `url` whose time lies in `timeRange` (an indefinite or infinite duration runs
    /// to the end) and the frame's time range (start, one frame's duration), until `isCancelled` says stop.
    /// - Throws: ``VNErrorCode/invalidImage`` for a file that is not a readable video; ``VNErrorCode/invalidArgument``
    ///   for a range with no frame in it; ``VNErrorCode/requestCancelled`` when cancelled; what `body` throws.
    static func read(
        _ url: URL, in timeRange: CMTimeRange, isCancelled: () -> Bool,
        _ body: (PixelBuffer, CMTimeRange) throws -> Void
    ) throws {
        let reader = try ErrorTranslation.translating(readingInput: "the video \(url.path)") { try VideoReader(url: url) }
        let toTheEnd = timeRange.duration.isIndefinite || timeRange.duration.isPositiveInfinity
        let start = timeRange.start.seconds, end = toTheEnd ? Double.infinity : timeRange.end.seconds
        guard start.isFinite, !end.isNaN, end > start else {
            throw NSError(vision: .invalidArgument, "the time range \(start)…\(end) s is empty or not finite at its start")
        }
        let frameLength = reader.framesPerSecond > 0 ? 1 / reader.framesPerSecond : 0
        var analysed = 0
        while true {
            if isCancelled() { throw NSError(vision: .requestCancelled, "the video analysis was cancelled") }
            let next: (frame: PixelBuffer, seconds: Double)?
            next = try ErrorTranslation.translating(readingInput: "the video \(url.path)") { try reader.nextFrame() }
            guard let (frame, seconds) = next, seconds < end - slack else { break }
            guard seconds >= start - slack else { continue }
            analysed += 1
            try body(
                frame,
                CMTimeRange(
                    start: CMTime(seconds: seconds, preferredTimescale: 90_000),
                    duration: CMTime(seconds: frameLength, preferredTimescale: 90_000)))
        }
        if analysed == 0 {
            throw NSError(vision: .invalidArgument, "no frame of \(url.lastPathComponent) lies in the time range \(start)…\(end) s")
        }
    }
}

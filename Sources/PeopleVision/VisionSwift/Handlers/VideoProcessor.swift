import Foundation
import PVCore
import PVPerception

/// Performs requests on the frames of a video file and delivers each request's results as an asynchronous sequence,
/// as Vision's `VideoProcessor` (iOS 18).
///
/// ```swift
/// let processor = VideoProcessor(videoURL)
/// let poses = try await processor.addRequest(DetectHumanBodyPoseRequest(), cadence: .frameInterval(2))
/// processor.startAnalysis()
/// for try await bodies in poses { print(bodies.first?.timeRange.start.seconds ?? -1) }
/// ```
///
/// The frames of one analysis are one sequence: body landmarks are smoothed over them, as on a
/// ``VNVideoProcessor``. A request whose perform fails on a frame ends its sequence with the error; the others go on.
/// A video that cannot be read ends every sequence with its error; ``cancel()`` ends them with `CancellationError`.
public final class VideoProcessor: Sendable {
    /// How often a request runs, as Vision's `VideoProcessor.Cadence`.
    public enum Cadence: Sendable, Hashable, CustomStringConvertible {
        /// Every Nth frame (the first included).
        case frameInterval(Int)
        /// Once per interval of video time.
        case timeInterval(CMTime)

        public var description: String {
            switch self {
            case .frameInterval(let n): "frameInterval(\(n))"
            case .timeInterval(let t): "timeInterval(\(t.seconds) s)"
            }
        }
    }

    private struct Entry: Sendable {
        let request: any VisionRequest
        var cadence: FrameCadence
        let deliver: @Sendable (any Sendable) -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct State {
        var entries: [Entry] = []
        var cancelled = false
        var started = false
        var tracksPeople = false
    }

    private let url: URL
    private let state = Locked(State())

    /// A processor for the video at `videoURL` (read when the analysis starts).
    public init(_ videoURL: URL) { url = videoURL }

    /// PeopleVision extension: whether the body requests and the accurate person mask follow the previous frame's
    /// people instead of running the pose detector on every frame (default false; set before
    /// ``startAnalysis(of:)``). See ``VNVideoProcessor/tracksPeople`` for what it changes and why it is off by default.
    public final var tracksPeople: Bool {
        get { state.withLock { $0.tracksPeople } }
        set { state.withLock { $0.tracksPeople = newValue } }
    }

    /// Adds a request, before ``startAnalysis(of:)``, and returns the sequence of its results, one per frame it runs on.
    /// - Throws: ``VisionError/invalidArgument(_:)`` for a cadence of zero or less, or once the analysis started;
    ///   ``VisionError/unsupportedRequest(_:)`` for a request this package does not perform.
    public final func addRequest<T>(_ request: T, cadence: VideoProcessor.Cadence? = nil) async throws
        -> some AsyncSequence<T.Result, any Error> where T: VisionRequest
    {
        guard request is any EngineRequest else {
            throw VisionError.unsupportedRequest("\(type(of: request)) is not a request this package performs")
        }
        let clock: FrameCadence
        switch cadence {
        case nil: clock = FrameCadence()
        case .frameInterval(let n):
            guard n > 0 else { throw VisionError.invalidArgument("a frame interval must be positive, not \(n)") }
            clock = FrameCadence(frameStep: n)
        case .timeInterval(let t):
            guard t.isValid, t.seconds > 0, t.seconds.isFinite else {
                throw VisionError.invalidArgument("a time interval must be a positive time, not \(t.seconds) s")
            }
            clock = FrameCadence(interval: t.seconds)
        }
        let (stream, continuation) = AsyncThrowingStream<Delivery<T.Result>, any Error>.makeStream()
        let entry = Entry(
            request: request, cadence: clock,
            deliver: { value in if let result = value as? T.Result { continuation.yield(Delivery(value: result)) } },
            finish: { error in continuation.finish(throwing: error) })
        try state.withLock { s in
            guard !s.started else { throw VisionError.invalidArgument("requests are added before the analysis starts") }
            s.entries.append(entry)
        }
        return stream.map(\.value)
    }

    /// Removes a request added before; its sequence ends. Returns whether it was there.
    public final func removeRequest(_ request: any VisionRequest) async -> Bool {
        let removed: Entry? = state.withLock { s in
            guard let i = s.entries.firstIndex(where: { AnyHashable($0.request) == AnyHashable(request) }) else { return nil }
            return s.entries.remove(at: i)
        }
        removed?.finish(nil)
        return removed != nil
    }

    /// Starts performing the requests on the frames in `timeRange` (nil: the whole video), in order, on a thread of
    /// its own; the results arrive through the sequences ``addRequest(_:cadence:)`` returned.
    public final func startAnalysis(of timeRange: CMTimeRange? = nil) {
        let starts = state.withLock { s in
            defer { s.started = true }
            return !s.started
        }
        guard starts else { return }
        let range = timeRange ?? CMTimeRange(start: .zero, duration: .positiveInfinity)
        let url = self.url
        Task.detached { [self] in
            do {
                try await BlockingWork.run(named: "VideoProcessor") { try self.analyze(url, range) }
                for e in self.state.withLock({ $0.entries }) { e.finish(nil) }
            } catch {
                let failure = error is CancellationError ? error : VisionError.from(error)
                for e in self.state.withLock({ $0.entries }) { e.finish(failure) }
            }
        }
    }

    /// Stops the analysis before its next frame; every sequence ends with `CancellationError`.
    public final func cancel() async {
        state.withLock { $0.cancelled = true }
    }

    /// The frame loop.
    private func analyze(_ url: URL, _ range: CMTimeRange) throws {
        let sequence = SequenceState()
        sequence.tracksPeople = state.withLock { $0.tracksPeople }
        do {
            try VideoFrames.read(url, in: range, isCancelled: { state.withLock { $0.cancelled } }) { frame, time in
                let seconds = time.start.seconds
                let due: [Entry] = state.withLock { s in
                    s.entries.indices.compactMap { s.entries[$0].cadence.isDue(at: seconds) ? s.entries[$0] : nil }
                }
                guard !due.isEmpty else { return }
                let engine = VNImageRequestHandler(frame: frame, at: time)
                engine.sequence = sequence
                let handler = ImageRequestHandler(engine: engine)
                _ = try ImageRequestHandler.performSynchronously(
                    due.map(\.request), on: engine, handler: handler, stopAtFirstError: false,
                    isCancelled: { state.withLock { $0.cancelled } }
                ) { index, outcome in
                    switch outcome {
                    case .success(let value): due[index].deliver(value)
                    case .failure(let error):
                        // This request's sequence ends with the error; the others go on.
                        let request = due[index].request
                        self.state.withLock { s in s.entries.removeAll { AnyHashable($0.request) == AnyHashable(request) } }
                        due[index].finish(error)
                    }
                }
            }
        } catch let error as NSError where error.domain == VNErrorDomain && error.code == VNErrorCode.requestCancelled.rawValue {
            throw CancellationError()
        }
    }
}

/// One result on its way to a request's sequence (boxed so that the stream's element type is always `Sendable`).
private struct Delivery<Value>: @unchecked Sendable {  // the value is a request's result, made and read once
    let value: Value
}

import Foundation
import PVPerception
import Synchronization

/// Performs requests of the Swift API on one image, as Vision's `ImageRequestHandler` (iOS 18).
///
/// The image is decoded (and turned upright) once, on the first perform, and every request performed on the handler
/// shares its analysis: the handler stands on one ``VNImageRequestHandler``, so requests performed here give the
/// same numbers as their `VN…` counterparts performed on a `VNImageRequestHandler` of the same image.
///
/// ```swift
/// let handler = ImageRequestHandler(photoURL)
/// let (faces, bodies) = try await handler.perform(DetectFaceLandmarksRequest(), DetectHumanBodyPoseRequest())
/// ```
///
/// The models run synchronously for a second or more; so that they do not hold a thread of Swift's cooperative pool,
/// every perform runs them on a parked thread of the engine's thread module, and the calling task waits without
/// blocking. Cancelling the task stops the perform before its next model run and throws `CancellationError`.
public final class ImageRequestHandler: Sendable {
    /// The engine's handler: the image, its decoding and its per-region analyses.
    let engine: VNImageRequestHandler

    init(engine: VNImageRequestHandler) { self.engine = engine }

    /// An image file (JPEG, PNG, HEIC, WebP); nil `orientation` honours the file's EXIF orientation.
    public convenience init(_ imageURL: URL, orientation: CGImagePropertyOrientation? = nil) {
        self.init(engine: orientation.map { VNImageRequestHandler(url: imageURL, orientation: $0) } ?? VNImageRequestHandler(url: imageURL))
    }

    /// Encoded image data (JPEG, PNG, HEIC, WebP); nil `orientation` honours its EXIF orientation.
    public convenience init(_ data: Data, orientation: CGImagePropertyOrientation? = nil) {
        self.init(engine: orientation.map { VNImageRequestHandler(data: data, orientation: $0) } ?? VNImageRequestHandler(data: data))
    }

    /// A `CGImage` whose pixels have the given orientation (nil: `.up`).
    public convenience init(_ image: CGImage, orientation: CGImagePropertyOrientation? = nil) {
        self.init(engine: VNImageRequestHandler(cgImage: image, orientation: orientation ?? .up))
    }

    /// A `CIImage` (rendered once over its extent, which must be finite) with the given orientation (nil: `.up`).
    public convenience init(_ image: CIImage, orientation: CGImagePropertyOrientation? = nil) {
        self.init(engine: VNImageRequestHandler(ciImage: image, orientation: orientation ?? .up))
    }

    /// A `CVPixelBuffer` whose pixels have the given orientation (nil: `.up`), with the depth captured with it if
    /// any: ``DetectHumanBodyPose3DRequest`` then measures the person, as
    /// ``VNImageRequestHandler/init(cvPixelBuffer:depthData:orientation:options:)`` describes.
    public convenience init(
        _ pixelBuffer: CVPixelBuffer, depthData: AVDepthData? = nil, orientation: CGImagePropertyOrientation? = nil
    ) {
        self.init(
            engine: VNImageRequestHandler(
                source: .pixels(pixelBuffer.pixelBuffer), orientation: orientation ?? .up, options: [:], depthData: depthData))
    }

    /// A camera or video frame (its image buffer) whose pixels have the given orientation (nil: `.up`), with the
    /// depth captured with it if any; the observations carry the frame's time.
    public convenience init(
        _ sampleBuffer: CMSampleBuffer, depthData: AVDepthData? = nil, orientation: CGImagePropertyOrientation? = nil
    ) {
        self.init(
            engine: VNImageRequestHandler(
                source: .sampleBuffer(sampleBuffer), orientation: orientation ?? .up, options: [:],
                frameTime: sampleBuffer.visionTimeRange, depthData: depthData))
    }

    /// Performs one request and returns its result.
    /// - Throws: ``VisionError`` when the request fails, `CancellationError` when the task is cancelled first.
    public final func perform<T>(_ request: T) async throws -> T.Result where T: VisionRequest {
        let outcomes = try await run([request], stopAtFirstError: true, report: nil)
        return try Self.unwrap(outcomes[0], as: T.self)
    }

    /// Performs several requests on the image, in order, sharing its analysis, and returns their results in the
    /// order given.
    /// - Throws: the first failure (``VisionError``), or `CancellationError` when the task is cancelled before a
    ///   request starts.
    public final func perform<each T>(_ request: repeat each T) async throws -> (repeat (each T).Result)
    where repeat each T: VisionRequest {
        var requests: [any VisionRequest] = []
        for r in repeat each request { requests.append(r) }
        let outcomes = try await run(requests, stopAtFirstError: true, report: nil)
        var index = 0
        func next<R: VisionRequest>(_ type: R.Type) throws -> R.Result {
            defer { index += 1 }
            return try Self.unwrap(outcomes[index], as: R.self)
        }
        return (repeat try next((each T).self))
    }

    /// Performs every request on the image, sharing its analysis, and yields each one's result (or error) as it
    /// completes. Cancelling the task that iterates stops the requests not yet started.
    public final func performAll(_ requests: some Collection<any VisionRequest>) -> some AsyncSequence<VisionResult, Never> {
        let list = Array(requests)
        let (stream, continuation) = AsyncStream<VisionResult>.makeStream()
        let task = Task {
            _ = try? await self.run(list, stopAtFirstError: false) { index, outcome in
                continuation.yield(Self.visionResult(list[index], outcome))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Runs the requests on a thread of their own; `report` hears of each request as it completes.
    private func run(
        _ requests: [any VisionRequest], stopAtFirstError: Bool,
        report: (@Sendable (Int, Result<any Sendable, any Error>) -> Void)?
    ) async throws -> [Result<any Sendable, any Error>] {
        let stop = StopRequest()
        let start = SwiftAPIOverhead.now(), clock = EngineClock()
        defer { if start != 0 { SwiftAPIOverhead.add(total: DispatchTime.now().uptimeNanoseconds - start, engine: clock.nanoseconds) } }
        return try await withTaskCancellationHandler {
            try Task.checkCancellation()
            do {
                return try await BlockingWork.run { [engine] in
                    try stop.run {
                        try Self.performSynchronously(
                            requests, on: engine, handler: self, stopAtFirstError: stopAtFirstError,
                            isCancelled: { stop.isRaised }, report: report, clock: clock)
                    }
                }
            } catch where stop.isRaised {
                // Stopped between model runs: the request's error says cancelled; the task sees its own error.
                throw CancellationError()
            }
        } onCancel: {
            stop.raise()
        }
    }

    /// The synchronous perform, as `VNImageRequestHandler.perform(_:)` does it: the image is prepared once, every
    /// request announces what it will ask before any runs, then they run in order.
    static func performSynchronously(
        _ requests: [any VisionRequest], on engine: VNImageRequestHandler, handler: ImageRequestHandler,
        stopAtFirstError: Bool, isCancelled: () -> Bool, report: ((Int, Result<any Sendable, any Error>) -> Void)?,
        clock: EngineClock = EngineClock()
    ) throws -> [Result<any Sendable, any Error>] {
        var made: [Result<(any EngineRequest, [VNRequest]), any Error>] = []
        for request in requests {
            guard let r = request as? any EngineRequest else {
                made.append(.failure(VisionError.unsupportedRequest("\(type(of: request)) is not a request this package performs")))
                continue
            }
            made.append(Result { (r, try r.makeEngineRequests()) }.mapError(VisionError.from))
        }
        let all = made.flatMap { (try? $0.get().1) ?? [] }
        let image: HandlerImage
        do {
            let sides = all.map(\.sufficientImageSide)
            image = try clock.timing { try engine.prepare(sufficientSide: sides.contains(nil) ? nil : sides.compactMap { $0 }.max()) }
        } catch {
            throw VisionError.from(error)
        }
        clock.timing { for r in all { r.announce(to: image) } }
        var outcomes: [Result<any Sendable, any Error>] = []
        for (index, entry) in made.enumerated() {
            if isCancelled() { throw CancellationError() }
            let outcome: Result<any Sendable, any Error> = Result {
                let (request, engineRequests) = try entry.get()
                try clock.timing { for e in engineRequests { try e.run(on: image) } }
                return try request.result(of: engineRequests, on: handler) as any Sendable
            }.mapError(VisionError.from)
            if stopAtFirstError, case .failure(let e) = outcome { throw e }
            report?(index, outcome)
            outcomes.append(outcome)
        }
        return outcomes
    }

    private static func unwrap<T: VisionRequest>(_ outcome: Result<any Sendable, any Error>, as type: T.Type) throws -> T.Result {
        guard let value = try outcome.get() as? T.Result else {
            throw VisionError.internalError("a result of \(T.self) has the wrong type")
        }
        return value
    }

    private static func visionResult(_ request: any VisionRequest, _ outcome: Result<any Sendable, any Error>) -> VisionResult {
        func tagged<R: VisionRequest>(_ r: R) -> VisionResult {
            switch outcome {
            case .success(let value):
                if let e = r as? any EngineRequest, let tagged = e.visionResult(any: value) { return tagged }
                return .error(r, VisionError.internalError("a result of \(R.self) has the wrong type"))
            case .failure(let error):
                return .error(r, error)
            }
        }
        return tagged(request)
    }
}

extension EngineRequest {
    /// ``visionResult(_:)`` for a result of unknown static type.
    func visionResult(any value: Any) -> VisionResult? {
        (value as? Result).map(visionResult)
    }
}

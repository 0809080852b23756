import CVideoCodecs
import Foundation
import PVCore
import PVThreads

/// A C message buffer as text.
private func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Reads a video file's frames as `.bgra32` pixel buffers, through FFmpeg (any container and codec Debian's
/// FFmpeg 5.1 decodes). Frames come in presentation order with their time in seconds from the stream's start,
/// turned upright by the stream's rotation (the display matrix phones write; quarter turns); audio is ignored.
///
/// ```swift
/// let video = try VideoReader(url: url)
/// while let (frame, seconds) = try video.nextFrame() { … }
/// ```
///
/// With `readAhead`, a thread of its own decodes the next frames while the caller works on the current one: the
/// frames and times are the same, and a decoding error is thrown by the ``nextFrame()`` call that would have
/// returned the frame that failed.
///
/// Not for use from several threads at once.
public final class VideoReader {
    private var decoder: VideoDecoder?
    private var stage: VideoStage<(frame: PixelBuffer, seconds: Double)>?
    /// The size of the (upright) frames in pixels.
    public let width: Int, height: Int
    /// How the stored frames are turned to be upright (from the stream's rotation).
    public let orientation: Orientation
    /// The average frame rate, frames per second (0 when the file does not say).
    public let framesPerSecond: Double
    /// The number of frames the container announces (0 when it does not).
    public let announcedFrameCount: Int

    /// Opens `url`'s best video stream; with `readAhead` above 0, a thread starts decoding at once and keeps up to
    /// that many frames ready.
    /// - Throws: ``ImagingError`` `.ioError` for a missing or unreadable file, `.unsupportedFormat` for a file with no
    ///   video stream FFmpeg decodes, `.invalidDimensions` / `.tooLarge` for frames `limits` refuses.
    public init(url: URL, limits: ImageLimits = .default, readAhead: Int = 0) throws {
        if let reason = ImageDecoder.unreadableReason(url) { throw ImagingError(.ioError, "cannot read the video \(url.path): \(reason)") }
        let decoder = try VideoDecoder(url: url)
        let upright = decoder.orientation.orientedSize(width: decoder.storedWidth, height: decoder.storedHeight)
        (width, height) = (upright.width, upright.height)
        (orientation, framesPerSecond, announcedFrameCount) = (decoder.orientation, decoder.framesPerSecond, decoder.announcedFrameCount)
        _ = try PixelBuffer(width: width, height: height, format: .bgra32, limits: limits)
        self.decoder = decoder
        if readAhead > 0 {
            stage = VideoStage(named: "video decode", capacity: readAhead) { stage in
                do {
                    while let frame = try decoder.next() {
                        guard stage.handoff.put(frame) else { return }  // cancelled
                    }
                    stage.handoff.close(nil)
                } catch {
                    stage.handoff.close(error)
                }
            }
        }
    }

    deinit { cancel() }

    /// Whether the file at `url` has an audio stream FFmpeg reads.
    public static func hasAudioStream(at url: URL) -> Bool { pv_video_has_audio(url.path) != 0 }

    /// The next frame and its time in seconds, or `nil` at the end (or after ``cancel()``).
    /// - Throws: ``ImagingError`` `.corruptData` when the stream cannot be decoded further.
    public func nextFrame() throws -> (frame: PixelBuffer, seconds: Double)? {
        if let stage { return try stage.handoff.take() }
        return try decoder?.next()
    }

    /// Stops reading: the read-ahead thread, if any, has ended when this returns, the file is closed, and
    /// ``nextFrame()`` returns `nil` from now on.
    public func cancel() {
        stage?.cancel()
        decoder?.close()
        decoder = nil
    }
}

/// A video file's decoding state: used by one thread at a time (the reader's caller, or the read-ahead thread until
/// it has ended).
private final class VideoDecoder: @unchecked Sendable {
    private var reader: OpaquePointer?
    let storedWidth: Int, storedHeight: Int
    let orientation: Orientation
    let framesPerSecond: Double
    let announcedFrameCount: Int

    init(url: URL) throws {
        var w: Int32 = 0, h: Int32 = 0, fps = 0.0, frames: Int64 = 0, rotation: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        guard pv_video_open(url.path, &reader, &w, &h, &fps, &frames, &rotation, &message, message.count) == 0 else {
            throw ImagingError(.unsupportedFormat, "cannot read the video \(url.path): \(text(message))")
        }
        switch rotation {
        case 90: orientation = .right
        case 180: orientation = .down
        case 270: orientation = .left
        default: orientation = .up
        }
        (storedWidth, storedHeight, framesPerSecond, announcedFrameCount) = (Int(w), Int(h), fps, Int(frames))
    }

    deinit { close() }

    func close() {
        pv_video_close(reader)
        reader = nil
    }

    func next() throws -> (frame: PixelBuffer, seconds: Double)? {
        guard let reader else { return nil }
        var frame = try PixelBuffer(width: storedWidth, height: storedHeight, format: .bgra32)
        var seconds = 0.0
        var message = [CChar](repeating: 0, count: 256)
        let stride = frame.bytesPerRow()
        let rc = frame.withUnsafeMutableBytes { raw in
            pv_video_next(reader, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(stride), &seconds, &message, message.count)
        }
        if rc < 0 { throw ImagingError(.corruptData, "cannot decode the video: \(text(message))") }
        return rc == 0 ? nil : (try frame.applying(orientation), seconds)
    }
}

/// Writes frames to a video file: H.264 (libx264) in the container the file name's extension names (.mp4, .m4v,
/// .mov, .mkv). The file appears only when ``finish(copyingAudioFrom:)`` succeeds (frames go to a temporary file
/// beside it, renamed at the end); a writer cancelled or dropped unfinished leaves nothing.
///
/// With `encodeBehind`, a thread of its own converts and encodes the frames while the caller prepares the next
/// ones: the file is the same. A frame the encoder refuses (a time that does not increase) or fails on is then
/// reported by a later ``append(_:at:)``, at the latest by ``finish(copyingAudioFrom:)``, and no file is written.
///
/// Not for use from several threads at once.
public final class VideoWriter {
    private let encoder: VideoEncoder
    private var stage: VideoStage<(frame: PixelBuffer, seconds: Double)>?
    /// The frame size in pixels.
    public let width: Int, height: Int

    /// The file extensions a writer accepts.
    public static let fileExtensions: Set<String> = ["mp4", "m4v", "mov", "mkv"]

    /// Starts a video of `width × height` frames at about `framesPerSecond` (a hint for players; each frame has its
    /// own time), at x264 quality `crf` (0–51, lower is better; default 20). `displayRotation` (0, 90, 180 or 270
    /// degrees clockwise) is stored for players to turn the frames, as phones record. With `encodeBehind` above 0,
    /// up to that many appended frames wait for the encoding thread before ``append(_:at:)`` waits.
    /// - Throws: ``ImagingError`` `.invalidArgument` for another extension or a bad size, quality or rotation;
    ///   `.ioError` when the file cannot be created.
    public init(url: URL, width: Int, height: Int, framesPerSecond: Double, crf: Int = 20, displayRotation: Int = 0,
                encodeBehind: Int = 0) throws {
        let ext = url.pathExtension.lowercased()
        guard Self.fileExtensions.contains(ext) else {
            throw ImagingError(.invalidArgument, "a video is written as \(Self.fileExtensions.sorted().map { "." + $0 }.joined(separator: ", ")), not '.\(ext)'")
        }
        guard width > 0, height > 0, width <= 16384, height <= 16384, (0...51).contains(crf), framesPerSecond.isFinite,
            framesPerSecond >= 0
        else {
            throw ImagingError(.invalidArgument, "cannot write a \(width)×\(height) video at \(framesPerSecond) fps, crf \(crf)")
        }
        guard [0, 90, 180, 270].contains(displayRotation) else {
            throw ImagingError(.invalidArgument, "a video's rotation is 0, 90, 180 or 270 degrees, not \(displayRotation)")
        }
        (self.width, self.height) = (width, height)
        let encoder = try VideoEncoder(url: url, width: width, height: height, framesPerSecond: framesPerSecond, crf: crf,
                                       displayRotation: displayRotation)
        self.encoder = encoder
        if encodeBehind > 0 {
            stage = VideoStage(named: "video encode", capacity: encodeBehind) { stage in
                do {
                    while let (frame, seconds) = try stage.handoff.take() { try encoder.add(frame, at: seconds) }
                } catch {
                    stage.fail(error)
                }
            }
        }
    }

    deinit { cancel() }

    /// Adds a frame (any pixel format, the writer's size) shown at `seconds`; times must increase.
    /// - Throws: ``ImagingError`` `.invalidArgument` for another size or a time that does not increase,
    ///   `.encodingFailed` when the encoder fails, `.ioError` after ``finish(copyingAudioFrom:)`` or ``cancel()``.
    public func append(_ frame: PixelBuffer, at seconds: Double) throws {
        guard let stage else { return try encoder.add(frame, at: seconds) }
        if let failure = stage.failure { throw failure }
        try encoder.checkSize(of: frame)
        guard stage.handoff.put((frame, seconds)) else {
            throw stage.failure ?? ImagingError(.ioError, "the video \(encoder.url.path) was cancelled")
        }
    }

    /// What ``finish(copyingAudioFrom:)`` did with the audio.
    public enum AudioCopy: Sendable, Equatable {
        /// No audio was asked for, or the source has none.
        case none
        /// The source's audio stream was copied (not re-encoded), cut at the video's end.
        case copied
        /// The source's audio could not be copied (for example a codec the container cannot hold); the video is
        /// written without it.
        case dropped(reason: String)
    }

    /// Flushes the encoder (waiting for the encoding thread's last frames) and moves the finished file into place;
    /// with `source`, its audio stream is copied in (as it is, timed from its own start, cut at the video's end).
    /// - Throws: ``ImagingError`` `.encodingFailed` or `.ioError`, or the failure of a frame still being encoded;
    ///   the file is then not written.
    @discardableResult
    public func finish(copyingAudioFrom source: URL? = nil) throws -> AudioCopy {
        if let stage {
            self.stage = nil
            stage.handoff.close(nil)
            stage.join()
            if let failure = stage.failure {
                encoder.discard()
                throw failure
            }
        }
        return try encoder.finish(copyingAudioFrom: source)
    }

    /// Abandons the video: the encoding thread, if any, has ended when this returns, and no file is written.
    public func cancel() {
        stage?.cancel()
        stage = nil
        encoder.discard()
    }
}

/// A video file being written: used by one thread at a time (the writer's caller, or the encoding thread until it
/// has ended; ``checkSize(of:)`` reads constants only).
private final class VideoEncoder: @unchecked Sendable {
    private var writer: OpaquePointer?
    let url: URL
    private let temporary: URL
    private let width: Int, height: Int

    init(url: URL, width: Int, height: Int, framesPerSecond: Double, crf: Int, displayRotation: Int) throws {
        self.url = url
        (self.width, self.height) = (width, height)
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp")
        var message = [CChar](repeating: 0, count: 256)
        guard pv_video_writer_open(temporary.path, url.path, Int32(width), Int32(height), framesPerSecond, Int32(crf), Int32(displayRotation), &writer, &message, message.count) == 0
        else {
            try? FileManager.default.removeItem(at: temporary)
            throw ImagingError(.ioError, "cannot write \(url.path): \(text(message))")
        }
    }

    deinit { discard() }

    /// Frees the encoder and removes the temporary file, unless the video is finished.
    func discard() {
        guard writer != nil else { return }
        pv_video_writer_free(writer)
        writer = nil
        try? FileManager.default.removeItem(at: temporary)
    }

    func checkSize(of frame: PixelBuffer) throws {
        guard frame.width == width, frame.height == height else {
            throw ImagingError(.invalidArgument, "a \(frame.width)×\(frame.height) frame in a \(width)×\(height) video")
        }
    }

    func add(_ frame: PixelBuffer, at seconds: Double) throws {
        guard let writer else { throw ImagingError(.ioError, "the video \(url.path) is already finished") }
        try checkSize(of: frame)
        let bgra = try frame.converted(to: .bgra32)
        var message = [CChar](repeating: 0, count: 256)
        let stride = bgra.bytesPerRow()
        let rc = bgra.withUnsafeBytes { raw in
            pv_video_writer_add(writer, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(stride), seconds, &message, message.count)
        }
        guard rc == 0 else {
            let reason = text(message)
            throw ImagingError(reason.contains("increase") ? .invalidArgument : .encodingFailed, "video \(url.path): \(reason)")
        }
    }

    func finish(copyingAudioFrom source: URL?) throws -> VideoWriter.AudioCopy {
        guard let writer else { throw ImagingError(.ioError, "the video \(url.path) is already finished") }
        var message = [CChar](repeating: 0, count: 256)
        let rc = pv_video_writer_finish(writer, &message, message.count)
        pv_video_writer_free(writer)
        self.writer = nil
        guard rc == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw ImagingError(.encodingFailed, "cannot finish \(url.path): \(text(message))")
        }
        var audio = VideoWriter.AudioCopy.none
        var finished = temporary
        if let source, pv_video_has_audio(source.path) != 0 {
            let muxed = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp")
            if pv_video_mux_audio(temporary.path, source.path, muxed.path, url.path, &message, message.count) == 0 {
                try? FileManager.default.removeItem(at: temporary)
                finished = muxed
                audio = .copied
            } else {
                try? FileManager.default.removeItem(at: muxed)
                audio = .dropped(reason: text(message))
            }
        }
        guard rename(finished.path, url.path) == 0 else {
            let reason = String(validatingCString: strerror(errno)) ?? "error \(errno)"
            try? FileManager.default.removeItem(at: finished)
            throw ImagingError(.ioError, "cannot write \(url.path): \(reason)")
        }
        return audio
    }
}

/// A thread beside a video reader or writer (started by `DedicatedThread`), exchanging frames with it through a
/// `Handoff`. The owner can wait for the thread's end; a failure the thread meets is kept for the owner's next call.
private final class VideoStage<Item>: @unchecked Sendable {  // `stored` guarded by `lock`; `joined` used by the owner only
    let handoff: Handoff<Item>
    private let ended = DispatchSemaphore(value: 0)
    private var joined = false
    private let lock = NSLock()
    private var stored: Error?

    init(named name: String, capacity: Int, _ body: @escaping @Sendable (VideoStage<Item>) -> Void) {
        handoff = Handoff(capacity: capacity)
        DedicatedThread.start(named: name) { [self] in
            body(self)
            ended.signal()
        }
    }

    /// The failure the thread met, if any.
    var failure: Error? { lock.withLock { stored } }

    /// Keeps `error` for the owner and stops the hand-over (a waiting ``Handoff/put(_:)`` returns false).
    func fail(_ error: Error) {
        lock.withLock { stored = error }
        handoff.cancel()
    }

    /// Waits until the thread's body has returned (at once after the first time).
    func join() {
        guard !joined else { return }
        ended.wait()
        joined = true
    }

    /// Stops the hand-over and waits for the thread's end.
    func cancel() {
        handoff.cancel()
        join()
    }
}

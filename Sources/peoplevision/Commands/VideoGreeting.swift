import Foundation
import PeopleVision
import PVImaging
import Synchronization
import PVCore

/// The video greeting: Apple's photo-greeting recipe on every frame, with one segmentation request reused through a
/// `VNSequenceRequestHandler` (the request smooths its mask across frames), written as H.264.
///
/// Three stages overlap: a thread decodes the next frames, the calling thread segments and composites, and a thread
/// encodes the finished ones (two frames may wait between stages). The models leave a core idle part of each frame
/// (the accurate level's pose chain runs on one), which the decoder and the encoder then use.
enum VideoGreeting {
    /// Input extensions read as video.
    static let inputExtensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "webm", "avi"]

    /// Greets every frame of `video` into `output`, copies its audio in (as it is), and returns the frame size and
    /// count and what became of the audio. Progress (every second of work) goes to standard error. Nothing is written
    /// unless every frame was greeted.
    @discardableResult
    static func make(video: URL, backdrop: Greeting.Backdrop, quality: QualityOption, output: URL) throws
        -> (width: Int, height: Int, frames: Int, audio: VideoWriter.AudioCopy)
    {
        let reader: VideoReader
        do { reader = try VideoReader(url: video) } catch let e as ImagingError { throw CommandFailure(e.message) }
        let extent = CGRect(x: 0, y: 0, width: reader.width, height: reader.height)
        let writer = try VideoWriter(url: output, width: reader.width, height: reader.height, framesPerSecond: reader.framesPerSecond)
        // A picture or a colour is the same for every frame: prepared once, as 8-bit pixels.
        let fixed: CIImage?
        switch backdrop {
        case .image, .color: fixed = try Greeting.background(backdrop, extent: extent, photo: nil)
        case .blur, .pose: fixed = nil
        }
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = quality.level
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        let sequence = VNSequenceRequestHandler()
        let context = CIContext()
        let total = reader.announcedFrameCount
        let step = reader.framesPerSecond > 0 ? 1 / reader.framesPerSecond : 1.0 / 30

        let decoded = Stage<(PixelBuffer, Double)>(capacity: 2)
        let finished = Stage<(PixelBuffer, Double)>(capacity: 2)
        let reading = UncheckedBox(reader), writing = UncheckedBox(writer)
        Thread.detachNewThread {
            do {
                while let frame = try reading.value.nextFrame() {
                    guard decoded.put(frame) else { return }  // the consumer stopped
                }
                decoded.close(nil)
            } catch let e as ImagingError {
                decoded.close(CommandFailure(e.message))
            } catch {
                decoded.close(error)
            }
        }
        let encoded = DispatchSemaphore(value: 0)
        let encoding = Mutex<Error?>(nil)
        Thread.detachNewThread {
            defer { encoded.signal() }
            do {
                while let (pixels, seconds) = try finished.take() { try writing.value.append(pixels, at: seconds) }
            } catch {
                encoding.withLock { $0 = error }
                finished.cancel()
            }
        }

        var frames = 0, last = -Double.infinity
        var reported = DispatchTime.now().uptimeNanoseconds
        do {
            while let (pixels, time) = try decoded.take() {
                let buffer = CVPixelBuffer(pixels)
                try sequence.perform([request], on: buffer)
                guard let maskBuffer = request.results?.first?.pixelBuffer else {
                    throw CommandFailure("no mask was produced for frame \(frames + 1)")
                }
                let photo = CIImage(cvPixelBuffer: buffer)
                let mask = CIImage(cvPixelBuffer: maskBuffer)
                let scaledMask = mask.transformed(by: __CGAffineTransformMake(
                    extent.width / mask.extent.width, 0, 0, extent.height / mask.extent.height, 0, 0))
                let blend = CIFilter.blendWithRedMask()
                blend.inputImage = photo
                blend.backgroundImage = try fixed ?? Greeting.background(backdrop, extent: extent, photo: photo)
                blend.maskImage = scaledMask
                guard let composite = blend.outputImage else { throw CommandFailure("the blend produced no image") }
                // Frame times must increase: a repeated time (some files have them) moves a frame's length on.
                let seconds = time > last ? time : last + step
                // Opaque frames: no unpremultiply pass.
                let rendered = try context.renderPixels(composite.cropped(to: extent), format: .bgra32, straightAlpha: false)
                guard finished.put((rendered, seconds)) else { break }  // the encoder failed
                last = seconds
                frames += 1
                let now = DispatchTime.now().uptimeNanoseconds
                if now - reported >= 1_000_000_000 {
                    reported = now
                    let of = total > 0 ? " of about \(total) (\(min(100, 100 * frames / total)) %)" : ""
                    FileHandle.standardError.write(Data("greet: \(frames) frames\(of)\n".utf8))
                }
            }
        } catch {
            decoded.cancel()
            finished.cancel()
            encoded.wait()
            throw error
        }
        decoded.cancel()  // the decoder's thread, if still waiting to hand a frame over, stops
        finished.close(nil)
        encoded.wait()
        if let failure = encoding.withLock({ $0 }) { throw failure }
        guard frames > 0 else { throw CommandFailure("\(video.path) has no frames") }
        let audio = try writer.finish(copyingAudioFrom: video)
        if case .dropped(let reason) = audio {
            FileHandle.standardError.write(Data("greet: the greeting has no sound: the audio could not be copied (\(reason))\n".utf8))
        }
        return (reader.width, reader.height, frames, audio)
    }
}

/// A bounded hand-over between two threads: `put` waits while `capacity` items wait; `take` waits for one, and
/// returns nil once the producer has closed the stage and everything is taken (or rethrows the producer's error).
/// Either side may cancel: a waiting `put` then returns false and a `take` nil.
final class Stage<Item>: @unchecked Sendable {  // state guarded by `lock`
    private let lock = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private var cancelled = false
    private var failure: Error?
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Hands `item` over; false when the stage was cancelled.
    func put(_ item: Item) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while items.count >= capacity && !cancelled { lock.wait() }
        guard !cancelled else { return false }
        items.append(item)
        lock.broadcast()
        return true
    }

    /// The next item, or nil at the end; rethrows the producer's failure.
    func take() throws -> Item? {
        lock.lock()
        defer { lock.unlock() }
        while items.isEmpty && !closed && !cancelled { lock.wait() }
        if cancelled { return nil }
        if !items.isEmpty {
            lock.broadcast()
            return items.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// No more items; `error` ends the consumer's `take` with it.
    func close(_ error: Error?) {
        lock.lock()
        closed = true
        failure = error
        lock.broadcast()
        lock.unlock()
    }

    /// Stops both sides.
    func cancel() {
        lock.lock()
        cancelled = true
        lock.broadcast()
        lock.unlock()
    }
}

/// A reader or writer used by one thread at a time (the stage hands them over), moved to that thread.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

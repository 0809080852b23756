import Foundation
import PVBench
import PVImaging
import PeopleVision

/// `analyze VIDEO --jsonl`: one JSON line per frame of a video on standard output, written as soon as the frame is
/// analysed while the next frames decode.
///
/// Each line is the record `analyze` writes for an image (the video's file name as `image`), plus the frame's place:
/// `frame` (0, 1, 2…, in presentation order), `time` (seconds from the stream's start) and the same time as a
/// `CMTime`, `time_value` over `time_timescale` (90 kHz, the clock the observations' `timeRange` uses). Masks are
/// named by a placeholder, as for an image written to standard output.
///
/// The frames are one sequence (one `VNSequenceRequestHandler`, the same request objects on every frame): body, hand
/// and face landmarks are smoothed over time and the person mask too; with `--tracking` the people are followed from
/// frame to frame instead of detected on every frame (``VNSequenceRequestHandler/tracksPeople``). A file that is not a
/// readable video fails before any line is written; a frame that cannot be decoded stops the run there (the lines
/// written are whole); a frame whose analysis fails gives `{"frame", "time", "error"}` and the run goes on. Either
/// failure exits non-zero.
extension AnalyzeCommand {
    /// The CMTime timescale of the records' `time_value`.
    static let videoTimescale: Int32 = 90_000

    /// Analyses every frame of the video at `path` and writes its lines.
    func runVideo(_ path: String) throws {
        let failures: Int
        if countModelRuns {
            let (failed, runs) = try ModelRunCount.counting { try analyzeVideo(path) }
            let data = try JSONSerialization.data(withJSONObject: ["model_runs": runs], options: [.sortedKeys])
            FileHandle.standardError.write(data + Data("\n".utf8))
            failures = failed
        } else {
            failures = try analyzeVideo(path)
        }
        if failures > 0 { throw CommandFailure("the analysis failed on \(failures) frame(s) of \(path)") }
    }

    /// The frame loop; returns how many frames' analyses failed.
    private func analyzeVideo(_ path: String) throws -> Int {
        let url = URL(fileURLWithPath: path)
        // Decoding runs ahead on a thread of its own while the calling thread analyses.
        let reader: VideoReader
        do { reader = try VideoReader(url: url, readAhead: 2) } catch let e as ImagingError { throw CommandFailure(e.message) }
        defer { reader.cancel() }
        let selected = try analyses
        let steps = Analysis.allCases.filter(selected.contains).map { $0.makeStep(quality: quality) }
        let sequence = VNSequenceRequestHandler()
        sequence.tracksPeople = tracking
        let frameLength = CMTime(
            seconds: reader.framesPerSecond > 0 ? 1 / reader.framesPerSecond : 0, preferredTimescale: Self.videoTimescale)
        var index = 0, failures = 0
        while true {
            let next: (frame: PixelBuffer, seconds: Double)?
            do { next = try reader.nextFrame() } catch let e as ImagingError {
                throw CommandFailure("\(path), frame \(index): \(e.message)")
            }
            guard let (pixels, seconds) = next else { break }
            let time = CMTime(seconds: seconds, preferredTimescale: Self.videoTimescale)
            var object: [String: Any] = [
                "frame": index, "time": seconds, "time_value": Int(time.value), "time_timescale": Int(time.timescale),
            ]
            do {
                let handler = sequence.imageRequestHandler(for: try Self.sampleBuffer(pixels, at: time, duration: frameLength))
                let (record, _) = try Self.record(of: handler, named: url.lastPathComponent, steps: steps, jsonURL: nil)
                object.merge(record) { mine, _ in mine }
            } catch {
                failures += 1
                object["error"] = errorMessage(error)
            }
            let line = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            FileHandle.standardOutput.write(line + Data("\n".utf8))
            index += 1
        }
        guard index > 0 else { throw CommandFailure("\(path) has no frames") }
        return failures
    }

    /// A decoded frame as a ready sample buffer shown at `time` for `duration`.
    static func sampleBuffer(_ pixels: PixelBuffer, at time: CMTime, duration: CMTime) throws -> CMSampleBuffer {
        let image = CVPixelBuffer(pixels)
        var format: CMVideoFormatDescription?
        var status = CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: image, formatDescriptionOut: &format)
        guard status == 0, let format else { throw CommandFailure("no format description for a video frame (OSStatus \(status))") }
        var timing = CMSampleTimingInfo(duration: duration, presentationTimeStamp: time, decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        status = CMSampleBufferCreateReadyWithImageBuffer(
            allocator: nil, imageBuffer: image, formatDescription: format, sampleTiming: &timing, sampleBufferOut: &sample)
        guard status == 0, let sample else { throw CommandFailure("no sample buffer for a video frame (OSStatus \(status))") }
        return sample
    }
}

import ArgumentParser
import Foundation
import PVImaging

/// `peoplevision synthetic-video` (hidden): a long test video made from one picture, for memory and speed runs over
/// many frames without a video tool: the picture walks slowly left and right over a grey frame, as H.264.
struct SyntheticVideoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synthetic-video",
        abstract: "Write a test video: a picture moving slowly to and fro over a grey frame.",
        shouldDisplay: false)

    @Argument(help: "The picture (a person photo).") var picture: String
    @Option(name: .shortAndLong, help: "Output video (.mp4, .m4v, .mov or .mkv).") var output: String
    @Option(help: "Frames.") var frames = 300
    @Option(help: "Frame width.") var width = 1280
    @Option(help: "Frame height.") var height = 720
    @Option(help: "Frames per second.") var fps = 30
    @Option(help: "The picture's side in the frame, in pixels.") var side = 360

    func validate() throws {
        guard frames > 0, fps > 0 else { throw ValidationError("frames and fps must be positive") }
        guard side > 0, side < width, side <= height else { throw ValidationError("the picture must fit in the frame") }
        guard VideoWriter.fileExtensions.contains(URL(fileURLWithPath: output).pathExtension.lowercased()) else {
            throw ValidationError("write a .mp4, .m4v, .mov or .mkv")
        }
    }

    func run() throws {
        let url = URL(fileURLWithPath: picture)
        let person: PixelBuffer
        do {
            person = try ImageDecoder.decode(contentsOf: url).pixels.converted(to: .rgba32).resized(width: side, height: side)
        } catch let e as ImagingError {
            throw CommandFailure(e.message)
        }
        let writer = try VideoWriter(
            url: URL(fileURLWithPath: output), width: width, height: height, framesPerSecond: Double(fps), encodeBehind: 2)
        // 2 px a frame, turning at the frame's edges.
        let travel = width - side, y = (height - side) / 2
        for k in 0..<frames {
            let step = (2 * k) % (2 * travel)
            let x = step <= travel ? step : 2 * travel - step
            try writer.append(try person.pasted(onto: width, height, at: [(x, y)], fill: 90), at: Double(k) / Double(fps))
        }
        try writer.finish()
        print("\(output): \(width)×\(height), \(frames) frames at \(fps) fps")
    }
}

import ArgumentParser
import Foundation
import PVImaging
import PVInference
import PeopleVision

/// `peoplevision bench tracking`: body pose per frame of a one-person 720p clip, following the people from frame to
/// frame (`VNSequenceRequestHandler.tracksPeople`) vs detecting them on every frame, in the same run.
package struct TrackingBench: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "tracking",
        abstract: "Body pose per frame of a 720p clip: following the people vs detecting on every frame (same run).",
        discussion: """
            The clip: the installed astronaut.png at 360 px, drifting right 3 px a frame on a 1280×720 grey frame. \
            Each round performs a VNDetectHumanBodyPoseRequest on every frame through one VNSequenceRequestHandler, \
            with tracksPeople off and on, which goes first alternating; each time is the median per frame, and the \
            reported time the median of the round medians. The last column is following ÷ detecting.
            """)

    @Option(help: "Frames in the clip.") var frames = 60
    @Option(help: "Rounds, alternating which mode goes first.") var rounds = 3

    package init() {}

    package func validate() throws {
        guard frames > 1, rounds > 0 else { throw ValidationError("frames must be more than 1 and rounds positive") }
    }

    package func run() throws {
        let person = try ImageDecoder.decode(contentsOf: ModelStore.default.url(for: "astronaut.png")).pixels
            .converted(to: .rgba32).resized(width: 360, height: 360)
        let clip = try (0..<frames).map { t in CGImage(buffer: try person.pasted(onto: 1280, 720, at: [(300 + 3 * t, 240)], fill: 90)) }
        var times: [Bool: [Double]] = [false: [], true: []]
        var found: [Bool: [Int]] = [:]
        for round in 0..<rounds {
            for tracking in round % 2 == 0 ? [false, true] : [true, false] {
                log("round \(round + 1): \(tracking ? "following" : "detecting on every frame")")
                let sequence = VNSequenceRequestHandler()
                sequence.tracksPeople = tracking
                let request = VNDetectHumanBodyPoseRequest()
                var perFrame: [Double] = [], people: [Int] = []
                for frame in clip {
                    perFrame += try measure(warmup: 0, iterations: 1) { try sequence.perform([request], on: frame) }
                    people.append(request.results?.count ?? 0)
                }
                times[tracking]?.append(median(perFrame))
                found[tracking] = people
            }
        }
        let detecting = median(times[false] ?? []), following = median(times[true] ?? [])
        print("| mode | ms per frame (median of \(rounds) rounds) | frames with one person |")
        print("|---|---:|---:|")
        print("| detecting on every frame | \(String(format: "%.2f", detecting)) | \(found[false]?.filter { $0 == 1 }.count ?? 0) of \(frames) |")
        print("| following (tracksPeople) | \(String(format: "%.2f", following)) | \(found[true]?.filter { $0 == 1 }.count ?? 0) of \(frames) |")
        print("following ÷ detecting: \(String(format: "%.2f", following / detecting))")
    }
}

import ArgumentParser
import Foundation
import PeopleVision
import PVBench

/// `peoplevision bench …`: benchmarks against the peer measured in the same run (not tests). The measurements live
/// in PVBench; `bench segmentation` times this tool's own greetings.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks against the peer (TFLite / MediaPipe / OpenCV from Python), measured in the same run.",
        discussion: "Each prints a Markdown table whose last column is ours ÷ peer (lower is better) and a last line 'max ratio: X'. Build in release first: swift build -c release.",
        subcommands: [InferenceBench.self, ProfileBench.self, ImagingBench.self, SegmentationBenchCommand.self, FacesBench.self, BodiesBench.self, TrackingBench.self, TimelineBench.self])
}

/// `peoplevision bench segmentation`: PVBench's segmentation benchmark, whose greeting rows time `peoplevision
/// greet`'s own code (``Greeting`` and ``VideoGreeting``).
struct SegmentationBenchCommand: ParsableCommand {
    static let configuration = SegmentationBench.configuration

    @OptionGroup var bench: SegmentationBench

    func run() throws {
        try bench.run(
            greetings: SegmentationBench.Greetings(
                photo: { photo, background, level, output in
                    try Greeting.make(photo: photo, backdrop: .image(background), quality: QualityOption(level), output: output)
                },
                video: { video, background, level, output in
                    try VideoGreeting.make(video: video, backdrop: .image(background), quality: QualityOption(level), output: output)
                        .frames
                }))
    }
}

extension QualityOption {
    init(_ level: VNGeneratePersonSegmentationRequest.QualityLevel) {
        switch level {
        case .fast: self = .fast
        case .balanced: self = .balanced
        case .accurate: self = .accurate
        }
    }
}

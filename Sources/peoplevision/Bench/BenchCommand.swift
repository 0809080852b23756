import ArgumentParser

/// `peoplevision bench …`: benchmarks against the peer measured in the same run (not tests).
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks against the peer (TFLite / MediaPipe / OpenCV from Python), measured in the same run.",
        discussion: "Each prints a Markdown table whose last column is ours ÷ peer (lower is better) and a last line 'max ratio: X'. Build in release first: swift build -c release.",
        subcommands: [InferenceBench.self, ProfileBench.self, ImagingBench.self, SegmentationBench.self, FacesBench.self, BodiesBench.self, TimelineBench.self])
}

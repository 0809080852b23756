import PVInference

/// Counts the model runs of some work, per model (`InferenceTimeline`, which records every thread's runs): how the
/// command-line tool's hidden `--count-model-runs` shows which models a video analysis ran, for tests that compare
/// detecting on every frame with following people. Meant for a process of its own: runs of other work going on at
/// the same time count too.
package enum ModelRunCount {
    /// `body`'s result and its model runs per model file name (without extension).
    package static func counting<R>(_ body: () throws -> R) rethrows -> (result: R, runs: [String: Int]) {
        let (result, runs) = try InferenceTimeline.record(body)
        return (result, runs.reduce(into: [:]) { $0[$1.model, default: 0] += 1 })
    }
}

import ArgumentParser
import Foundation
import PVInference

/// `peoplevision bench profile MODEL`: where a model's time goes, operator by operator.
package struct ProfileBench: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Per-operator latency of one model (each operator timed as its own XNNPACK runtime).")

    @Argument(help: "Model file name without .tflite.") var model: String
    @Option(help: "XNNPACK threads.") var threads = 1
    @Option(help: "Timed runs.") var iterations = 30
    @Option(help: "Show the N slowest operators.") var top = 15
    @Flag(
        help: """
            Instead, time the whole model with and without our own kernels, alternated in one process \
            (rounds of --iterations runs each; minimum and median of the per-round medians).
            """)
    var ownKernels = false
    @Flag(
        help: """
            Instead, time the whole model with the fused depthwise-and-1×1 kernel and with the two kernels run \
            separately, alternated in one process (as --own-kernels).
            """)
    var fusion = false
    @Option(help: "Rounds for --own-kernels and --fusion.") var rounds = 10

    package init() {}

    package func validate() throws {
        guard !(ownKernels && fusion) else { throw ValidationError("--own-kernels and --fusion are separate comparisons") }
        guard threads >= 1, iterations >= 1, rounds >= 1 else { throw ValidationError("threads, iterations and rounds must be positive") }
    }

    package func run() throws {
        if ownKernels || fusion { return try compareOwnKernels() }
        let m = try CompiledModel.load(named: "\(model).tflite")
        let rows = try Interpreter.profile(model: m, threads: threads, iterations: iterations)
        let total = rows.reduce(0) { $0 + $1.milliseconds }
        var byFamily: [String: Double] = [:]
        for r in rows { byFamily[String(r.operator.prefix { $0 != " " }), default: 0] += r.milliseconds }
        print("total of per-operator medians: \(String(format: "%.3f", total)) ms over \(rows.count) operators")
        print("by family:")
        for (k, v) in byFamily.sorted(by: { $0.value > $1.value }) {
            print(String(format: "  %-16@ %8.3f ms  %5.1f%%", k as NSString, v, 100 * v / total))
        }
        print("slowest:")
        for r in rows.sorted(by: { $0.milliseconds > $1.milliseconds }).prefix(top) {
            print(String(format: "  %8.3f ms  ", r.milliseconds) + r.operator)
        }
    }

    private func compareOwnKernels() throws {
        let url = try ModelStore.default.url(for: "\(model).tflite")
        // --own-kernels: our kernels vs XNNPACK only; --fusion: fused vs separate depthwise and 1×1 kernels.
        let variants = try [true, false].map { first in
            let m = fusion
                ? try CompiledModel(contentsOf: url, ownKernels: true, fuseDepthwise: first)
                : try CompiledModel(contentsOf: url, ownKernels: first)
            let interpreter = try Interpreter(model: m, threads: threads)
            var rng = UInt64(1)
            for i in m.inputs.indices {
                interpreter.withInput(i) { buf in
                    for k in buf.indices { buf[k] = splitMix(&rng, -1, 1) }
                }
            }
            for _ in 0..<5 { try interpreter.invoke() }
            return (m.partitionSummary.nativeOperators, interpreter)
        }
        var medians: [[Double]] = [[], []]
        for _ in 0..<rounds {
            for (v, variant) in variants.enumerated() {
                var samples: [Double] = []
                for _ in 0..<iterations {
                    let start = DispatchTime.now().uptimeNanoseconds
                    try variant.1.invoke()
                    samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                medians[v].append(samples.sorted()[samples.count / 2])
            }
        }
        let best = medians.map { $0.min()! }, middle = medians.map { $0.sorted()[$0.count / 2] }
        print(
            fusion
                ? "| model | own kernels | ms fused (min / median) | ms separate (min / median) | ratio of minima |"
                : "| model | own kernels | ms with (min / median) | ms XNNPACK only (min / median) | ratio of minima |")
        print("|---|---|---|---|---|")
        print(
            String(
                format: "| %@ | %d | %.3f / %.3f | %.3f / %.3f | %.2f |", model as NSString, variants[0].0, best[0], middle[0], best[1],
                middle[1], best[0] / best[1]))
    }
}

import ArgumentParser
import Foundation
import PVInference

/// `peoplevision bench profile MODEL`: where a model's time goes, operator by operator.
struct ProfileBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile", abstract: "Per-operator latency of one model (each operator timed as its own XNNPACK runtime).")

    @Argument(help: "Model file name without .tflite.") var model: String
    @Option(help: "XNNPACK threads.") var threads = 1
    @Option(help: "Timed runs.") var iterations = 30
    @Option(help: "Show the N slowest operators.") var top = 15

    func run() throws {
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
}

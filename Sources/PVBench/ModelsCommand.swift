import ArgumentParser
import Foundation
import PVInference

/// `peoplevision models [--run]`: the installed models, their tensors, and (with `--run`) one timed inference each.
package struct ModelsCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List the installed models; with --run, load each one and time an inference.")

    @Flag(name: .customLong("run"), help: "Load every model, run it on a fixed input and report the latency and an output checksum.")
    var execute = false

    @Option(help: "XNNPACK threads (default: the usable cores).")
    var threads: Int?

    package init() {}

    package func run() throws {
        let store = ModelStore.default
        print("models in \(store.directory.path)")
        var interpreters: [Interpreter] = []  // kept alive so the memory report counts them
        for name in ModelStore.pipelineModels + ModelStore.mediaPipeOperatorModels {
            let file = "\(name).tflite"
            let model = try CompiledModel.load(named: file, store: store)
            let ins = model.inputs.map { "\($0.shape)" }.joined(separator: ", ")
            let outs = model.outputs.map { "\($0.shape)" }.joined(separator: ", ")
            var line = "\(file): in \(ins) → out \(outs); \(model.partitionSummary.subgraphs) XNNPACK subgraph(s)"
            if model.partitionSummary.swiftOperators > 0 { line += " + \(model.partitionSummary.swiftOperators) Swift op(s)" }
            if model.partitionSummary.nativeOperators > 0 { line += " + \(model.partitionSummary.nativeOperators) own C kernel(s)" }
            if execute {
                let interpreter = try Interpreter(model: model, threads: threads)
                interpreters.append(interpreter)
                for i in 0..<model.inputs.count {
                    interpreter.withInput(i) { buf in for k in buf.indices { buf[k] = Float(k % 255) / 255 } }
                }
                try interpreter.invoke()
                let times = try measure(warmup: 2, iterations: 10) { try interpreter.invoke() }
                let checksum = (0..<model.outputs.count).reduce(0.0) { acc, o in
                    acc + interpreter.withOutput(o) { $0.reduce(0.0) { $0 + Double($1) } }
                }
                line += String(format: "; %.2f ms median, output sum %.4f", median(times), checksum)
            }
            print(line)
        }
        if let rss = residentMegabytes() {
            _ = interpreters.count
            print(String(format: "resident memory with every model loaded%@: %.1f MB", execute ? " and an interpreter each" : "", rss))
        }
    }
}

/// The process's resident set size (VmRSS), in megabytes, or nil where /proc is unavailable.
func residentMegabytes() -> Double? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return kb / 1024
}

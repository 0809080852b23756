import ArgumentParser
import Foundation
import PVInference

/// `peoplevision bench inference`: our executor against the TensorFlow Lite interpreter, same inputs, same run.
package struct InferenceBench: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "inference",
        abstract: "Latency per model: PeopleVision's executor vs the TensorFlow Lite interpreter (ai-edge-litert), 1 and 2 threads.")


    @Option(help: "Timed runs per model, thread count and round.") var iterations = 50
    @Option(help: "Untimed warm-up runs.") var warmup = 5
    @Option(help: "Rounds, alternating which side goes first; each side's time is the median of its round medians.")
    var rounds = 3
    @Option(parsing: .upToNextOption, help: "Thread counts to measure.") var threads: [Int] = [1, 2]
    @Option(parsing: .upToNextOption, help: "Models to measure (file names without .tflite).") var models: [String] = ModelStore.pipelineModels
    @Flag(help: "Let XNNPACK use its sparse mode for 1×1 convolutions.") var sparse = false

    package init() {}

    package func validate() throws {
        guard iterations > 0, warmup >= 0, rounds > 0 else {
            throw ValidationError("iterations and rounds must be positive and warm-up non-negative")
        }
        guard threads.allSatisfy({ $0 >= 1 }) else { throw ValidationError("thread counts must be at least 1") }
    }

    package func run() throws {
        let peer = try Peer()
        try peer.prepare(requirements: "requirements-tflite.txt")
        var rows: [[String]] = [], ratios: [Double] = []
        for t in threads {
            // The machine's speed drifts over a run (other tenants, clocks): both sides are measured in several
            // rounds, taking turns to go first, so that a drift does not land on one side only.
            var interpreters: [String: Interpreter] = [:]
            for name in models {
                let model = try CompiledModel.load(named: "\(name).tflite")
                let interpreter = try Interpreter(model: model, threads: t, sparseInference: sparse)
                var rng = UInt64(1)
                for i in 0..<model.inputs.count {
                    let (lo, hi): (Float, Float) = name.hasPrefix("face_detection") || name == "pose_detection" ? (-1, 1) : (0, 1)
                    interpreter.withInput(i) { buf in
                        for k in buf.indices { buf[k] = splitMix(&rng, lo, hi) }
                    }
                }
                interpreters[name] = interpreter
            }
            var oursMs: [String: [Double]] = [:], peerMs: [String: [Double]] = [:]
            func runPeer() throws {
                log("peer: \(models.count) models, \(t) thread(s)")
                let out = try peer.script(
                    "tflite_bench.py",
                    ["--models-dir", ModelStore.default.directory.path, "--threads", "\(t)", "--iterations", "\(iterations)",
                     "--warmup", "\(warmup)", "--json"] + models)
                for line in out.split(separator: "\n") {
                    guard let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        let m = obj["model"] as? String, let ms = obj["median_ms"] as? Double
                    else { continue }
                    peerMs[m, default: []].append(ms)
                }
            }
            func runOurs() throws {
                log("ours: \(models.count) models, \(t) thread(s)")
                for name in models {
                    let interpreter = interpreters[name]!
                    oursMs[name, default: []].append(median(try measure(warmup: warmup, iterations: iterations) { try interpreter.invoke() }))
                }
            }
            for round in 0..<rounds {
                if round % 2 == 0 { try runPeer(); try runOurs() } else { try runOurs(); try runPeer() }
            }
            for name in models {
                guard let theirs = peerMs[name], theirs.count == rounds else { throw BenchError("the peer did not report \(name)") }
                let ours = median(oursMs[name]!), peer = median(theirs)
                rows.append([name, "\(t)", String(format: "%.3f", ours), String(format: "%.3f", peer)])
                ratios.append(ours / peer)
            }
        }
        printRatioTable(header: ["model", "threads", "ours ms", "TFLite ms"], rows: rows, ratios: ratios)
    }
}

/// The fixtures' SplitMix64 input generator (see Tests/Fixtures/README.md).
func splitMix(_ state: inout UInt64, _ lo: Float, _ hi: Float) -> Float {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    z ^= z >> 31
    return lo + (hi - lo) * (Float(z >> 40) / 16_777_216)
}

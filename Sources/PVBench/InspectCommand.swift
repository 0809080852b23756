import ArgumentParser
import Foundation
import PVTFLite

/// `peoplevision inspect MODEL`: prints a model's inputs, outputs and operators.
package struct InspectCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "inspect", abstract: "Print a .tflite model's inputs, outputs and operator counts.")

    @Argument(help: "Path to a .tflite file.")
    var model: String

    @Flag(help: "List every operator, not only the counts.")
    var verbose = false

    package init() {}

    package func run() throws {
        let m = try Model(contentsOf: URL(fileURLWithPath: model))
        func describe(_ i: Int) -> String {
            let t = m.tensors[i]
            return "\(t.name) \(t.type) \(t.shape)"
        }
        print("inputs:")
        for i in m.inputs { print("  \(describe(i))") }
        print("outputs:")
        for i in m.outputs { print("  \(describe(i))") }
        var counts: [String: Int] = [:]
        for op in m.operators { counts[op.code.description, default: 0] += 1 }
        print("operators (\(m.operators.count)):")
        for (name, n) in counts.sorted(by: { $0.key < $1.key }) { print("  \(name) ×\(n)") }
        if verbose {
            for (k, op) in m.operators.enumerated() {
                print("  #\(k) \(op.code) in \(op.inputs.map { $0 < 0 ? "-" : describe($0) }) out \(op.outputs.map(describe)) \(op.options)")
            }
        }
    }
}

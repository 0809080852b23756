import Foundation
import PVInference

/// Hands out interpreters of one model to concurrent callers: each call borrows an idle interpreter
/// (creating one when none is idle) and returns it afterwards, so pipelines are safe to share between threads.
package final class InterpreterPool: @unchecked Sendable {
    package let model: CompiledModel
    private let threads: Int?
    private let lock = NSLock()
    private var idle: [Interpreter] = []

    package init(modelNamed name: String, threads: Int? = nil) throws {
        model = try CompiledModel.load(named: name)
        self.threads = threads
    }

    /// The pool of a model checked at load: one input of shape `input`, and outputs holding `outputCounts` values, in
    /// order.
    /// - Parameter expected: what the error says was expected; default `input → outputCounts values`.
    /// - Throws: `InferenceError` `.modelNotFound` when the model is not installed; ``PerceptionError``
    ///   `.unexpectedModel` when its tensors are not those.
    package convenience init(
        modelNamed name: String, threads: Int?, input: [Int], outputCounts: [Int], expected: String? = nil
    ) throws {
        try self.init(modelNamed: name, threads: threads)
        let m = model
        guard m.inputs.count == 1, m.inputs[0].shape == input, m.outputs.map(\.elementCount) == outputCounts else {
            let counts = outputCounts.map(String.init).joined(separator: ", ")
            throw PerceptionError.unexpectedTensors(of: name, m, expected: expected ?? "\(input) → \(counts) values")
        }
    }

    /// Runs `body` with exclusive use of an interpreter.
    package func withInterpreter<R>(_ body: (Interpreter) throws -> R) throws -> R {
        let interpreter = try lock.withLock { idle.popLast() } ?? Interpreter(model: model, threads: threads)
        defer { lock.withLock { idle.append(interpreter) } }
        return try body(interpreter)
    }
}

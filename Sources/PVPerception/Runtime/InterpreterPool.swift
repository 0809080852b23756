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

    /// Runs `body` with exclusive use of an interpreter.
    package func withInterpreter<R>(_ body: (Interpreter) throws -> R) throws -> R {
        let interpreter = try lock.withLock { idle.popLast() } ?? Interpreter(model: model, threads: threads)
        defer { lock.withLock { idle.append(interpreter) } }
        return try body(interpreter)
    }
}

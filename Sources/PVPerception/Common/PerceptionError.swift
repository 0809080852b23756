// The engine's error type is part of this module's API: its users see it without importing PVCore.
@_exported import PVCore
import PVInference

/// A failure in a perception pipeline's own checks (codes `.invalidArgument`, `.unexpectedModel`). Failures of the
/// layers below pass through unchanged.
public typealias PerceptionError = EngineError

/// Throws ``PerceptionError`` `.invalidArgument` with `message` unless `ok`: one check of a pipeline's options.
func checkOption(_ ok: Bool, _ message: @autoclosure () -> String) throws {
    if !ok { throw PerceptionError(.invalidArgument, message()) }
}

extension PerceptionError {
    /// The error `.unexpectedModel` for the model file `name`, whose tensors are not the `expected` ones.
    static func unexpectedTensors(of name: String, _ model: CompiledModel, expected: String) -> PerceptionError {
        PerceptionError(
            .unexpectedModel,
            "\(name) has inputs \(model.inputs.map(\.shape)) and outputs \(model.outputs.map(\.shape)); expected \(expected). "
                + "Reinstall it with scripts/bootstrap")
    }
}

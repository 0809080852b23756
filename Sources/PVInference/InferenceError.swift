import PVCore

/// A failure loading or running a model (codes `.modelNotFound`, `.invalidModel`, `.unsupportedOperator`,
/// `.backendFailure`, `.invalidArgument`).
public typealias InferenceError = EngineError

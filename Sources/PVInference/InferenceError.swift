// The engine's error type is part of this module's API: its users see it without importing PVCore.
@_exported import PVCore

/// A failure loading or running a model (codes `.modelNotFound`, `.invalidModel`, `.unsupportedOperator`,
/// `.backendFailure`, `.invalidArgument`).
public typealias InferenceError = EngineError

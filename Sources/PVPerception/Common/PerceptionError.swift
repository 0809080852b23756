// The engine's error type is part of this module's API: its users see it without importing PVCore.
@_exported import PVCore

/// A failure in a perception pipeline's own checks (codes `.invalidArgument`, `.unexpectedModel`). Failures of the
/// layers below pass through unchanged.
public typealias PerceptionError = EngineError

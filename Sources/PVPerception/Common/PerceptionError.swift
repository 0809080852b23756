import PVCore

/// A failure in a perception pipeline's own checks (codes `.invalidArgument`, `.unexpectedModel`). Failures of the
/// layers below pass through unchanged.
public typealias PerceptionError = EngineError

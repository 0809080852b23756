// The engine's error type is part of this module's API: its users see it without importing PVCore.
@_exported import PVCore

/// A failure reading a `.tflite` model (codes `.malformed`, `.unsupported`, `.tooLarge`, `.notFound`, `.ioError`).
public typealias ModelError = EngineError

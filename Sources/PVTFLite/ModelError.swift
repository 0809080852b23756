import PVCore

/// A failure reading a `.tflite` model (codes `.malformed`, `.unsupported`, `.tooLarge`, `.notFound`, `.ioError`).
public typealias ModelError = EngineError

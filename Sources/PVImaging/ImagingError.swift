// The engine's error type is part of this module's API: its users see it without importing PVCore.
@_exported import PVCore

/// A failure in the imaging layer (codes `.invalidDimensions`, `.tooLarge`, `.unsupportedFormat`, `.corruptData`,
/// `.truncatedData`, `.ioError`, `.encodingFailed`, `.unsupportedPixelFormat`, `.invalidArgument`).
public typealias ImagingError = EngineError

/// A failure in the engine (model reader, executor, imaging, pipelines): what kind, and what failed and how to fix it.
///
/// Every engine module throws this one shape, under the names its callers know (`ModelError`, `InferenceError`,
/// `ImagingError`, `PerceptionError` are type aliases of it), so the public API translates engine failures into
/// Apple's errors in one place.
public struct EngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure: a struct with named constants, so new codes don't break callers' `switch`es.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        // Arguments and limits, any layer.
        /// An option, index or size passed by the caller is out of range.
        public static let invalidArgument = Code("invalidArgument")
        /// An input is larger than the limits allow (an image's pixels, a model's tensors).
        public static let tooLarge = Code("tooLarge")
        /// A file could not be read or written.
        public static let ioError = Code("ioError")

        // Model files (the `.tflite` reader).
        /// The bytes are not a valid TensorFlow Lite FlatBuffer (truncated, out-of-range offsets, bad sizes).
        public static let malformed = Code("malformed")
        /// A valid model that uses something the reader does not handle (tensor type, operator, sparsity format).
        public static let unsupported = Code("unsupported")
        /// A model file is missing.
        public static let notFound = Code("notFound")

        // Inference.
        /// A model file is not installed.
        public static let modelNotFound = Code("modelNotFound")
        /// The model file is malformed or inconsistent (shapes, sizes, indices).
        public static let invalidModel = Code("invalidModel")
        /// The model uses an operator (or an operator configuration) the executor cannot run.
        public static let unsupportedOperator = Code("unsupportedOperator")
        /// XNNPACK reported an error.
        public static let backendFailure = Code("backendFailure")

        // Imaging.
        /// A side is zero or negative.
        public static let invalidDimensions = Code("invalidDimensions")
        /// The bytes are not a format the imaging layer reads.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// The codec rejected the data.
        public static let corruptData = Code("corruptData")
        /// The data ends early.
        public static let truncatedData = Code("truncatedData")
        /// The encoder failed.
        public static let encodingFailed = Code("encodingFailed")
        /// The operation does not support this pixel format.
        public static let unsupportedPixelFormat = Code("unsupportedPixelFormat")

        // Pipelines.
        /// A model's inputs or outputs do not have the shapes the pipeline expects.
        public static let unexpectedModel = Code("unexpectedModel")

        // Any layer.
        /// The work was asked to stop (a cancelled request or task) and stopped before its next model run.
        public static let cancelled = Code("cancelled")
    }

    /// The failure's kind.
    public let code: Code
    /// What failed and, where useful, how to fix it.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (\(code))" }
}

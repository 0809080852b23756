/// A failure reading a `.tflite` model: what failed, why, and how to fix it.
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. A struct over a private enum, so new codes don't break callers' `switch`es.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Value: Hashable, Sendable { case malformed, unsupported, tooLarge, notFound, ioError }
        let value: Value
        /// The bytes are not a valid TensorFlow Lite FlatBuffer (truncated, out-of-range offsets, bad sizes).
        public static let malformed = Code(value: .malformed)
        /// A valid model that uses something this reader does not handle (tensor type, operator, sparsity format).
        public static let unsupported = Code(value: .unsupported)
        /// A tensor or buffer larger than the reader's limits.
        public static let tooLarge = Code(value: .tooLarge)
        /// A model file is missing.
        public static let notFound = Code(value: .notFound)
        /// A model file could not be read.
        public static let ioError = Code(value: .ioError)
        public var description: String { "\(value)" }
    }

    /// The failure's kind.
    public let code: Code
    /// What failed and, where useful, how to fix it.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

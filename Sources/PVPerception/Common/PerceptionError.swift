/// A failure in a perception pipeline: what failed, why, and how to fix it.
///
/// Failures of the layers below pass through unchanged (`InferenceError` for models, `ImagingError`
/// for pixel buffers); this type covers the pipelines' own checks, such as out-of-range options.
public struct PerceptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. A struct over a private enum, so new codes don't break callers' `switch`es.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Value: Hashable, Sendable { case invalidArgument, unexpectedModel }
        let value: Value
        /// An option or input is out of range.
        public static let invalidArgument = Code(value: .invalidArgument)
        /// A model's inputs or outputs do not have the shapes the pipeline expects.
        public static let unexpectedModel = Code(value: .unexpectedModel)
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

    public var description: String { "\(message) (\(code))" }
}

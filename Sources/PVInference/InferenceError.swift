/// A failure loading or running a model: what failed, why, and how to fix it.
public struct InferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. A struct over a private enum, so new codes don't break callers' `switch`es.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Value: Hashable, Sendable { case modelNotFound, invalidModel, unsupportedOperator, backendFailure, invalidArgument }
        let value: Value
        /// A model file is not installed.
        public static let modelNotFound = Code(value: .modelNotFound)
        /// The model file is malformed or inconsistent (shapes, sizes, indices).
        public static let invalidModel = Code(value: .invalidModel)
        /// The model uses an operator (or an operator configuration) the executor cannot run.
        public static let unsupportedOperator = Code(value: .unsupportedOperator)
        /// XNNPACK reported an error.
        public static let backendFailure = Code(value: .backendFailure)
        /// A caller passed a wrong index or size.
        public static let invalidArgument = Code(value: .invalidArgument)
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

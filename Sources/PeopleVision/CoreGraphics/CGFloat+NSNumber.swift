import Foundation

// Foundation on Apple platforms bridges NSNumber to CGFloat; on Linux it does not, so Vision code that reads
// `CGFloat(truncating: array[i])` from an MLMultiArray or a filter's attributes needs this.
extension CGFloat {
    /// The number's value as a `CGFloat`, rounding if it cannot be represented exactly (Apple's
    /// `CGFloat(truncating:)`).
    public init(truncating number: NSNumber) { self.init(number.doubleValue) }
}

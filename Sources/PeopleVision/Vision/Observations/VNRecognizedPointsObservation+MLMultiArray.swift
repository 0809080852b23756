import Foundation

/// The element type of an ``MLMultiArray``, as Core ML's `MLMultiArrayDataType` (same raw values).
public enum MLMultiArrayDataType: Int, Sendable {
    case double = 65600
    case float32 = 65568
    case float16 = 65552
    case int32 = 131104

    /// Same as ``double``.
    public static var float64: MLMultiArrayDataType { .double }
    /// Same as ``float32``.
    public static var float: MLMultiArrayDataType { .float32 }
}

/// The read-only subset of Core ML's `MLMultiArray` that Vision's `keypointsMultiArray()` results need: a dense,
/// row-major array of doubles with a shape.
///
/// ```swift
/// let array = try observation.keypointsMultiArray()       // shape [1, 3, 18]
/// let noseX = array[[0, 0, 0] as [NSNumber]].doubleValue
/// ```
public final class MLMultiArray: NSObject, @unchecked Sendable {
    /// The size of each dimension.
    public let shape: [NSNumber]
    /// Elements between consecutive indices of each dimension (row-major).
    public let strides: [NSNumber]
    /// Always ``MLMultiArrayDataType/double`` here.
    public let dataType: MLMultiArrayDataType = .double
    private let values: [Double]

    init(shape: [Int], values: [Double]) {
        precondition(shape.reduce(1, *) == values.count, "shape \(shape) does not hold \(values.count) values")
        self.shape = shape.map { NSNumber(value: $0) }
        var strides = [Int](repeating: 1, count: shape.count)
        for i in stride(from: shape.count - 2, through: 0, by: -1) { strides[i] = strides[i + 1] * shape[i + 1] }
        self.strides = strides.map { NSNumber(value: $0) }
        self.values = values
        super.init()
    }

    /// Number of elements.
    public var count: Int { values.count }

    /// The element at a linear (row-major) index; traps outside `0..<count`, as Core ML does.
    public subscript(index: Int) -> NSNumber { NSNumber(value: values[index]) }

    /// The element at one index per dimension; traps when an index is out of range.
    public subscript(key: [NSNumber]) -> NSNumber {
        precondition(key.count == shape.count, "\(key.count) indices for \(shape.count) dimensions")
        var offset = 0
        for (i, k) in key.enumerated() {
            precondition((0..<shape[i].intValue).contains(k.intValue), "index \(k) out of range in dimension \(i)")
            offset += k.intValue * strides[i].intValue
        }
        return NSNumber(value: values[offset])
    }
}

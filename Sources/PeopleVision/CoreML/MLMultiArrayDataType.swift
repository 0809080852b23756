import Foundation

/// The element type of an ``MLMultiArray``, as Core ML's `MLMultiArrayDataType` (same raw values: the type's kind
/// in the upper bits, its width in bits in the lower ones).
public enum MLMultiArrayDataType: Int, Sendable {
    /// 64-bit IEEE floating point.
    case double = 65600
    /// 32-bit IEEE floating point.
    case float32 = 65568
    /// 16-bit IEEE floating point (iOS 16).
    case float16 = 65552
    /// 32-bit signed integer.
    case int32 = 131104
    /// 8-bit signed integer (iOS 18).
    case int8 = 131080

    /// Same as ``double``.
    public static var float64: MLMultiArrayDataType { .double }
    /// Same as ``float32``.
    public static var float: MLMultiArrayDataType { .float32 }

    /// Bytes per element.
    var byteSize: Int { (rawValue & 0xFFFF) / 8 }

    /// The name Core ML prints (`"Float32"`, `"Int32"` …).
    var name: String {
        switch self {
        case .double: "Double"
        case .float32: "Float32"
        case .float16: "Float16"
        case .int32: "Int32"
        case .int8: "Int8"
        }
    }
}

/// A scalar type an ``MLMultiArray`` can hold, as Core ML's `MLShapedArrayScalar`: `Double`, `Float`, `Float16`,
/// `Int32` and `Int8`. Used by ``MLMultiArray/withUnsafeBufferPointer(ofType:_:)`` to name the element type.
public protocol MLShapedArrayScalar {}

extension Double: MLShapedArrayScalar {}
extension Float: MLShapedArrayScalar {}
extension Float16: MLShapedArrayScalar {}
extension Int32: MLShapedArrayScalar {}
extension Int8: MLShapedArrayScalar {}

extension MLMultiArrayDataType {
    /// The data type whose elements are `S`, or nil for a type conforming outside Core ML's list.
    init?<S: MLShapedArrayScalar>(scalar: S.Type) {
        switch scalar {
        case is Double.Type: self = .double
        case is Float.Type: self = .float32
        case is Float16.Type: self = .float16
        case is Int32.Type: self = .int32
        case is Int8.Type: self = .int8
        default: return nil
        }
    }
}

/// The domain of Core ML's errors, as Core ML's `MLModelErrorDomain`.
public let MLModelErrorDomain = "com.apple.CoreML"

/// A Core ML error: code 0 (`MLModelError.Code.generic`) in ``MLModelErrorDomain``, with `message` as its description.
func coreMLError(_ message: String) -> NSError {
    NSError(domain: MLModelErrorDomain, code: 0, userInfo: [NSLocalizedDescriptionKey: message])
}

import Foundation

// Apple's `simd` module names for the standard library's vector types (`simd_float3` is `SIMD3<Float>` in Swift on
// Apple platforms too), and its vector functions. Each function works on Float and Double vectors alike.

/// Two `Float`s (Apple's `simd_float2`).
public typealias simd_float2 = SIMD2<Float>
/// Three `Float`s (Apple's `simd_float3`).
public typealias simd_float3 = SIMD3<Float>
/// Four `Float`s (Apple's `simd_float4`).
public typealias simd_float4 = SIMD4<Float>
/// Two `Double`s (Apple's `simd_double2`).
public typealias simd_double2 = SIMD2<Double>
/// Three `Double`s (Apple's `simd_double3`).
public typealias simd_double3 = SIMD3<Double>
/// Four `Double`s (Apple's `simd_double4`).
public typealias simd_double4 = SIMD4<Double>
/// Two `Int32`s (Apple's `simd_int2`).
public typealias simd_int2 = SIMD2<Int32>
/// Three `Int32`s (Apple's `simd_int3`).
public typealias simd_int3 = SIMD3<Int32>
/// Four `Int32`s (Apple's `simd_int4`).
public typealias simd_int4 = SIMD4<Int32>

/// The sum of the products of corresponding elements (Apple's `simd_dot`).
public func simd_dot<V: SIMD>(_ x: V, _ y: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint { (x * y).sum() }

/// The squared Euclidean length (Apple's `simd_length_squared`).
public func simd_length_squared<V: SIMD>(_ x: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint { simd_dot(x, x) }

/// The Euclidean length (Apple's `simd_length`).
public func simd_length<V: SIMD>(_ x: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint {
    simd_length_squared(x).squareRoot()
}

/// The squared distance between two points (Apple's `simd_distance_squared`).
public func simd_distance_squared<V: SIMD>(_ x: V, _ y: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint {
    simd_length_squared(x - y)
}

/// The distance between two points (Apple's `simd_distance`).
public func simd_distance<V: SIMD>(_ x: V, _ y: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint {
    simd_length(x - y)
}

/// `x` scaled to length 1 (Apple's `simd_normalize`); the zero vector gives NaNs, as Apple's does.
public func simd_normalize<V: SIMD>(_ x: V) -> V where V.Scalar: BinaryFloatingPoint { x / simd_length(x) }

/// The cross product (Apple's `simd_cross`).
public func simd_cross<T: BinaryFloatingPoint & SIMDScalar>(_ x: SIMD3<T>, _ y: SIMD3<T>) -> SIMD3<T> {
    SIMD3(x.y * y.z - x.z * y.y, x.z * y.x - x.x * y.z, x.x * y.y - x.y * y.x)
}

/// Each element of `x` limited to `[min, max]` (Apple's `simd_clamp`).
public func simd_clamp<V: SIMD>(_ x: V, _ min: V, _ max: V) -> V where V.Scalar: BinaryFloatingPoint {
    pointwiseMin(pointwiseMax(x, min), max)
}

/// `x` limited to `[min, max]` (Apple's scalar `simd_clamp`).
public func simd_clamp<T: BinaryFloatingPoint>(_ x: T, _ min: T, _ max: T) -> T { Swift.min(Swift.max(x, min), max) }

/// The linear interpolation `x + t·(y − x)`, per element (Apple's `simd_mix`).
public func simd_mix<V: SIMD>(_ x: V, _ y: V, _ t: V) -> V where V.Scalar: BinaryFloatingPoint { x + t * (y - x) }

/// The linear interpolation `x + t·(y − x)` (Apple's scalar `simd_mix`).
public func simd_mix<T: BinaryFloatingPoint>(_ x: T, _ y: T, _ t: T) -> T { x + t * (y - x) }

/// The absolute value of each element (Apple's `simd_abs`).
public func simd_abs<V: SIMD>(_ x: V) -> V where V.Scalar: BinaryFloatingPoint { x.replacing(with: -x, where: x .< 0) }

/// The smaller of each pair of elements (Apple's `simd_min`).
public func simd_min<V: SIMD>(_ x: V, _ y: V) -> V where V.Scalar: BinaryFloatingPoint { pointwiseMin(x, y) }

/// The larger of each pair of elements (Apple's `simd_max`).
public func simd_max<V: SIMD>(_ x: V, _ y: V) -> V where V.Scalar: BinaryFloatingPoint { pointwiseMax(x, y) }

/// The Swift `simd` overlay's name for ``simd_dot(_:_:)``.
public func dot<V: SIMD>(_ x: V, _ y: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint { simd_dot(x, y) }
/// The Swift `simd` overlay's name for ``simd_length(_:)``.
public func length<V: SIMD>(_ x: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint { simd_length(x) }
/// The Swift `simd` overlay's name for ``simd_length_squared(_:)``.
public func length_squared<V: SIMD>(_ x: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint { simd_length_squared(x) }
/// The Swift `simd` overlay's name for ``simd_distance(_:_:)``.
public func distance<V: SIMD>(_ x: V, _ y: V) -> V.Scalar where V.Scalar: BinaryFloatingPoint { simd_distance(x, y) }
/// The Swift `simd` overlay's name for `simd_normalize`.
public func normalize<V: SIMD>(_ x: V) -> V where V.Scalar: BinaryFloatingPoint { simd_normalize(x) }
/// The Swift `simd` overlay's name for ``simd_cross(_:_:)``.
public func cross<T: BinaryFloatingPoint & SIMDScalar>(_ x: SIMD3<T>, _ y: SIMD3<T>) -> SIMD3<T> { simd_cross(x, y) }
/// The Swift `simd` overlay's `mix(_:_:t:)`: `simd_mix` with one weight for every element.
public func mix<V: SIMD>(_ x: V, _ y: V, t: V.Scalar) -> V where V.Scalar: BinaryFloatingPoint { x + t * (y - x) }
/// The Swift `simd` overlay's `clamp(_:min:max:)` with one bound for every element.
public func clamp<V: SIMD>(_ x: V, min: V.Scalar, max: V.Scalar) -> V where V.Scalar: BinaryFloatingPoint {
    pointwiseMin(pointwiseMax(x, V(repeating: min)), V(repeating: max))
}
/// The Swift `simd` overlay's `clamp(_:min:max:)` with bounds per element.
public func clamp<V: SIMD>(_ x: V, min: V, max: V) -> V where V.Scalar: BinaryFloatingPoint {
    pointwiseMin(pointwiseMax(x, min), max)
}

/// Three `Float`s (Apple's `simd_make_float3`).
public func simd_make_float3(_ x: Float, _ y: Float, _ z: Float) -> simd_float3 { SIMD3(x, y, z) }
/// `xy` then `z` (Apple's `simd_make_float3`).
public func simd_make_float3(_ xy: simd_float2, _ z: Float) -> simd_float3 { SIMD3(xy.x, xy.y, z) }
/// `x` then `yz` (Apple's `simd_make_float3`).
public func simd_make_float3(_ x: Float, _ yz: simd_float2) -> simd_float3 { SIMD3(x, yz.x, yz.y) }
/// The first three elements of `xyzw` (Apple's `simd_make_float3`).
public func simd_make_float3(_ xyzw: simd_float4) -> simd_float3 { SIMD3(xyzw.x, xyzw.y, xyzw.z) }
/// `xyz` unchanged (Apple's `simd_make_float3`).
public func simd_make_float3(_ xyz: simd_float3) -> simd_float3 { xyz }
/// `xy` with `z` = 0 (Apple's `simd_make_float3`).
public func simd_make_float3(_ xy: simd_float2) -> simd_float3 { SIMD3(xy.x, xy.y, 0) }

/// Four `Float`s (Apple's `simd_make_float4`).
public func simd_make_float4(_ x: Float, _ y: Float, _ z: Float, _ w: Float) -> simd_float4 { SIMD4(x, y, z, w) }
/// `xyz` then `w` (Apple's `simd_make_float4`).
public func simd_make_float4(_ xyz: simd_float3, _ w: Float) -> simd_float4 { SIMD4(xyz.x, xyz.y, xyz.z, w) }
/// `x` then `yzw` (Apple's `simd_make_float4`).
public func simd_make_float4(_ x: Float, _ yzw: simd_float3) -> simd_float4 { SIMD4(x, yzw.x, yzw.y, yzw.z) }
/// `xy` then `zw` (Apple's `simd_make_float4`).
public func simd_make_float4(_ xy: simd_float2, _ zw: simd_float2) -> simd_float4 { SIMD4(xy.x, xy.y, zw.x, zw.y) }
/// `xyz` with `w` = 0 (Apple's `simd_make_float4`).
public func simd_make_float4(_ xyz: simd_float3) -> simd_float4 { SIMD4(xyz.x, xyz.y, xyz.z, 0) }
/// `xyzw` unchanged (Apple's `simd_make_float4`).
public func simd_make_float4(_ xyzw: simd_float4) -> simd_float4 { xyzw }

/// Two `Float`s (Apple's `simd_make_float2`).
public func simd_make_float2(_ x: Float, _ y: Float) -> simd_float2 { SIMD2(x, y) }
/// Three `Double`s (Apple's `simd_make_double3`).
public func simd_make_double3(_ x: Double, _ y: Double, _ z: Double) -> simd_double3 { SIMD3(x, y, z) }
/// Four `Double`s (Apple's `simd_make_double4`).
public func simd_make_double4(_ x: Double, _ y: Double, _ z: Double, _ w: Double) -> simd_double4 {
    SIMD4(x, y, z, w)
}

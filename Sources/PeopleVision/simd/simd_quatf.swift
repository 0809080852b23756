import Foundation

/// A quaternion of `Float`s, as Apple's `simd_quatf`: `vector` holds the imaginary part in `x, y, z` and the real
/// part in `w`. Unit quaternions represent rotations: ``act(_:)`` rotates a vector, `simd_float4x4(quaternion)` makes
/// the rotation matrix.
///
/// ```swift
/// let quarterTurn = simd_quatf(angle: .pi / 2, axis: simd_float3(0, 0, 1))
/// quarterTurn.act(simd_float3(1, 0, 0))   // (0, 1, 0)
/// ```
public struct simd_quatf: Sendable, Equatable, CustomStringConvertible {
    /// `(ix, iy, iz, r)`.
    public var vector: simd_float4

    /// The zero quaternion.
    public init() { vector = .zero }

    /// A quaternion from `(ix, iy, iz, r)`.
    public init(vector: simd_float4) { self.vector = vector }

    /// A quaternion from its four parts.
    public init(ix: Float, iy: Float, iz: Float, r: Float) { vector = SIMD4(ix, iy, iz, r) }

    /// A quaternion from its real and imaginary parts.
    public init(real: Float, imag: simd_float3) { vector = SIMD4(imag.x, imag.y, imag.z, real) }

    /// The rotation by `angle` radians about `axis` (normalized here), counter-clockwise looking down the axis.
    public init(angle: Float, axis: simd_float3) {
        let a = simd_normalize(axis) * sin(angle / 2)
        vector = SIMD4(a.x, a.y, a.z, cos(angle / 2))
    }

    /// The rotation of a rotation matrix's upper-left 3×3 block (which must be orthonormal).
    public init(_ rotation: simd_float4x4) {
        let c = rotation.columns
        self.init(simd_float3x3(SIMD3(c.0.x, c.0.y, c.0.z), SIMD3(c.1.x, c.1.y, c.1.z), SIMD3(c.2.x, c.2.y, c.2.z)))
    }

    /// The rotation of an orthonormal rotation matrix.
    public init(_ m: simd_float3x3) {
        // Shepperd's method: start from the largest of the four squared components for accuracy.
        let (m00, m11, m22) = (m[0, 0], m[1, 1], m[2, 2])
        let trace = m00 + m11 + m22
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            vector = SIMD4((m[1, 2] - m[2, 1]) / s, (m[2, 0] - m[0, 2]) / s, (m[0, 1] - m[1, 0]) / s, s / 4)
        } else if m00 > m11 && m00 > m22 {
            let s = (1 + m00 - m11 - m22).squareRoot() * 2
            vector = SIMD4(s / 4, (m[1, 0] + m[0, 1]) / s, (m[2, 0] + m[0, 2]) / s, (m[1, 2] - m[2, 1]) / s)
        } else if m11 > m22 {
            let s = (1 + m11 - m00 - m22).squareRoot() * 2
            vector = SIMD4((m[1, 0] + m[0, 1]) / s, s / 4, (m[2, 1] + m[1, 2]) / s, (m[2, 0] - m[0, 2]) / s)
        } else {
            let s = (1 + m22 - m00 - m11).squareRoot() * 2
            vector = SIMD4((m[2, 0] + m[0, 2]) / s, (m[2, 1] + m[1, 2]) / s, s / 4, (m[0, 1] - m[1, 0]) / s)
        }
    }

    /// The real part.
    public var real: Float {
        get { vector.w }
        set { vector.w = newValue }
    }

    /// The imaginary part.
    public var imag: simd_float3 {
        get { SIMD3(vector.x, vector.y, vector.z) }
        set { vector = SIMD4(newValue.x, newValue.y, newValue.z, vector.w) }
    }

    /// The rotation angle in radians, `2·atan2(|imag|, real)`.
    public var angle: Float { 2 * atan2(simd_length(imag), real) }

    /// The rotation axis (unit length); `(1, 0, 0)` when there is no rotation.
    public var axis: simd_float3 {
        let l = simd_length(imag)
        return l == 0 ? SIMD3(1, 0, 0) : imag / l
    }

    /// The norm.
    public var length: Float { simd_length(vector) }

    /// The quaternion scaled to length 1.
    public var normalized: simd_quatf { simd_quatf(vector: vector / length) }

    /// The conjugate `(−imag, real)`.
    public var conjugate: simd_quatf { simd_quatf(vector: SIMD4(-vector.x, -vector.y, -vector.z, vector.w)) }

    /// The multiplicative inverse.
    public var inverse: simd_quatf { simd_quatf(vector: conjugate.vector / simd_length_squared(vector)) }

    /// `v` rotated by this (unit) quaternion: `q·v·q⁻¹`.
    public func act(_ v: simd_float3) -> simd_float3 { (self * simd_quatf(real: 0, imag: v) * inverse).imag }

    /// The Hamilton product: the rotation `b` then `a`.
    public static func * (a: simd_quatf, b: simd_quatf) -> simd_quatf {
        simd_quatf(real: a.real * b.real - simd_dot(a.imag, b.imag),
                   imag: a.real * b.imag + b.real * a.imag + simd_cross(a.imag, b.imag))
    }

    /// Every component times `s`.
    public static func * (a: simd_quatf, s: Float) -> simd_quatf { simd_quatf(vector: a.vector * s) }

    /// The component-wise sum.
    public static func + (a: simd_quatf, b: simd_quatf) -> simd_quatf { simd_quatf(vector: a.vector + b.vector) }

    /// The component-wise difference.
    public static func - (a: simd_quatf, b: simd_quatf) -> simd_quatf { simd_quatf(vector: a.vector - b.vector) }

    public var description: String { "simd_quatf(real: \(real), imag: \(imag))" }
}

extension simd_float3x3 {
    /// The rotation matrix of a unit quaternion.
    public init(_ q: simd_quatf) {
        let (x, y, z, w) = (q.vector.x, q.vector.y, q.vector.z, q.vector.w)
        self.init(
            SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)),
            SIMD3(2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)),
            SIMD3(2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)))
    }
}

extension simd_float4x4 {
    /// The rotation matrix of a unit quaternion, with no translation.
    public init(_ q: simd_quatf) {
        let r = simd_float3x3(q)
        self.init(
            SIMD4(r.columns.0, 0), SIMD4(r.columns.1, 0), SIMD4(r.columns.2, 0), SIMD4(0, 0, 0, 1))
    }
}

/// The rotation by `angle` radians about `axis` (Apple's `simd_quaternion`).
public func simd_quaternion(_ angle: Float, _ axis: simd_float3) -> simd_quatf { simd_quatf(angle: angle, axis: axis) }
/// A quaternion from `(ix, iy, iz, r)` (Apple's `simd_quaternion`).
public func simd_quaternion(_ ix: Float, _ iy: Float, _ iz: Float, _ r: Float) -> simd_quatf {
    simd_quatf(ix: ix, iy: iy, iz: iz, r: r)
}
/// The rotation of a rotation matrix (Apple's `simd_quaternion`).
public func simd_quaternion(_ m: simd_float4x4) -> simd_quatf { simd_quatf(m) }
/// `v` rotated by `q` (Apple's `simd_act`).
public func simd_act(_ q: simd_quatf, _ v: simd_float3) -> simd_float3 { q.act(v) }
/// The rotation matrix of `q` (Apple's `simd_matrix4x4`).
public func simd_matrix4x4(_ q: simd_quatf) -> simd_float4x4 { simd_float4x4(q) }
/// The rotation matrix of `q` (Apple's `simd_matrix3x3`).
public func simd_matrix3x3(_ q: simd_quatf) -> simd_float3x3 { simd_float3x3(q) }
/// The normalized quaternion (Apple's `simd_normalize` for quaternions).
public func simd_normalize(_ q: simd_quatf) -> simd_quatf { q.normalized }
/// The spherical linear interpolation from `q0` (t = 0) to `q1` (t = 1) along the shorter arc (Apple's `simd_slerp`).
public func simd_slerp(_ q0: simd_quatf, _ q1: simd_quatf, _ t: Float) -> simd_quatf {
    var q1 = q1
    var d = simd_dot(q0.vector, q1.vector)
    if d < 0 { (q1, d) = (q1 * -1, -d) }
    if d > 0.9995 { return simd_quatf(vector: simd_mix(q0.vector, q1.vector, SIMD4(repeating: t))).normalized }
    let theta = acos(d)
    let v = (sin((1 - t) * theta) * q0.vector + sin(t * theta) * q1.vector) / sin(theta)
    return simd_quatf(vector: v)
}

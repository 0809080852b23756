import Foundation

/// The Swift `simd` overlay's name for ``simd_float4x4``.
public typealias float4x4 = simd_float4x4
/// The Swift `simd` overlay's name for ``simd_float3x3``.
public typealias float3x3 = simd_float3x3

extension simd_float4x4 {
    /// A matrix from its four columns, as `simd_float4x4([c0, c1, c2, c3])`.
    ///
    /// - Precondition: `columns` has four elements (Apple's traps otherwise).
    public init(_ columns: [SIMD4<Float>]) {
        precondition(columns.count == 4, "simd_float4x4 needs 4 columns, not \(columns.count)")
        self.init(columns[0], columns[1], columns[2], columns[3])
    }

    /// A matrix from its four rows.
    ///
    /// - Precondition: `rows` has four elements.
    public init(rows: [SIMD4<Float>]) {
        self = simd_float4x4(rows).transpose
    }

    /// `scalar` times the identity.
    public init(_ scalar: Float) { self.init(diagonal: SIMD4(repeating: scalar)) }

    /// The determinant.
    public var determinant: Float {
        let t = transpose
        // Laplace expansion along the first row, each minor a 3×3 determinant of the other rows.
        func minor(_ skip: Int) -> Float {
            let cols = (0..<4).filter { $0 != skip }
            let m = (1..<4).map { r in cols.map { t[r][$0] } }
            return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        return (0..<4).reduce(0) { $0 + ($1 % 2 == 0 ? 1 : -1) * t[0][$1] * minor($1) }
    }

    /// The element-wise sum.
    public static func + (a: simd_float4x4, b: simd_float4x4) -> simd_float4x4 {
        simd_float4x4(a.columns.0 + b.columns.0, a.columns.1 + b.columns.1, a.columns.2 + b.columns.2, a.columns.3 + b.columns.3)
    }

    /// The element-wise difference.
    public static func - (a: simd_float4x4, b: simd_float4x4) -> simd_float4x4 {
        simd_float4x4(a.columns.0 - b.columns.0, a.columns.1 - b.columns.1, a.columns.2 - b.columns.2, a.columns.3 - b.columns.3)
    }

    /// Every element times `s`.
    public static func * (s: Float, m: simd_float4x4) -> simd_float4x4 {
        simd_float4x4(s * m.columns.0, s * m.columns.1, s * m.columns.2, s * m.columns.3)
    }

    /// The row vector `v` times the matrix.
    public static func * (v: SIMD4<Float>, m: simd_float4x4) -> SIMD4<Float> {
        SIMD4(simd_dot(v, m.columns.0), simd_dot(v, m.columns.1), simd_dot(v, m.columns.2), simd_dot(v, m.columns.3))
    }

    /// `a = a * b`.
    public static func *= (a: inout simd_float4x4, b: simd_float4x4) { a = a * b }
}

extension simd_float3x3 {
    /// A matrix from its three columns, as `simd_float3x3([c0, c1, c2])`.
    ///
    /// - Precondition: `columns` has three elements.
    public init(_ columns: [SIMD3<Float>]) {
        precondition(columns.count == 3, "simd_float3x3 needs 3 columns, not \(columns.count)")
        self.init(columns[0], columns[1], columns[2])
    }

    /// A matrix from its three rows.
    public init(rows: [SIMD3<Float>]) { self = simd_float3x3(rows).transpose }

    /// `scalar` times the identity.
    public init(_ scalar: Float) { self.init(diagonal: SIMD3(repeating: scalar)) }

    /// Column `column` (0…2).
    public subscript(column: Int) -> SIMD3<Float> {
        get {
            switch column {
            case 0: columns.0
            case 1: columns.1
            case 2: columns.2
            default: preconditionFailure("simd_float3x3 has columns 0…2, not \(column)")
            }
        }
        set {
            switch column {
            case 0: columns.0 = newValue
            case 1: columns.1 = newValue
            case 2: columns.2 = newValue
            default: preconditionFailure("simd_float3x3 has columns 0…2, not \(column)")
            }
        }
    }

    /// The element in `column`, `row`.
    public subscript(column: Int, row: Int) -> Float {
        get { self[column][row] }
        set { self[column][row] = newValue }
    }

    /// The transpose.
    public var transpose: simd_float3x3 {
        simd_float3x3(
            SIMD3(columns.0.x, columns.1.x, columns.2.x), SIMD3(columns.0.y, columns.1.y, columns.2.y),
            SIMD3(columns.0.z, columns.1.z, columns.2.z))
    }

    /// The determinant.
    public var determinant: Float { simd_dot(columns.0, simd_cross(columns.1, columns.2)) }

    /// The inverse; a singular matrix gives non-finite elements, as `simd_inverse`.
    public var inverse: simd_float3x3 {
        let (a, b, c) = columns
        // The rows of the inverse are the cross products of column pairs over the determinant.
        let det = simd_dot(a, simd_cross(b, c))
        return simd_float3x3(rows: [simd_cross(b, c) / det, simd_cross(c, a) / det, simd_cross(a, b) / det])
    }

    /// The matrix product.
    public static func * (a: simd_float3x3, b: simd_float3x3) -> simd_float3x3 {
        simd_float3x3(a * b.columns.0, a * b.columns.1, a * b.columns.2)
    }

    /// The matrix times the column vector `v`.
    public static func * (a: simd_float3x3, v: SIMD3<Float>) -> SIMD3<Float> {
        a.columns.0 * v.x + a.columns.1 * v.y + a.columns.2 * v.z
    }

    /// The row vector `v` times the matrix.
    public static func * (v: SIMD3<Float>, m: simd_float3x3) -> SIMD3<Float> {
        SIMD3(simd_dot(v, m.columns.0), simd_dot(v, m.columns.1), simd_dot(v, m.columns.2))
    }

    /// Every element times `s`.
    public static func * (s: Float, m: simd_float3x3) -> simd_float3x3 {
        simd_float3x3(s * m.columns.0, s * m.columns.1, s * m.columns.2)
    }

    /// The element-wise sum.
    public static func + (a: simd_float3x3, b: simd_float3x3) -> simd_float3x3 {
        simd_float3x3(a.columns.0 + b.columns.0, a.columns.1 + b.columns.1, a.columns.2 + b.columns.2)
    }

    /// The element-wise difference.
    public static func - (a: simd_float3x3, b: simd_float3x3) -> simd_float3x3 {
        simd_float3x3(a.columns.0 - b.columns.0, a.columns.1 - b.columns.1, a.columns.2 - b.columns.2)
    }
}

/// The inverse (Apple's `simd_inverse`).
public func simd_inverse(_ m: simd_float4x4) -> simd_float4x4 { m.inverse }
/// The inverse (Apple's `simd_inverse`).
public func simd_inverse(_ m: simd_float3x3) -> simd_float3x3 { m.inverse }
/// The transpose (Apple's `simd_transpose`).
public func simd_transpose(_ m: simd_float4x4) -> simd_float4x4 { m.transpose }
/// The transpose (Apple's `simd_transpose`).
public func simd_transpose(_ m: simd_float3x3) -> simd_float3x3 { m.transpose }
/// The determinant (Apple's `simd_determinant`).
public func simd_determinant(_ m: simd_float4x4) -> Float { m.determinant }
/// The determinant (Apple's `simd_determinant`).
public func simd_determinant(_ m: simd_float3x3) -> Float { m.determinant }
/// The matrix product `a·b` (Apple's `simd_mul`).
public func simd_mul(_ a: simd_float4x4, _ b: simd_float4x4) -> simd_float4x4 { a * b }
/// The matrix times a column vector (Apple's `simd_mul`).
public func simd_mul(_ a: simd_float4x4, _ v: simd_float4) -> simd_float4 { a * v }
/// A row vector times the matrix (Apple's `simd_mul`).
public func simd_mul(_ v: simd_float4, _ a: simd_float4x4) -> simd_float4 { v * a }
/// The matrix product `a·b` (Apple's `simd_mul`).
public func simd_mul(_ a: simd_float3x3, _ b: simd_float3x3) -> simd_float3x3 { a * b }
/// The matrix times a column vector (Apple's `simd_mul`).
public func simd_mul(_ a: simd_float3x3, _ v: simd_float3) -> simd_float3 { a * v }
/// A row vector times the matrix (Apple's `simd_mul`).
public func simd_mul(_ v: simd_float3, _ a: simd_float3x3) -> simd_float3 { v * a }
/// A matrix from its columns (Apple's `simd_matrix`).
public func simd_matrix(_ c0: simd_float4, _ c1: simd_float4, _ c2: simd_float4, _ c3: simd_float4) -> simd_float4x4 {
    simd_float4x4(c0, c1, c2, c3)
}
/// A matrix from its columns (Apple's `simd_matrix`).
public func simd_matrix(_ c0: simd_float3, _ c1: simd_float3, _ c2: simd_float3) -> simd_float3x3 {
    simd_float3x3(c0, c1, c2)
}

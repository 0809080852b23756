import Foundation

/// A 4×4 matrix of `Float` stored as four columns, as Apple's `simd_float4x4` (the `simd` module does not exist on
/// Linux). Vision's 3-D body pose uses it for rigid transforms: rotation in the upper 3×3, translation in
/// `columns.3`.
public struct simd_float4x4: Sendable, Equatable, CustomStringConvertible {
    /// The columns.
    public var columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)

    /// The zero matrix.
    public init() { columns = (.zero, .zero, .zero, .zero) }

    /// A matrix from its columns.
    public init(columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)) { self.columns = columns }

    /// A matrix from its columns.
    public init(_ c0: SIMD4<Float>, _ c1: SIMD4<Float>, _ c2: SIMD4<Float>, _ c3: SIMD4<Float>) { columns = (c0, c1, c2, c3) }

    /// A diagonal matrix.
    public init(diagonal d: SIMD4<Float>) {
        columns = (SIMD4(d.x, 0, 0, 0), SIMD4(0, d.y, 0, 0), SIMD4(0, 0, d.z, 0), SIMD4(0, 0, 0, d.w))
    }

    /// Column `column` (0…3).
    public subscript(column: Int) -> SIMD4<Float> {
        get {
            switch column {
            case 0: columns.0
            case 1: columns.1
            case 2: columns.2
            case 3: columns.3
            default: preconditionFailure("simd_float4x4 has columns 0…3, not \(column)")
            }
        }
        set {
            switch column {
            case 0: columns.0 = newValue
            case 1: columns.1 = newValue
            case 2: columns.2 = newValue
            case 3: columns.3 = newValue
            default: preconditionFailure("simd_float4x4 has columns 0…3, not \(column)")
            }
        }
    }

    /// The element in `column`, `row`.
    public subscript(column: Int, row: Int) -> Float {
        get { self[column][row] }
        set { self[column][row] = newValue }
    }

    /// The transpose.
    public var transpose: simd_float4x4 {
        var t = simd_float4x4()
        for c in 0..<4 { for r in 0..<4 { t[r, c] = self[c, r] } }
        return t
    }

    /// The inverse (by cofactors, in `Double`); a singular matrix gives non-finite elements, as `simd_inverse`.
    public var inverse: simd_float4x4 {
        var m = [[Double]](repeating: [0, 0, 0, 0], count: 4)
        for r in 0..<4 { for c in 0..<4 { m[r][c] = Double(self[c, r]) } }
        func minor(_ r: Int, _ c: Int) -> Double {
            let rows = (0..<4).filter { $0 != r }, cols = (0..<4).filter { $0 != c }
            let a = rows.map { i in cols.map { m[i][$0] } }
            return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        var det = 0.0
        for c in 0..<4 { det += (c % 2 == 0 ? 1 : -1) * m[0][c] * minor(0, c) }
        var out = simd_float4x4()
        for r in 0..<4 {
            for c in 0..<4 {
                // inverse[r][c] = cofactor[c][r] / det
                out[c, r] = Float((((r + c) % 2 == 0) ? 1 : -1) * minor(c, r) / det)
            }
        }
        return out
    }

    public static func == (a: simd_float4x4, b: simd_float4x4) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2 && a.columns.3 == b.columns.3
    }

    public static func * (a: simd_float4x4, b: simd_float4x4) -> simd_float4x4 {
        simd_float4x4(a * b.columns.0, a * b.columns.1, a * b.columns.2, a * b.columns.3)
    }

    public static func * (a: simd_float4x4, v: SIMD4<Float>) -> SIMD4<Float> {
        a.columns.0 * v.x + a.columns.1 * v.y + a.columns.2 * v.z + a.columns.3 * v.w
    }

    public var description: String {
        "simd_float4x4([\(columns.0), \(columns.1), \(columns.2), \(columns.3)])"
    }
}

/// Apple's other name for ``simd_float4x4``.
public typealias matrix_float4x4 = simd_float4x4

/// The 4×4 identity matrix.
public let matrix_identity_float4x4 = simd_float4x4(diagonal: SIMD4(1, 1, 1, 1))

/// A 3×3 matrix of `Float` stored as three columns, as Apple's `simd_float3x3` (camera intrinsics).
public struct simd_float3x3: Sendable, Equatable {
    /// The columns.
    public var columns: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)

    /// The zero matrix.
    public init() { columns = (.zero, .zero, .zero) }

    /// A matrix from its columns.
    public init(columns: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)) { self.columns = columns }

    /// A matrix from its columns.
    public init(_ c0: SIMD3<Float>, _ c1: SIMD3<Float>, _ c2: SIMD3<Float>) { columns = (c0, c1, c2) }

    /// A diagonal matrix.
    public init(diagonal d: SIMD3<Float>) { columns = (SIMD3(d.x, 0, 0), SIMD3(0, d.y, 0), SIMD3(0, 0, d.z)) }

    public static func == (a: simd_float3x3, b: simd_float3x3) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2
    }
}

/// Apple's other name for ``simd_float3x3``.
public typealias matrix_float3x3 = simd_float3x3

/// The 3×3 identity matrix.
public let matrix_identity_float3x3 = simd_float3x3(diagonal: SIMD3(1, 1, 1))

extension simd_float4x4 {
    /// A rigid transform with no rotation and `translation` in `columns.3`.
    init(translation t: SIMD3<Double>) {
        self = matrix_identity_float4x4
        columns.3 = SIMD4(Float(t.x), Float(t.y), Float(t.z), 1)
    }

    /// The translation part (`columns.3.xyz`).
    var translation: SIMD3<Float> { SIMD3(columns.3.x, columns.3.y, columns.3.z) }
}

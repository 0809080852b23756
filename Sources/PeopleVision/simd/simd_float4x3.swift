/// A matrix of four columns of three `Float`s, as Apple's `simd_float4x3`: a camera's extrinsics
/// (``AVCameraCalibrationData/extrinsicMatrix``: a 3×3 rotation, then the translation column).
public struct simd_float4x3: Sendable, Equatable {
    /// The columns.
    public var columns: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)

    /// The zero matrix.
    public init() { columns = (.zero, .zero, .zero, .zero) }

    /// A matrix from its columns.
    public init(columns: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)) { self.columns = columns }

    /// A matrix from its columns.
    public init(_ c0: SIMD3<Float>, _ c1: SIMD3<Float>, _ c2: SIMD3<Float>, _ c3: SIMD3<Float>) {
        columns = (c0, c1, c2, c3)
    }

    public static func == (a: simd_float4x3, b: simd_float4x3) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2
            && a.columns.3 == b.columns.3
    }
}

/// Apple's other name for ``simd_float4x3``.
public typealias matrix_float4x3 = simd_float4x3

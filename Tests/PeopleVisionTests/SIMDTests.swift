import Foundation
import PeopleVision
import Testing

/// Apple's simd names and functions, checked against values worked out by hand.
@Suite struct SIMDTests {
    func close(_ a: Float, _ b: Float, _ tolerance: Float = 1e-5) -> Bool { abs(a - b) <= tolerance }
    func close<V: SIMD>(_ a: V, _ b: V, _ tolerance: Float = 1e-5) -> Bool where V.Scalar == Float {
        (0..<a.scalarCount).allSatisfy { abs(a[$0] - b[$0]) <= tolerance }
    }
    func close(_ a: simd_float4x4, _ b: simd_float4x4) -> Bool {
        (0..<4).allSatisfy { close(a[$0], b[$0]) }
    }

    @Test func vectorFunctions() {
        let a = simd_float3(1, 2, 2), b = simd_float3(4, 6, 2)
        #expect(simd_length(a) == 3)
        #expect(simd_length_squared(a) == 9)
        #expect(simd_distance(a, b) == 5)  // (3, 4, 0)
        #expect(simd_dot(a, b) == 20)
        #expect(simd_cross(simd_float3(1, 0, 0), simd_float3(0, 1, 0)) == simd_float3(0, 0, 1))
        #expect(simd_cross(a, b) == simd_float3(2 * 2 - 2 * 6, 2 * 4 - 1 * 2, 1 * 6 - 2 * 4))
        #expect(close(simd_normalize(a), simd_float3(1.0 / 3, 2.0 / 3, 2.0 / 3)))
        #expect(simd_clamp(simd_float3(-1, 0.5, 3), simd_float3(repeating: 0), simd_float3(repeating: 1)) == simd_float3(0, 0.5, 1))
        #expect(simd_clamp(Float(7), 0, 5) == 5)
        #expect(clamp(simd_float2(-3, 3), min: 0, max: 1) == simd_float2(0, 1))
        #expect(clamp(simd_float2(-3, 3), min: simd_float2(-1, 0), max: simd_float2(0, 2)) == simd_float2(-1, 2))
        #expect(simd_mix(simd_float2(0, 10), simd_float2(10, 20), simd_float2(0.25, 0.5)) == simd_float2(2.5, 15))
        #expect(simd_mix(Float(2), 4, 0.5) == 3)
        #expect(simd_length(simd_double2(3, 4)) == 5)
        #expect(length(a) == 3 && distance(a, b) == 5 && dot(a, b) == 20)
        #expect(simd_make_float3(simd_float4(1, 2, 3, 4)) == simd_float3(1, 2, 3))
        #expect(simd_make_float4(a, 1) == simd_float4(1, 2, 2, 1))
        #expect(simd_make_float4(1, 2, 3, 4) == simd_float4(1, 2, 3, 4))
    }

    @Test func matrixConstructionAndProducts() {
        let m = simd_float4x4([
            simd_float4(1, 0, 0, 0), simd_float4(0, 2, 0, 0), simd_float4(0, 0, 3, 0), simd_float4(4, 5, 6, 1),
        ])
        #expect(m.columns.3 == simd_float4(4, 5, 6, 1))
        #expect(m[1, 1] == 2)
        // A scale by (1, 2, 3) then a translation by (4, 5, 6), applied to the point (1, 1, 1).
        #expect(m * simd_float4(1, 1, 1, 1) == simd_float4(5, 7, 9, 1))
        #expect(simd_mul(m, simd_float4(1, 1, 1, 1)) == simd_float4(5, 7, 9, 1))
        #expect(simd_float4x4(diagonal: simd_float4(1, 1, 1, 1)) == matrix_identity_float4x4)
        #expect(float4x4(1) == matrix_identity_float4x4)
        #expect(m.determinant == 6)
        #expect(simd_transpose(m).columns.0 == simd_float4(1, 0, 0, 4))
        let inverse = simd_inverse(m)
        #expect(close(inverse * m, matrix_identity_float4x4))
        // The inverse undoes the translation, then the scale: (5, 7, 9) ↦ (1, 1, 1).
        #expect(close(inverse * simd_float4(5, 7, 9, 1), simd_float4(1, 1, 1, 1)))
        let rows = simd_float4x4(rows: [
            simd_float4(1, 2, 3, 4), simd_float4(0, 1, 0, 0), simd_float4(0, 0, 1, 0), simd_float4(0, 0, 0, 1),
        ])
        #expect(rows.columns.3 == simd_float4(4, 0, 0, 1))
        // A row vector times the matrix: (1, 0, 0, 0)·rows is the first row.
        #expect(simd_float4(1, 0, 0, 0) * rows == simd_float4(1, 2, 3, 4))
        let k = simd_float3x3(rows: [simd_float3(2, 0, 1), simd_float3(0, 4, 0), simd_float3(0, 0, 1)])
        #expect(k.determinant == 8)
        #expect(close(k.inverse * k * simd_float3(3, 5, 7), simd_float3(3, 5, 7)))
        #expect(k * simd_float3(1, 1, 1) == simd_float3(3, 4, 1))
    }

    @Test func quaternionsRotate() {
        let q = simd_quatf(angle: .pi / 2, axis: simd_float3(0, 0, 1))
        #expect(close(q.act(simd_float3(1, 0, 0)), simd_float3(0, 1, 0)))
        #expect(close(simd_act(q, simd_float3(0, 1, 0)), simd_float3(-1, 0, 0)))
        #expect(close(q.angle, .pi / 2))
        #expect(close(q.axis, simd_float3(0, 0, 1)))
        // cos 45°, sin 45° about z.
        #expect(close(q.vector, simd_float4(0, 0, 0.70710678, 0.70710678)))
        let r = simd_float4x4(q)
        #expect(close(r * simd_float4(1, 0, 0, 1), simd_float4(0, 1, 0, 1)))
        #expect(close(simd_quatf(r).vector, q.vector))
        // Two quarter turns about z make a half turn.
        #expect(close((q * q).act(simd_float3(1, 0, 0)), simd_float3(-1, 0, 0)))
        let tilt = simd_quatf(angle: 2 * .pi / 3, axis: simd_float3(1, 1, 1))
        // A third of a turn about the diagonal cycles the axes: x ↦ y.
        #expect(close(tilt.act(simd_float3(1, 0, 0)), simd_float3(0, 1, 0)))
        #expect(close(simd_quatf(simd_float4x4(tilt)).vector, tilt.vector))
        #expect(close(simd_slerp(simd_quatf(angle: 0, axis: simd_float3(0, 0, 1)), q, 0.5).angle, .pi / 4))
    }
}

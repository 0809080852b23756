import Foundation
import PeopleVision

/// Camera intrinsics given on the command line (`--intrinsics fx,fy,cx,cy`) or in a job line (`"intrinsics"`): focal
/// lengths and principal point in pixels of the image as analysed (top-left origin), passed to the handler as
/// `VNImageOption.cameraIntrinsics`. The 3-D body pose places the skeleton with them.
enum IntrinsicsInput {
    /// The intrinsics `text` gives: four comma-separated numbers `fx,fy,cx,cy`.
    static func parse(_ text: String) throws -> matrix_float3x3 {
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard values.count == 4, values.allSatisfy({ $0 != nil }) else {
            throw CommandFailure("intrinsics must be four numbers fx,fy,cx,cy (pixels), not '\(text)'")
        }
        return try matrix(values.map { $0! })
    }

    /// The intrinsics of a job line's `"intrinsics"` value: `[fx, fy, cx, cy]` or the 3×3 matrix as three rows
    /// (`[[fx, 0, cx], [0, fy, cy], [0, 0, 1]]`).
    static func parse(json value: Any) throws -> matrix_float3x3 {
        func number(_ v: Any) -> Double? { (v as? NSNumber)?.doubleValue }
        if let list = value as? [Any], list.count == 4, case let numbers = list.compactMap(number), numbers.count == 4 {
            return try matrix(numbers)
        }
        if let rows = value as? [[Any]], rows.count == 3, rows.allSatisfy({ $0.count == 3 }),
            case let m = rows.map({ $0.compactMap(number) }), m.allSatisfy({ $0.count == 3 })
        {
            guard m[1][0] == 0, m[2][0] == 0, m[2][1] == 0, m[2][2] == 1 else {
                throw CommandFailure("an intrinsic matrix's rows must be [fx, s, cx], [0, fy, cy], [0, 0, 1]")
            }
            return try matrix([m[0][0], m[1][1], m[0][2], m[1][2]])
        }
        throw CommandFailure("\"intrinsics\" must be [fx, fy, cx, cy] or the 3×3 matrix as three rows of numbers")
    }

    /// The intrinsics of a job's JSON object (its `"intrinsics"`), else `fallback`.
    /// - Throws: ``CommandFailure`` with the message prefixed by `place` (such as "line 3").
    static func of(_ object: [String: Any], else fallback: matrix_float3x3?, at place: String) throws -> matrix_float3x3? {
        guard let value = object["intrinsics"] else { return fallback }
        do {
            return try parse(json: value)
        } catch let failure as CommandFailure {
            throw CommandFailure("\(place): \(failure.message)")
        }
    }

    /// `VNImageOption.cameraIntrinsics`'s matrix (columns `(fx, 0, 0)`, `(0, fy, 0)`, `(cx, cy, 1)`).
    static func matrix(_ v: [Double]) throws -> matrix_float3x3 {
        guard v.allSatisfy(\.isFinite), v[0] > 0, v[1] > 0 else {
            throw CommandFailure("intrinsics need finite numbers and positive focal lengths, not \(v)")
        }
        return matrix_float3x3(SIMD3(Float(v[0]), 0, 0), SIMD3(0, Float(v[1]), 0), SIMD3(Float(v[2]), Float(v[3]), 1))
    }
}

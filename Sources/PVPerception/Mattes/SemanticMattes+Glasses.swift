#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PVImaging

/// Glasses from the face mesh and the image's brightness: a frame shows as a thin band darker (or brighter) than the
/// skin on both sides, across the nose bridge between the eyes and below at least one eye, where bare skin is smooth.
extension Work {
    /// Luma at the pixel nearest `p` (0 outside the image).
    func luma(_ p: SIMD2<Double>) -> Double {
        guard p.x >= 0, p.y >= 0, p.x < Double(width), p.y < Double(height) else { return 0 }
        return colour(Int(p.y) * width + Int(p.x)).x
    }

    /// How far a thin band across the segment `from` → `to` stands out from its surroundings: the largest difference
    /// between a point's luma (averaged over `across` on both sides of the segment) and the mean of the points a
    /// tenth of the segment before and after it.
    func bandContrast(from: SIMD2<Double>, to: SIMD2<Double>, across: SIMD2<Double>) -> Double {
        let steps = 40
        let profile = (0...steps).map { k -> Double in
            let p = from + (to - from) * (Double(k) / Double(steps))
            return (luma(p - across) + luma(p) + luma(p + across)) / 3
        }
        var best = 0.0
        for k in 4...(steps - 4) {
            let around = (profile[k - 4] + profile[k + 4]) / 2
            // Both neighbours must agree (a band, not an edge between two levels).
            guard abs(profile[k - 4] - profile[k + 4]) < 0.5 * abs(around - profile[k]) else { continue }
            best = max(best, abs(around - profile[k]))
        }
        return best
    }

    /// The glasses of `face` as two lens ellipses joined at the bridge, or nil when the bands are not there.
    func glasses(_ face: FaceRegions) -> [[SIMD2<Double>]]? {
        let right = face.eyeCentres.right, left = face.eyeCentres.left
        let span = left - right, d = FaceRegions.length(span)
        guard d > 8 else { return nil }
        let along = span / d
        var up = SIMD2(-along.y, along.x)
        if (up * face.up).sum() < 0 { up = -up }
        let middle = (left + right) / 2
        let bridge = bandContrast(from: middle - up * (0.05 * d), to: middle + up * (0.3 * d), across: along * (0.05 * d))
        let below = [right, left].map { eye in
            bandContrast(from: eye - up * (0.12 * d), to: eye - up * (0.6 * d), across: along * (0.08 * d))
        }
        guard bridge > SemanticMattes.glassesContrast, below.contains(where: { $0 > SemanticMattes.glassesContrast }) else {
            return nil
        }
        func lens(_ centre: SIMD2<Double>) -> [SIMD2<Double>] {
            let middle: SIMD2<Double> = centre - up * (0.04 * d)
            return (0..<32).map { k -> SIMD2<Double> in
                let t = Double(k) / 32 * 2 * Double.pi
                let x: SIMD2<Double> = along * (0.46 * d * cos(t))
                let y: SIMD2<Double> = up * (0.32 * d * sin(t))
                return middle + x + y
            }
        }
        let h = 0.05 * d
        let bar = [right + up * h, left + up * h, left + up * (2 * h), right + up * (2 * h)]
        return [lens(right), lens(left), bar]
    }
}

// Separable filters over materialised float images: Lanczos-3 resampling and Gaussian blur.
import Foundation
import PVImaging

/// The input taps of each output coordinate along one axis.
struct FilterTaps {
    /// First output coordinate.
    let first: Int
    /// Absolute input index of each output's first tap.
    var start: [Int]
    var count: [Int]
    /// `maxTaps` weights per output.
    var weights: [Float]
    let maxTaps: Int

    var outputCount: Int { start.count }
    /// The input indices read, as a half-open range (empty when no output reads anything).
    var inputRange: Range<Int> {
        var lo = Int.max, hi = Int.min
        for i in 0..<start.count where count[i] > 0 {
            lo = min(lo, start[i])
            hi = max(hi, start[i] + count[i])
        }
        return lo < hi ? lo..<hi : 0..<0
    }

    /// Builds taps from per-output `(first input index, weights)`. Inputs outside `bounds` are
    /// folded onto the nearest edge sample (`clampEdges`) or dropped (clear outside).
    init(outputs: Range<Int>, bounds: Range<Int>, clampEdges: Bool, _ taps: (Int) -> (Int, [Float])) {
        first = outputs.lowerBound
        var raw: [(Int, [Float])] = []
        raw.reserveCapacity(outputs.count)
        var widest = 1
        for o in outputs {
            var (s, w) = taps(o)
            // Fold or drop the taps that fall outside the input.
            if clampEdges, !bounds.isEmpty {
                var folded = [Float](repeating: 0, count: 0)
                let lo = max(s, bounds.lowerBound), hi = min(s + w.count - 1, bounds.upperBound - 1)
                if lo > hi {
                    // Entirely outside: all weight on the nearest edge.
                    let edge = s >= bounds.upperBound ? bounds.upperBound - 1 : bounds.lowerBound
                    (s, w) = (edge, [w.reduce(0, +)])
                } else {
                    folded = [Float](repeating: 0, count: hi - lo + 1)
                    for (k, weight) in w.enumerated() {
                        let i = min(max(s + k, lo), hi)
                        folded[i - lo] += weight
                    }
                    (s, w) = (lo, folded)
                }
            } else {
                let lo = max(s, bounds.lowerBound), hi = min(s + w.count, bounds.upperBound)
                if lo >= hi {
                    (s, w) = (lo, [])
                } else {
                    w = Array(w[(lo - s)..<(hi - s)])
                    s = lo
                }
            }
            widest = max(widest, w.count)
            raw.append((s, w))
        }
        maxTaps = widest
        start = raw.map(\.0)
        count = raw.map(\.1.count)
        weights = [Float](repeating: 0, count: raw.count * widest)
        for (i, r) in raw.enumerated() {
            for (k, w) in r.1.enumerated() { weights[i * widest + k] = w }
        }
    }

    /// Lanczos-3 taps for outputs whose centres map to input coordinate `u = (o + 0.5)·m + c − 0.5`
    /// (index space). `m > 1` shrinks: the kernel then widens by `m`. Weights sum to 1 before
    /// edge handling.
    static func lanczos(outputs: Range<Int>, m: Double, c: Double, bounds: Range<Int>, clampEdges: Bool) -> FilterTaps {
        let scale = max(1, m)
        let support = 3 * scale
        return FilterTaps(outputs: outputs, bounds: bounds, clampEdges: clampEdges) { o in
            let u = (Double(o) + 0.5) * m + c - 0.5
            let lo = Int((u - support).rounded(.down)) + 1, hi = Int((u + support).rounded(.up)) - 1
            var w = [Float]()
            w.reserveCapacity(max(0, hi - lo + 1))
            var sum = 0.0
            for i in lo...max(lo, hi) {
                let t = (Double(i) - u) / scale
                let v = lanczos3(t)
                w.append(Float(v))
                sum += v
            }
            if sum != 0 { w = w.map { $0 / Float(sum) } }
            return (lo, w)
        }
    }

    /// Gaussian taps `o − radius … o + radius` (normalised to 1); inputs outside `bounds` are clear.
    static func gaussian(outputs: Range<Int>, sigma: Float, radius: Int, bounds: Range<Int>) -> FilterTaps {
        var kernel = (-radius...radius).map { Foundation.exp(-Double($0 * $0) / (2 * Double(sigma) * Double(sigma))) }
        let sum = kernel.reduce(0, +)
        kernel = kernel.map { $0 / sum }
        let k = kernel.map(Float.init)
        return FilterTaps(outputs: outputs, bounds: bounds, clampEdges: false) { o in (o - radius, k) }
    }
}

/// Applies `xTaps` then `yTaps` to `input` (whose rect must cover every tap read), producing
/// the outputs `xTaps.first…` × `yTaps.first…`.
func separableFilter(_ input: FloatImage, x xTaps: FilterTaps, y yTaps: FilterTaps) -> FloatImage {
    let out = PixelRect(x: xTaps.first, y: yTaps.first, w: xTaps.outputCount, h: yTaps.outputCount)
    let result = FloatImage(rect: out)
    let rows = yTaps.inputRange
    if rows.isEmpty || out.isEmpty {
        result.pixels.update(repeating: .zero, count: max(1, out.area))
        return result
    }
    // Horizontal pass over the input rows the vertical taps read.
    let middle = FloatImage(rect: PixelRect(x: out.x, y: rows.lowerBound, w: out.w, h: rows.count))
    let inRect = input.rect
    xTaps.weights.withUnsafeBufferPointer { xw in
        let xWeights = UncheckedSendable(xw.baseAddress!)
        BandRenderer.parallelFor(rows.count, work: rows.count * out.w * xTaps.maxTaps) { band in
            for r in band {
                let y = rows.lowerBound + r
                let destination = middle.row(y)
                guard y >= inRect.y, y < inRect.maxY else {
                    destination.update(repeating: .zero, count: out.w)
                    continue
                }
                let source = input.row(y) - inRect.x
                for o in 0..<out.w {
                    let s = xTaps.start[o], n = xTaps.count[o]
                    let w = xWeights.value + o * xTaps.maxTaps
                    var acc = FloatPixel.zero
                    for k in 0..<n { acc += source[s &+ k] * w[k] }
                    destination[o] = acc
                }
            }
        }
    }
    // Vertical pass: whole rows at a time.
    yTaps.weights.withUnsafeBufferPointer { yw in
        let yWeights = UncheckedSendable(yw.baseAddress!)
        BandRenderer.parallelFor(out.h, work: out.area * yTaps.maxTaps) { band in
            for j in band {
                let destination = result.row(out.y + j)
                destination.update(repeating: .zero, count: out.w)
                let s = yTaps.start[j], n = yTaps.count[j]
                let w = yWeights.value + j * yTaps.maxTaps
                for k in 0..<n {
                    let source = middle.row(s + k)
                    let weight = w[k]
                    for o in 0..<out.w { destination[o] += source[o] * weight }
                }
            }
        }
    }
    return result
}

/// The grid reduction for a Gaussian blur of standard deviation `sigma`: nil below 16 pixels (blurred at full
/// resolution), else the power of two that leaves 4…8 pixels of `sigma` on the reduced grid, at most 64 (a band of
/// blocks is rendered at once: 64 rows of float pixels).
package func blurDecimation(sigma: Float) -> Int? {
    guard sigma >= 16 else { return nil }
    var f = 4
    while sigma / Float(2 * f) >= 4, f < 64 { f *= 2 }
    return f
}

/// Kernel half-width for a Gaussian of standard deviation `sigma`: `ceil(3·sigma)`.
package func gaussianRadius(sigma: Float) -> Int {
    min(Int((3 * sigma).rounded(.up)), 4096)
}

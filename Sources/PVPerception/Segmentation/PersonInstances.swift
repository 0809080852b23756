import PVImaging
import PVCore

/// The people of one image, each with a soft mask of their own, on the accurate segmentation level's grid (the
/// image shrunk by ``factor``): person instance segmentation.
///
/// Instances are numbered from 1, largest first (by mask area); 0 is the background. Their masks do not overlap:
/// each grid pixel of the fused person mask belongs to at most one instance.
public struct PersonInstances: Sendable {
    /// The grid's size.
    public let width: Int, height: Int
    /// The size of the image the grid covers, and how many image pixels a grid pixel spans on each axis (the last
    /// row and column may cover fewer).
    public let imageWidth: Int, imageHeight: Int, factor: Int
    /// Per grid pixel, row-major: 0 for the background, k where instance k's mask is at least 0.5.
    public let labels: [UInt8]
    /// Instance k's soft mask (0…1, row-major `width × height`) is `alphas[k - 1]`; 0 wherever another instance,
    /// or nobody, owns the pixel.
    public let alphas: [[Float]]
    /// The person behind each instance (instance k is `people[k - 1]`).
    public let people: [PersonPose]

    /// The number of instances.
    public var count: Int { alphas.count }

    /// The soft mask of a set of instances on the grid: the union of their masks (they do not overlap); with 0 in the
    /// set, the background is selected too, so the result is 1 minus the masks of the instances left out.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for a number that is not 0 or an instance.
    public func mask(selecting instances: Set<Int>) throws -> [Float] {
        if let bad = instances.sorted().first(where: { $0 < 0 || $0 > count }) {
            throw PerceptionError(
                .invalidArgument, "instance \(bad) does not exist: there are \(count == 0 ? "none" : "1…\(count)") (0 = background)")
        }
        let background = instances.contains(0)
        let chosen = (1...max(1, count)).filter { $0 <= count && instances.contains($0) != background }
        var out = [Float](repeating: background ? 1 : 0, count: width * height)
        for k in chosen {
            let a = alphas[k - 1]
            if background {
                for i in out.indices where a[i] > 0 { out[i] = max(0, 1 - a[i]) }
            } else {
                for i in out.indices where a[i] > 0 { out[i] = min(1, a[i]) }
            }
        }
        return out
    }

    /// How a pixel is given to a person: inside the people's regions the strongest pose mask (weighted by how far
    /// inside its person's region the pixel lies) decides, provided it reaches ``ownershipFloor``; where no pose mask
    /// does (the selfie model's share of the fused mask), the person whose region holds the pixel most, then the
    /// nearest region centre.
    static let ownershipFloor: Float = 0.05

    /// Splits `fusion`'s mask among its people and keeps the `maxInstances` largest.
    init(_ fusion: PersonSegmenter.Fusion, maxInstances: Int) {
        let W = fusion.imageWidth, H = fusion.imageHeight, f = fusion.factor
        let w = (W + f - 1) / f, h = (H + f - 1) / f
        (width, height, imageWidth, imageHeight, factor) = (w, h, W, H, f)
        guard let fused = fusion.fused else {
            (labels, alphas, people) = (Array(repeating: 0, count: w * h), [], [])
            return
        }
        let candidates = fusion.people.filter { $0.segmentation != nil }
        let masks = candidates.map { $0.segmentation! }
        let warps = masks.map {
            ROIMaskWarp(
                maskWidth: $0.maskWidth, maskHeight: $0.maskHeight, crop: $0.cropRect, imageWidth: W, imageHeight: H,
                width: w, height: h)
        }
        let regions = candidates.map { PersonSegmenter.PersonRegion(roi: $0.roi, scale: 1.1) }
        let sx = Double(W) / Double(w), sy = Double(H) / Double(h)
        let stride = fused.bytesPerRow() / 4
        var value = [Float](repeating: 0, count: w * h)
        var owner = [Int](repeating: -1, count: w * h)
        fused.withUnsafeBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            var rows = [[Float]](repeating: [Float](repeating: 0, count: w), count: candidates.count)
            for y in 0..<h {
                for k in candidates.indices {
                    masks[k].roiMask.withUnsafeBufferPointer { src in
                        rows[k].withUnsafeMutableBufferPointer { warps[k].row(y, of: src.baseAddress!, into: $0.baseAddress!) }
                    }
                }
                let py = (Double(y) + 0.5) * sy - 0.5
                for x in 0..<w {
                    let v = m[y * stride + x]
                    value[y * w + x] = v
                    guard v > 0 else { continue }
                    let p = SIMD2((Double(x) + 0.5) * sx - 0.5, py)
                    var best = -1, bestScore: Float = 0
                    var held = -1, heldWeight: Float = 0, heldDistance = Double.infinity
                    for k in candidates.indices {
                        let g = regions[k].weight(p)
                        guard g > 0 else { continue }
                        let score = g * rows[k][x]
                        if score > bestScore { (best, bestScore) = (k, score) }
                        let d = p - regions[k].center, distance = (d * d).sum()
                        if g > heldWeight || (g == heldWeight && distance < heldDistance) {
                            (held, heldWeight, heldDistance) = (k, g, distance)
                        }
                    }
                    owner[y * w + x] = bestScore >= Self.ownershipFloor ? best : held
                }
            }
        }
        // Largest first; a person left without a pixel of their own at 0.5 is no instance.
        var area = [Double](repeating: 0, count: candidates.count), solid = [Int](repeating: 0, count: candidates.count)
        for i in owner.indices where owner[i] >= 0 {
            area[owner[i]] += Double(value[i])
            if value[i] >= 0.5 { solid[owner[i]] += 1 }
        }
        let kept = candidates.indices.filter { solid[$0] > 0 }.sorted { area[$0] > area[$1] }.prefix(max(0, maxInstances))
        var number = [Int](repeating: 0, count: candidates.count)
        for (n, k) in kept.enumerated() { number[k] = n + 1 }
        var labels = [UInt8](repeating: 0, count: w * h)
        var alphas = [[Float]](repeating: [Float](repeating: 0, count: w * h), count: kept.count)
        for i in owner.indices where owner[i] >= 0 {
            let n = number[owner[i]]
            guard n > 0 else { continue }
            alphas[n - 1][i] = value[i]
            if value[i] >= 0.5 { labels[i] = UInt8(n) }
        }
        self.labels = labels
        self.alphas = alphas
        people = kept.map { candidates[$0] }
    }
}

extension PersonSegmenter {
    /// Most people ``instances(in:maxInstances:)`` separates by default, as Vision's person instance masks do.
    public static let defaultMaxInstances = 4

    /// The people in `image` (any pixel format, upright), each with a mask of their own, from the accurate level's
    /// fused mask (selfie model outside the people, each person's pose mask inside their region).
    /// - Throws: ``PerceptionError`` `.invalidArgument` when this segmenter is not the accurate level or
    ///   `maxInstances` is outside 1…255; inference errors.
    public func instances(in image: PixelBuffer, maxInstances: Int = defaultMaxInstances) throws -> PersonInstances {
        try instances(of: try fuse(image), maxInstances: maxInstances)
    }

    /// ``instances(in:maxInstances:)`` from a fusion already made.
    package func instances(of fusion: Fusion, maxInstances: Int = defaultMaxInstances) throws -> PersonInstances {
        guard (1...255).contains(maxInstances) else {
            throw PerceptionError(.invalidArgument, "maxInstances \(maxInstances) is outside 1…255")
        }
        return PersonInstances(fusion, maxInstances: maxInstances)
    }
}

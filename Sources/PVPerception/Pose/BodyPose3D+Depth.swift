import Foundation

/// A depth map in metres over an image: `values[y * width + x]`, covering the same field of view as the image it
/// goes with, at any resolution of the same aspect ratio. Holes are NaN, infinite, zero or negative.
public struct DepthMap: Sendable {
    public let width: Int
    public let height: Int
    public let values: [Float]

    /// A map; nil when `values` does not hold `width × height` values.
    public init?(width: Int, height: Int, values: [Float]) {
        guard width > 0, height > 0, values.count == width * height else { return nil }
        self.width = width
        self.height = height
        self.values = values
    }

    /// Whether the map has the aspect ratio of a `width × height` image (within 2 %).
    public func covers(width imageWidth: Int, height imageHeight: Int) -> Bool {
        guard imageWidth > 0, imageHeight > 0 else { return false }
        let a = Double(width) / Double(height), b = Double(imageWidth) / Double(imageHeight)
        return abs(a - b) <= 0.02 * b
    }

    /// The median of the valid values within `radius` samples of the map point nearest the image point `(x, y)`
    /// (pixels of a `imageWidth × imageHeight` image, continuous coordinates), or nil when fewer than a third
    /// of them are valid.
    func sample(x: Double, y: Double, imageWidth: Int, imageHeight: Int, radius: Int = 2) -> Double? {
        let cx = Int((x * Double(width) / Double(imageWidth)).rounded(.down))
        let cy = Int((y * Double(height) / Double(imageHeight)).rounded(.down))
        guard (0..<width).contains(cx), (0..<height).contains(cy) else { return nil }
        var found: [Float] = []
        for yy in max(0, cy - radius)...min(height - 1, cy + radius) {
            for xx in max(0, cx - radius)...min(width - 1, cx + radius) {
                let v = values[yy * width + xx]
                if v.isFinite, v > 0 { found.append(v) }
            }
        }
        let side = 2 * radius + 1
        guard found.count * 3 >= side * side else { return nil }
        found.sort()
        return Double(found[found.count / 2])
    }
}

extension BodyPose3D {
    /// The joints whose depth is measured: those the model places itself or as midpoints of its own points.
    static let measuredJoints: [Joint] = Joint.allCases.filter { $0 != .topHead && $0 != .spine }

    /// The fewest joints with valid depth a measurement needs.
    public static let minimumMeasuredJoints = 4

    /// This skeleton measured with `depth`: each confidently placed joint (visibility and presence at least 0.5,
    /// its image point inside the image) is back-projected along its ray to the depth measured there (the median
    /// of the valid samples around it); the skeleton is then scaled about the camera by the median ratio of those
    /// depths to the joints' depths in this skeleton. That places it at the measured distance and scales its
    /// height by the same factor — the one scale a single view leaves free, since a skeleton `k` times larger
    /// and `k` times farther projects to the same image. The depth measured is that of the body's surface, a few
    /// centimetres in front of the joints; no allowance is made for it.
    ///
    /// - Parameters:
    ///   - person: The person the skeleton was built from (their 2-D landmarks, in the pixels of the region the
    ///     skeleton's intrinsics are for).
    ///   - depth: Metres over the whole image.
    ///   - origin: Where the region starts in the whole image (pixels).
    ///   - imageWidth: The whole image's width (pixels), which `depth` covers.
    ///   - imageHeight: Its height.
    /// - Returns: nil when fewer than ``minimumMeasuredJoints`` joints have a valid depth, or the result is not a
    ///   plausible person (a height outside 0.5…3 m).
    public func measured(
        person: PersonPose, depth: DepthMap, origin: (x: Double, y: Double), imageWidth: Int, imageHeight: Int
    ) -> BodyPose3D? {
        guard depth.covers(width: imageWidth, height: imageHeight), person.landmarks.count >= PersonPose.landmarkCount else {
            return nil
        }
        let image = Self.joints(fromImage: person.landmarks)
        var ratios: [Double] = []
        for joint in Self.measuredJoints {
            let (point, weight) = image[joint.rawValue]
            let z = position(joint).z
            guard weight >= 0.5, z > 0,
                let d = depth.sample(x: point.x + origin.x, y: point.y + origin.y, imageWidth: imageWidth, imageHeight: imageHeight)
            else { continue }
            ratios.append(d / z)
        }
        guard ratios.count >= Self.minimumMeasuredJoints else { return nil }
        ratios.sort()
        let k = ratios.count % 2 == 1
            ? ratios[ratios.count / 2] : (ratios[ratios.count / 2 - 1] + ratios[ratios.count / 2]) / 2
        let measuredHeight = height * k
        guard k.isFinite, k > 0, (0.5...3).contains(measuredHeight) else { return nil }
        return BodyPose3D(positions: positions.map { $0 * k }, height: measuredHeight, scale: scale * k, intrinsics: intrinsics)
    }
}

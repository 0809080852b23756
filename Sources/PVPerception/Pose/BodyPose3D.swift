/// A pinhole camera's intrinsics, in pixels of the image the points are in (principal point from the top-left, in
/// the continuous coordinates of the landmarks: the image spans 0…width).
public struct CameraIntrinsics: Sendable, Hashable {
    /// Focal lengths in pixels.
    public var fx: Double, fy: Double
    /// Principal point in pixels.
    public var cx: Double, cy: Double

    public init(fx: Double, fy: Double, cx: Double, cy: Double) {
        (self.fx, self.fy, self.cx, self.cy) = (fx, fy, cx, cy)
    }

    /// The focal length in 35 mm-equivalent millimetres of a phone's main camera, assumed when an image comes
    /// without intrinsics.
    public static let defaultEquivalentFocalLength = 26.0

    /// A camera with a `focalLength35mm` lens (35 mm-equivalent, as EXIF's `FocalLengthIn35mmFilm`: the image's
    /// diagonal spans the 43.27 mm diagonal of a 36 × 24 mm frame), square pixels, principal point at the image's
    /// centre.
    public static func assumed(width: Int, height: Int, focalLength35mm: Double = defaultEquivalentFocalLength) -> CameraIntrinsics {
        let diagonal = (Double(width * width) + Double(height * height)).squareRoot()
        let f = diagonal * focalLength35mm / (36 * 36 + 24 * 24).squareRoot()
        return CameraIntrinsics(fx: f, fy: f, cx: Double(width) / 2, cy: Double(height) / 2)
    }

    /// Whether every value is finite and the focal lengths positive.
    public var isUsable: Bool { fx > 0 && fy > 0 && fx.isFinite && fy.isFinite && cx.isFinite && cy.isFinite }
}

/// A person's 3-D skeleton in the 17 joints of Vision's 3-D body pose, placed in front of a camera.
///
/// From the pose landmarker's world landmarks (metres, origin between the hips, the image's axes: MODELS.md §8.4):
/// - **joints**: hips, knees, ankles, shoulders, elbows and wrists are the model's; `root` and `centerShoulder` the
///   midpoints of the hips and of the shoulders; `spine` halfway between them; `centerHead` the midpoint of the
///   ears; `topHead` (the model has no point there) 1.6 eye-to-mouth distances above `centerHead`, along the face's
///   mouth-to-eyes direction — the rule the 2-D human rectangles use for the head top;
/// - **scale**: the skeleton is scaled to a body `height` (default 1.8 m, Vision's reference height): ankle
///   height (0.07 m) + the mean of the two legs' hip–knee–ankle lengths + root to centre shoulder + centre
///   shoulder to head top;
/// - **placement**: the translation that best projects the joints onto the person's 2-D landmarks through
///   `intrinsics` (linear least squares, weighted by each landmark's visibility), the skeleton turned by the angle
///   between the optical axis and the ray to the person (the model sees a crop around the person, so its world
///   landmarks are in the axes of a camera looking straight at them; a person away from the image centre is seen
///   that much from the side), found by alternating the turn and the translation until they settle.
///
/// Positions are in the camera frame of computer vision: x right, y down, z forward (away from the camera),
/// metres.
public struct BodyPose3D: Sendable {
    /// Vision's 17 joints, in the framework's supported-joint order.
    public enum Joint: Int, CaseIterable, Sendable {
        case topHead, centerHead, centerShoulder, leftShoulder, rightShoulder, spine, leftElbow, rightElbow, leftWrist,
            rightWrist, root, leftHip, rightHip, leftKnee, rightKnee, leftAnkle, rightAnkle
    }

    /// Joint positions (indexed by ``Joint/rawValue``), camera frame, metres.
    public let positions: [SIMD3<Double>]
    /// The body height the skeleton was scaled to, metres.
    public let height: Double
    /// The factor the model's skeleton was scaled by to reach ``height``.
    public let scale: Double
    /// The camera the skeleton was placed for.
    public let intrinsics: CameraIntrinsics

    /// The camera-frame position of `joint`.
    public func position(_ joint: Joint) -> SIMD3<Double> { positions[joint.rawValue] }

    /// Where `joint` projects in the image, pixels (top-left origin).
    public func projection(_ joint: Joint) -> SIMD2<Double> {
        let p = position(joint)
        return SIMD2(intrinsics.fx * p.x / p.z + intrinsics.cx, intrinsics.fy * p.y / p.z + intrinsics.cy)
    }

    /// Ankle height above the ground added to the skeleton's length, metres.
    static let ankleHeight = 0.07
    /// The nearest a root may be placed in front of the camera, metres.
    static let minimumDepth = 0.3

    init(positions: [SIMD3<Double>], height: Double, scale: Double, intrinsics: CameraIntrinsics) {
        self.positions = positions
        self.height = height
        self.scale = scale
        self.intrinsics = intrinsics
    }

    /// The skeleton of `person` (whose world landmarks and 2-D landmarks are set), or `nil` when the world
    /// landmarks are missing or the skeleton has no length.
    /// - Parameter modelHeight: The height of the model's skeleton to scale from (``modelHeight(of:)``, smoothed
    ///   over a sequence's frames), instead of this frame's.
    public init?(person: PersonPose, intrinsics: CameraIntrinsics, height: Double = 1.8, modelHeight given: Double? = nil) {
        guard person.worldLandmarks.count >= PersonPose.landmarkCount, person.landmarks.count >= PersonPose.landmarkCount,
            intrinsics.isUsable, height > 0, height.isFinite
        else { return nil }
        let joints = Self.joints(fromWorld: person.worldLandmarks.map { SIMD3($0.x, $0.y, $0.z) })
        let modelHeight = given ?? Self.modelHeight(of: joints)
        guard modelHeight > 0.1, modelHeight.isFinite else { return nil }
        let scale = height / modelHeight
        let root = joints[Joint.root.rawValue]
        let relative = joints.map { ($0 - root) * scale }
        let image = Self.joints(fromImage: person.landmarks)
        let placed = Self.facingRay(relative, Self.ray(through: image, intrinsics: intrinsics))
        let t = Self.translation(placed, image: image, intrinsics: intrinsics)
        positions = placed.map { $0 + t }
        self.height = height
        self.scale = scale
        self.intrinsics = intrinsics
    }

    /// The height of `person`'s skeleton as the model gives it (ankle height + the mean leg + root to centre
    /// shoulder + centre shoulder to head top), nil without world landmarks.
    public static func modelHeight(of person: PersonPose) -> Double? {
        guard person.worldLandmarks.count >= PersonPose.landmarkCount else { return nil }
        return modelHeight(of: joints(fromWorld: person.worldLandmarks.map { SIMD3($0.x, $0.y, $0.z) }))
    }

    static func modelHeight(of joints: [SIMD3<Double>]) -> Double {
        func length(_ a: Joint, _ b: Joint) -> Double {
            let d = joints[a.rawValue] - joints[b.rawValue]
            return (d * d).sum().squareRoot()
        }
        let legs = (length(.leftHip, .leftKnee) + length(.leftKnee, .leftAnkle) + length(.rightHip, .rightKnee)
            + length(.rightKnee, .rightAnkle)) / 2
        return ankleHeight + legs + length(.root, .centerShoulder) + length(.centerShoulder, .topHead)
    }

    /// The camera ray through the visibility-weighted centre of the joints' image points (the optical axis when
    /// none is visible).
    static func ray(through image: [(point: SIMD2<Double>, weight: Double)], intrinsics k: CameraIntrinsics) -> SIMD3<Double> {
        let total = image.reduce(0) { $0 + $1.weight }
        guard total > 0 else { return SIMD3(0, 0, 1) }
        let centre = image.reduce(SIMD2<Double>.zero) { $0 + $1.point * $1.weight } / total
        return SIMD3((centre.x - k.cx) / k.fx, (centre.y - k.cy) / k.fy, 1)
    }

    /// `points` turned as a camera looking along `ray` sees them: the rotation taking the optical axis to `ray`.
    static func facingRay(_ points: [SIMD3<Double>], _ ray: SIMD3<Double>) -> [SIMD3<Double>] {
        let n = (ray * ray).sum().squareRoot()
        guard n > 0 else { return points }
        let d = ray / n
        let axis = SIMD3(-d.y, d.x, 0)  // (0, 0, 1) × d
        let s = (axis * axis).sum().squareRoot(), c = d.z
        guard s > 1e-9 else { return points }
        let k = axis / s
        return points.map { v in
            let kv = SIMD3(k.y * v.z - k.z * v.y, k.z * v.x - k.x * v.z, k.x * v.y - k.y * v.x)
            return v * c + kv * s + k * ((k * v).sum()) * (1 - c)
        }
    }

    /// The 17 joints from 33 points of the model's topology (world or image), with their weights for placement
    /// (the derived head top gets none).
    static func joints(fromWorld p: [SIMD3<Double>]) -> [SIMD3<Double>] {
        func mid(_ a: Int, _ b: Int) -> SIMD3<Double> { (p[a] + p[b]) / 2 }
        let root = mid(23, 24), shoulders = mid(11, 12), ears = mid(7, 8)
        let up = mid(2, 5) - mid(9, 10)  // mouth to eyes
        var j = [SIMD3<Double>](repeating: .zero, count: Joint.allCases.count)
        j[Joint.topHead.rawValue] = ears + 1.6 * up
        j[Joint.centerHead.rawValue] = ears
        j[Joint.centerShoulder.rawValue] = shoulders
        j[Joint.leftShoulder.rawValue] = p[11]
        j[Joint.rightShoulder.rawValue] = p[12]
        j[Joint.spine.rawValue] = (root + shoulders) / 2
        j[Joint.leftElbow.rawValue] = p[13]
        j[Joint.rightElbow.rawValue] = p[14]
        j[Joint.leftWrist.rawValue] = p[15]
        j[Joint.rightWrist.rawValue] = p[16]
        j[Joint.root.rawValue] = root
        j[Joint.leftHip.rawValue] = p[23]
        j[Joint.rightHip.rawValue] = p[24]
        j[Joint.leftKnee.rawValue] = p[25]
        j[Joint.rightKnee.rawValue] = p[26]
        j[Joint.leftAnkle.rawValue] = p[27]
        j[Joint.rightAnkle.rawValue] = p[28]
        return j
    }

    /// The image points of the joints the model places itself or as midpoints (pixels), with visibility weights;
    /// `spine` and `topHead` are derived and carry no weight.
    static func joints(fromImage l: [Landmark]) -> [(point: SIMD2<Double>, weight: Double)] {
        let z3 = l.map { SIMD3($0.x, $0.y, min($0.visibility ?? 1, $0.presence ?? 1)) }
        let j = joints(fromWorld: z3)
        return Joint.allCases.map { joint in
            let v = j[joint.rawValue]
            let weight = joint == .topHead || joint == .spine ? 0 : max(0, min(1, v.z))
            return (SIMD2(v.x, v.y), weight.isFinite ? weight : 0)
        }
    }

    /// The translation `t` minimising the weighted reprojection error of `points + t` against `image`, linearised:
    /// for each joint, `fx·tx − (u − cx)·tz = (u − cx)·Z − fx·X`, and the same in y. Falls back to the depth that
    /// gives the skeleton its image size, centred on the root's image point, when the system is degenerate or
    /// puts the root behind the camera.
    static func translation(
        _ points: [SIMD3<Double>], image: [(point: SIMD2<Double>, weight: Double)], intrinsics k: CameraIntrinsics
    ) -> SIMD3<Double> {
        var a = [[Double]](repeating: [0, 0, 0], count: 3), b = [0.0, 0.0, 0.0]
        func add(_ row: [Double], _ rhs: Double, _ w: Double) {
            for r in 0..<3 {
                for c in 0..<3 { a[r][c] += w * row[r] * row[c] }
                b[r] += w * row[r] * rhs
            }
        }
        for (p, q) in zip(points, image) where q.weight > 0 {
            let du = q.point.x - k.cx, dv = q.point.y - k.cy
            add([k.fx, 0, -du], du * p.z - k.fx * p.x, q.weight)
            add([0, k.fy, -dv], dv * p.z - k.fy * p.y, q.weight)
        }
        if let t = solve3(a, b), t.z > minimumDepth, t.x.isFinite, t.y.isFinite, t.z.isFinite { return t }
        // Weak perspective: the depth at which the skeleton's extent matches its image extent.
        let used = zip(points, image).filter { $0.1.weight > 0 }
        let root = image[Joint.root.rawValue].point
        func spread(_ values: [Double]) -> Double { (values.max() ?? 0) - (values.min() ?? 0) }
        let world = max(spread(used.map { $0.0.y }), spread(used.map { $0.0.x }))
        let pixels = max(spread(used.map { $0.1.point.y }), spread(used.map { $0.1.point.x }))
        let z = pixels > 1 && world > 0 ? max(minimumDepth, k.fy * world / pixels) : 3
        return SIMD3((root.x - k.cx) * z / k.fx, (root.y - k.cy) * z / k.fy, z)
    }

    /// Solves a 3×3 linear system by Cramer's rule; `nil` when it is (nearly) singular.
    static func solve3(_ a: [[Double]], _ b: [Double]) -> SIMD3<Double>? {
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let d = det(a)
        let scale = a.flatMap { $0 }.map(abs).max() ?? 0
        guard scale > 0, abs(d) > 1e-12 * scale * scale * scale else { return nil }
        var out = SIMD3<Double>()
        for c in 0..<3 {
            var m = a
            for r in 0..<3 { m[r][c] = b[r] }
            out[c] = det(m) / d
        }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Head orientation in radians, with Vision's conventions: in a frame with x to the image's right, y **up**
/// and z toward the viewer, each angle is a right-handed rotation, composed as
/// `R = Rz(roll) · Ry(yaw) · Rx(pitch)` (face frame → camera frame).
///
/// - `roll` (−π…π): positive turns the face counter-clockwise on screen.
/// - `yaw` (−π/2…π/2): positive turns the nose toward the image's right (the subject's own left).
/// - `pitch` (−π/2…π/2): positive nods the head down.
///
/// With this order an in-plane image rotation by α adds exactly α to `roll`, and a horizontal mirror negates
/// `roll` and `yaw` and keeps `pitch`.
public struct HeadPose: Sendable, Hashable {
    public var roll: Double
    public var yaw: Double
    public var pitch: Double

    public init(roll: Double, yaw: Double, pitch: Double) {
        self.roll = roll
        self.yaw = yaw
        self.pitch = pitch
    }

    /// How far the mouth-to-eyes direction of the mesh leans back from the face's vertical when the face looks
    /// straight at the camera (the mouth stands in front of the eyes). Removed from ``pitch``.
    static let neutralPitchOffset = 0.0

    /// The pose of a face mesh (468 or 478 landmarks in pixels, `z` in pixels with smaller = closer).
    ///
    /// The face's own axes are built from the 3-D landmarks: x from the mean of the subject's right-side
    /// points to the mean of their mirror points on the left side (35 symmetric pairs: eye corners and lids,
    /// brows, mouth corners, nose wings, face oval); y from the mouth corners to the eye corners, made
    /// orthogonal to x; z = x × y. The rotation taking those axes to the camera's is decomposed as above.
    /// Being built from mirror pairs, the estimate is exactly antisymmetric under a horizontal flip.
    public init(mesh landmarks: [Landmark]) {
        precondition(landmarks.count >= FaceMeshTopology.meshCount, "head pose needs the 468 mesh landmarks")
        func point(_ i: Int) -> SIMD3<Double> { SIMD3(landmarks[i].x, -landmarks[i].y, -landmarks[i].z) }
        var right = SIMD3<Double>(), left = SIMD3<Double>()
        for (r, l) in FaceMeshTopology.symmetricPairs {
            right += point(r)
            left += point(l)
        }
        let ex = Self.normalized(left - right)
        let eyes = (point(33) + point(133) + point(263) + point(362)) / 4
        let mouth = (point(61) + point(291)) / 2
        let up = eyes - mouth
        let ey = Self.normalized(up - (up * ex).sum() * ex)
        let ez = SIMD3(ex.y * ey.z - ex.z * ey.y, ex.z * ey.x - ex.x * ey.z, ex.x * ey.y - ex.y * ey.x)
        // R has columns ex, ey, ez. R = Rz(γ)Ry(β)Rx(α): R20 = −sin β, R21 = cos β sin α, R22 = cos β cos α,
        // R10 = sin γ cos β, R00 = cos γ cos β.
        let yaw = asin(max(-1, min(1, -ex.z)))
        let pitch = atan2(ey.z, ez.z) - Self.neutralPitchOffset
        let roll = atan2(ex.y, ex.x)
        self.init(roll: roll, yaw: yaw, pitch: pitch)
    }

    /// Roll and yaw from a face detection's keypoints (pixels; kp0 right eye, kp1 left eye, kp2 nose tip,
    /// kp4 right tragion, kp5 left tragion). Roll is the angle of the eye line; yaw comes from where the nose
    /// tip falls between the two tragions along the ear line: `asin(2t − 1)` with `t` = 0 at the right
    /// tragion and 1 at the left. Pitch is not estimated (0).
    public init(detectionKeypoints k: [SIMD2<Double>]) {
        precondition(k.count >= 6, "head pose needs the six face-detection keypoints")
        let eyes = k[1] - k[0]
        let roll = atan2(-eyes.y, eyes.x)
        let ears = k[5] - k[4]
        let length2 = (ears * ears).sum()
        let t = length2 > 0 ? ((k[2] - k[4]) * ears).sum() / length2 : 0.5
        self.init(roll: roll, yaw: asin(max(-1, min(1, 2 * t - 1))), pitch: 0)
    }

    private static func normalized(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let n = (v * v).sum().squareRoot()
        return n > 0 ? v / n : SIMD3(1, 0, 0)
    }
}

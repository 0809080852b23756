import Foundation
import PVImaging
import Testing

@testable import PVPerception

/// The geometry of ``BodyPose3D``: joints from world landmarks, scale to a height, placement in front of a camera.
@Suite struct BodyPose3DTests {
    /// A standing person's 33 world landmarks (metres, x right, y down, z away from the camera, hips at the origin):
    /// MediaPipe's topology with plausible proportions, arms slightly forward.
    static func world() -> [SIMD3<Double>] {
        var p = [SIMD3<Double>](repeating: .zero, count: 33)
        p[0] = [0, -0.62, -0.08]  // nose
        for (i, x) in [(1, 0.02), (2, 0.03), (3, 0.04), (4, -0.02), (5, -0.03), (6, -0.04)] { p[i] = [x, -0.66, -0.06] }
        p[7] = [0.07, -0.64, 0]; p[8] = [-0.07, -0.64, 0]  // ears
        p[9] = [0.025, -0.57, -0.07]; p[10] = [-0.025, -0.57, -0.07]  // mouth
        p[11] = [0.18, -0.48, 0]; p[12] = [-0.18, -0.48, 0]  // shoulders
        p[13] = [0.22, -0.22, -0.05]; p[14] = [-0.22, -0.22, -0.05]  // elbows
        p[15] = [0.24, 0.02, -0.12]; p[16] = [-0.24, 0.02, -0.12]  // wrists
        for i in 17...22 { p[i] = p[i % 2 == 1 ? 15 : 16] + [0, 0.05, 0] }
        p[23] = [0.1, 0, 0]; p[24] = [-0.1, 0, 0]  // hips
        p[25] = [0.11, 0.42, 0.01]; p[26] = [-0.11, 0.42, 0.01]  // knees
        p[27] = [0.12, 0.82, 0.03]; p[28] = [-0.12, 0.82, 0.03]  // ankles
        for i in 29...32 { p[i] = p[i % 2 == 1 ? 27 : 28] + [0, 0.05, -0.05] }
        return p
    }

    /// The person seen by `camera` with their hips at `t` (camera frame), optionally scaled. The world landmarks are
    /// as a camera looking straight at the person sees them, so in the camera's frame the skeleton is turned toward
    /// the ray through the joints' image centre (found by turning and projecting until the two agree).
    static func person(at t: SIMD3<Double>, camera k: CameraIntrinsics, scale: Double) -> PersonPose {
        let w = world()
        func project(_ points: [SIMD3<Double>]) -> [Landmark] {
            points.map { q in
                let c = q + t
                return Landmark(x: k.fx * c.x / c.z + k.cx, y: k.fy * c.y / c.z + k.cy, z: 0, visibility: 0.99, presence: 0.99)
            }
        }
        var image = project(w.map { $0 * scale })
        for _ in 0..<50 {
            image = project(BodyPose3D.facingRay(w.map { $0 * scale }, BodyPose3D.ray(through: BodyPose3D.joints(fromImage: image), intrinsics: k)))
        }
        return PersonPose(
            landmarks: image, worldLandmarks: w.map { Landmark(x: $0.x, y: $0.y, z: $0.z, visibility: 0.99, presence: 0.99) },
            auxiliaryLandmarks: [], roi: RotatedRect(centerX: 0, centerY: 0, width: 1, height: 1), detectionScore: 1,
            presence: 0.99, segmentation: nil)
    }

    @Test func scalesToTheHeightAndPlacesTheRootWhereItProjects() throws {
        let k = CameraIntrinsics(fx: 1200, fy: 1200, cx: 640, cy: 360)
        // First the scale the model's skeleton needs to be 1.8 m tall.
        let unit = try #require(BodyPose3D(person: Self.person(at: [0.3, 0.1, 4], camera: k, scale: 1), intrinsics: k))
        let s = unit.scale
        #expect(s > 1 && s < 1.5, "scale \(s)")
        // A person of that height at a known place: the solve finds the place (to a millimetre: the root, neck and head
        // centre are midpoints of image points, which perspective moves a little off the midpoints' projections).
        let t = SIMD3<Double>(0.3, 0.1, 4)
        let placed = try #require(BodyPose3D(person: Self.person(at: t, camera: k, scale: s), intrinsics: k))
        let root = placed.position(.root)
        #expect(((root - t) * (root - t)).sum().squareRoot() < 1e-3, "root \(root) against \(t)")
        #expect(abs(placed.height - 1.8) < 1e-12)
        // Every joint projects back onto its image point (within a fifth of a pixel).
        let image = BodyPose3D.joints(fromImage: Self.person(at: t, camera: k, scale: s).landmarks)
        for joint in BodyPose3D.Joint.allCases where image[joint.rawValue].weight > 0 {
            let d = placed.projection(joint) - image[joint.rawValue].point
            #expect((d * d).sum().squareRoot() < 0.2, "\(joint): \(d)")
        }
        // Joints keep the model's shape, turned toward the ray: the ankles are 0.82 m (× scale) from the hips.
        let ankle = placed.position(.leftAnkle) - placed.position(.root)
        #expect(abs((ankle * ankle).sum().squareRoot() - (0.12 * 0.12 + 0.82 * 0.82 + 0.03 * 0.03).squareRoot() * s) < 1e-9)
        // The head top is above the centre of the head, the spine between root and shoulders.
        #expect(placed.position(.topHead).y < placed.position(.centerHead).y)
        let spine = placed.position(.spine), mid = (placed.position(.root) + placed.position(.centerShoulder)) / 2
        #expect(((spine - mid) * (spine - mid)).sum() < 1e-18)
        // Another height scales the skeleton and moves it away in proportion.
        let tall = try #require(BodyPose3D(person: Self.person(at: t, camera: k, scale: s), intrinsics: k, height: 3.6))
        #expect(abs(tall.position(.root).z - 2 * t.z) < 2e-3, "\(tall.position(.root).z)")
    }

    /// A person off the optical axis is seen from the side: the skeleton is the model's turned by the ray's angle,
    /// about the axis perpendicular to the ray and the optical axis, and a person on the axis is not turned.
    @Test func turnsTheSkeletonTowardTheRayToThePerson() throws {
        let k = CameraIntrinsics(fx: 1000, fy: 1000, cx: 500, cy: 500)
        let s = try #require(BodyPose3D(person: Self.person(at: [0, 0, 4], camera: k, scale: 1), intrinsics: k)).scale
        let centred = try #require(BodyPose3D(person: Self.person(at: [0, 0, 4], camera: k, scale: s), intrinsics: k))
        let shoulders = centred.position(.leftShoulder) - centred.position(.rightShoulder)
        #expect(abs(shoulders.z) < 1e-9 && abs(shoulders.x - 0.36 * s) < 1e-9, "\(shoulders)")
        // Four metres away and four to the right, about 45° off the axis: the shoulder line (along x in the model)
        // turns with the ray through the joints' image centre, to stay square to it (the end on the image's right
        // nearer the camera), and the hips land where they are.
        let t = SIMD3<Double>(4, 0, 4)
        let person = Self.person(at: t, camera: k, scale: s)
        let side = try #require(BodyPose3D(person: person, intrinsics: k))
        let turned = side.position(.leftShoulder) - side.position(.rightShoulder)
        let ray = BodyPose3D.ray(through: BodyPose3D.joints(fromImage: person.landmarks), intrinsics: k)
        let expected = BodyPose3D.facingRay([[0.36 * s, 0, 0]], ray)[0]
        #expect(abs(ray.x / ray.z - 1) < 0.1, "ray \(ray)")
        #expect(((turned - expected) * (turned - expected)).sum().squareRoot() < 1e-9, "\(turned) against \(expected)")
        #expect(turned.z < -0.2 * s && turned.x > 0.2 * s, "\(turned)")
        let root = side.position(.root)
        #expect(((root - t) * (root - t)).sum().squareRoot() < 0.01, "root \(root)")
        // The turn keeps every length.
        let d = BodyPose3D.facingRay([[1, 2, 3]], [0.3, -0.2, 1])[0]
        #expect(abs((d * d).sum() - 14) < 1e-12)
    }

    @Test func degenerateInputs() {
        let k = CameraIntrinsics(fx: 1000, fy: 1000, cx: 500, cy: 500)
        var p = Self.person(at: [0, 0, 3], camera: k, scale: 1)
        #expect(BodyPose3D(person: p, intrinsics: CameraIntrinsics(fx: 0, fy: 1000, cx: 0, cy: 0)) == nil)
        #expect(BodyPose3D(person: p, intrinsics: k, height: -1) == nil)
        p.worldLandmarks = []
        #expect(BodyPose3D(person: p, intrinsics: k) == nil)
        // Nothing visible to place it by: the weak-perspective fallback still puts it in front of the camera.
        var hidden = Self.person(at: [0, 0, 3], camera: k, scale: 1)
        for i in hidden.landmarks.indices { hidden.landmarks[i].visibility = 0 }
        let placed = BodyPose3D(person: hidden, intrinsics: k)
        #expect((placed?.position(.root).z ?? 0) >= BodyPose3D.minimumDepth)
        // A 26 mm-equivalent lens: the image's diagonal spans a 36 × 24 mm frame's (43.27 mm).
        let assumed = CameraIntrinsics.assumed(width: 1920, height: 1080)
        #expect(abs(assumed.fx - (1920.0 * 1920 + 1080 * 1080).squareRoot() * 26 / (36.0 * 36 + 24 * 24).squareRoot()) < 1e-9)
        #expect(assumed.cx == 960 && assumed.cy == 540 && assumed.fy == assumed.fx)
    }
}

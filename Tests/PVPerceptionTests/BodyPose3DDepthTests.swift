import Foundation
import Testing

@testable import PVPerception

/// Measuring a 3-D skeleton with depth, in a synthetic scene whose truth is known: a person of a chosen height,
/// at a chosen place, seen by a chosen camera, with the depth map that scene gives.
@Suite struct BodyPose3DDepthTests {
    static let camera = CameraIntrinsics(fx: 1100, fy: 1100, cx: 640, cy: 360)
    static let imageWidth = 1280, imageHeight = 720

    /// The height of the test person's skeleton (`BodyPose3DTests.world()`, metres) by the measure Vision's height
    /// uses, computed here from the points themselves: ankle height 0.07 + the mean leg (hip–knee–ankle) + hips'
    /// midpoint to shoulders' midpoint + shoulders' midpoint to the head top, which lies 1.6 eye-to-mouth distances
    /// above the ears' midpoint.
    static func worldHeight() -> Double {
        let p = BodyPose3DTests.world()
        func d(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        let legs = (d(p[23], p[25]) + d(p[25], p[27]) + d(p[24], p[26]) + d(p[26], p[28])) / 2
        let root = (p[23] + p[24]) / 2, shoulders = (p[11] + p[12]) / 2
        let ears: SIMD3<Double> = (p[7] + p[8]) / 2, eyes: SIMD3<Double> = (p[2] + p[5]) / 2
        let mouth: SIMD3<Double> = (p[9] + p[10]) / 2
        let top: SIMD3<Double> = ears + 1.6 * (eyes - mouth)
        let torso = d(root, shoulders), head = d(shoulders, top)
        return 0.07 + legs + torso + head
    }

    /// The depth map of the scene (a quarter of the image's resolution): each sample within `radius` image pixels of
    /// a projected landmark holds that landmark's true depth (the nearest one's), the rest `background` metres.
    static func depthMap(
        of person: PersonPose, world: [SIMD3<Double>], scale: Double, at t: SIMD3<Double>, background: Float = 9,
        radius: Double = 14, width: Int = 320, height: Int = 180
    ) -> DepthMap {
        let depths = world.map { ($0 * scale + t).z }
        var values = [Float](repeating: background, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let u = (Double(x) + 0.5) * Double(imageWidth) / Double(width)
                let v = (Double(y) + 0.5) * Double(imageHeight) / Double(height)
                var best = radius * radius, depth: Double?
                for (i, l) in person.landmarks.enumerated() {
                    let d2 = (l.x - u) * (l.x - u) + (l.y - v) * (l.y - v)
                    if d2 < best { best = d2; depth = depths[i] }
                }
                if let depth { values[y * width + x] = Float(depth) }
            }
        }
        return DepthMap(width: width, height: height, values: values)!
    }

    @Test("a person of known height 3.4 m away is measured within 5 %", arguments: [1.62, 1.95])
    func measuresHeightAndDistance(trueHeight: Double) throws {
        let scale = trueHeight / Self.worldHeight()
        let t = SIMD3<Double>(-0.25, 0.15, 3.4)
        let person = BodyPose3DTests.person(at: t, camera: Self.camera, scale: scale)
        let depth = Self.depthMap(of: person, world: BodyPose3DTests.world(), scale: scale, at: t)
        let reference = try #require(BodyPose3D(person: person, intrinsics: Self.camera))
        #expect(reference.height == 1.8)
        let measured = try #require(
            reference.measured(person: person, depth: depth, origin: (0, 0), imageWidth: Self.imageWidth, imageHeight: Self.imageHeight))
        #expect(abs(measured.height - trueHeight) <= 0.05 * trueHeight, "height \(measured.height) against \(trueHeight)")
        let root = measured.position(.root)
        #expect(abs(root.z - t.z) <= 0.05 * t.z, "distance \(root.z) against \(t.z)")
        // Scaling about the camera keeps every joint on its ray: the projections do not move.
        for joint in BodyPose3D.Joint.allCases {
            let d = measured.projection(joint) - reference.projection(joint)
            #expect((d * d).sum().squareRoot() < 1e-6, "\(joint)")
        }
    }

    @Test func holesMismatchesAndImplausibleDepthFallBack() throws {
        let scale = 1.7 / Self.worldHeight(), t = SIMD3<Double>(0, 0.1, 2.8)
        let person = BodyPose3DTests.person(at: t, camera: Self.camera, scale: scale)
        let reference = try #require(BodyPose3D(person: person, intrinsics: Self.camera))
        let good = Self.depthMap(of: person, world: BodyPose3DTests.world(), scale: scale, at: t)
        func measure(_ map: DepthMap, width: Int = Self.imageWidth, height: Int = Self.imageHeight) -> BodyPose3D? {
            reference.measured(person: person, depth: map, origin: (0, 0), imageWidth: width, imageHeight: height)
        }
        #expect(measure(good) != nil)
        for hole: Float in [.nan, 0, -1, .infinity] {
            let map = DepthMap(width: good.width, height: good.height, values: [Float](repeating: hole, count: good.values.count))!
            #expect(measure(map) == nil, "all \(hole)")
        }
        // Holes over part of the body: the joints left still measure it.
        var patchy = good.values
        for i in patchy.indices where i % good.width < good.width / 2 { patchy[i] = .nan }
        let half = try #require(measure(DepthMap(width: good.width, height: good.height, values: patchy)!))
        #expect(abs(half.height - 1.7) <= 0.05 * 1.7)
        // A map of another aspect ratio does not describe this image.
        #expect(measure(good, width: 1280, height: 960) == nil)
        // Depth that would make a 9-m giant is not a person.
        let far = DepthMap(width: good.width, height: good.height, values: good.values.map { $0 * 6 })!
        #expect(measure(far) == nil)
        #expect(DepthMap(width: 2, height: 2, values: [1, 2, 3]) == nil)
    }
}

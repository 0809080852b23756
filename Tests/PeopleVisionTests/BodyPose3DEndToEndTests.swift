import Foundation
import PeopleVision
import PVImaging
import PVTestSupport
import Testing

/// The 3-D body-pose request and its observation through the public API.
@Suite struct BodyPose3DEndToEndTests {
    typealias Joint = VNHumanBodyPose3DObservation.JointName

    static func perform(_ url: URL, options: [VNImageOption: Any] = [:]) throws -> VNHumanBodyPose3DObservation? {
        let request = VNDetectHumanBodyPose3DRequest()
        try VNImageRequestHandler(url: url, options: options).perform([request])
        #expect((request.results?.count ?? 0) <= 1)
        return request.results?.first
    }

    static func translation(_ m: simd_float4x4) -> SIMD3<Float> { SIMD3(m.columns.3.x, m.columns.3.y, m.columns.3.z) }

    @Test func theAstronautIn3D() throws {
        let url = try TestFiles.installed("astronaut.png")
        let body = try #require(try Self.perform(url))
        let request = VNDetectHumanBodyPose3DRequest()
        #expect(body.availableJointNames == (try request.supportedJointNames))
        #expect(body.availableJointNames.count == 17 && body.availableJointNames.first == .topHead)
        #expect(body.availableJointsGroupNames.last == .all)
        #expect(try body.recognizedPoints(.all).count == 17 && body.recognizedPoints(.leftArm).count == 3)
        #expect(body.bodyHeight == 1.8 && body.heightEstimation == .reference)

        // Model space: root at the origin; every joint is its parent's position plus its local position.
        #expect(Self.translation(try body.recognizedPoint(.root).position) == .zero)
        for joint in body.availableJointNames {
            let point = try body.recognizedPoint(joint)
            let parent = try #require(body.parentJointName(joint))
            #expect(point.parentJoint == parent)
            let sum = Self.translation(try body.recognizedPoint(parent).position) + Self.translation(point.localPosition)
            let d = sum - Self.translation(point.position)
            #expect((d * d).sum() < 1e-10, "\(joint)")
            // Camera space is model space moved by the root's camera position (no rotation).
            let camera = Self.translation(try body.cameraRelativePosition(joint))
            let e = camera - Self.translation(try body.cameraRelativePosition(.root)) - Self.translation(point.position)
            #expect((e * e).sum() < 1e-8, "\(joint)")
        }
        #expect(body.parentJointName(.root) == .root && body.parentJointName(.leftWrist) == .leftElbow)

        // In front of the camera (which looks along −z), at a plausible distance; the camera, seen from the root, is
        // the opposite translation.
        let root = Self.translation(try body.cameraRelativePosition(.root))
        #expect(root.z < -0.3 && root.z > -5, "root \(root)")
        #expect(Self.translation(body.cameraOriginMatrix) == -root)
        // y up: the head is above the root; she faces the camera, so her left shoulder is on the image's right.
        #expect(Self.translation(try body.recognizedPoint(.topHead).position).y > 0.4)
        #expect(Self.translation(try body.recognizedPoint(.leftShoulder).position).x > 0)

        // Projected joints fall on the 2-D body pose's (within 4 % of the image) where she is in the picture (the
        // image ends at her waist: hips and right wrist are guesses in both).
        let pose2D = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(url: url).perform([pose2D])
        let flat = try #require(pose2D.results?.first)
        for (j3, j2) in [(Joint.leftShoulder, VNHumanBodyPoseObservation.JointName.leftShoulder), (.rightShoulder, .rightShoulder),
                         (.leftElbow, .leftElbow), (.centerShoulder, .neck)] {
            let a = try body.pointInImage(j3), b = try flat.recognizedPoint(j2)
            #expect(abs(a.x - b.x) < 0.04 && abs(a.y - b.y) < 0.04, "\(j3): \(a.location) against \(b.location)")
        }
    }

    @Test func intrinsicsSetTheDistance() throws {
        let url = try TestFiles.installed("astronaut.png")
        func k(_ f: Float) -> simd_float3x3 { simd_float3x3(SIMD3(f, 0, 0), SIMD3(0, f, 0), SIMD3(256, 256, 1)) }
        let near = try #require(try Self.perform(url, options: [.cameraIntrinsics: k(500)]))
        let far = try #require(try Self.perform(url, options: [.cameraIntrinsics: k(1000)]))
        // A longer lens puts her farther away: twice the focal length, about twice the distance (exactly twice only
        // for a flat body; hers has depth, seen from close by).
        let zNear = try near.cameraRelativePosition(.root).columns.3.z, zFar = try far.cameraRelativePosition(.root).columns.3.z
        #expect(zFar / zNear > 1.8 && zFar / zNear < 2.3, "\(zNear) \(zFar)")
        // Either way the skeleton projects onto her: the shoulders stay where they are in the image.
        for body in [near, far] {
            let l = try body.pointInImage(.leftShoulder), r = try body.pointInImage(.rightShoulder)
            let ln = try near.pointInImage(.leftShoulder), rn = try near.pointInImage(.rightShoulder)
            #expect(abs(l.x - ln.x) < 0.02 && abs(r.y - rn.y) < 0.02)
        }
        // The same matrix as Data (three 16-byte columns, as Apple's option carries it).
        var bytes = Data()
        for column in [SIMD4<Float>(1000, 0, 0, 0), SIMD4(0, 1000, 0, 0), SIMD4(256, 256, 1, 0)] {
            withUnsafeBytes(of: column) { bytes.append(contentsOf: $0) }
        }
        let fromData = try #require(try Self.perform(url, options: [.cameraIntrinsics: bytes]))
        #expect(try fromData.cameraRelativePosition(.root) == far.cameraRelativePosition(.root))
        // Not a camera: an error naming the option.
        do {
            _ = try Self.perform(url, options: [.cameraIntrinsics: k(0)])
            Issue.record("zero focal length accepted")
        } catch let e as NSError {
            #expect(e.domain == VNErrorDomain && e.code == VNErrorCode.invalidOption.rawValue)
        }
    }

    /// With a region of interest, points are normalized to the region, and the camera (whose principal point stays
    /// where it is in the image) sees the person where it did (within what the landmark model's run on the cropped
    /// picture changes).
    @Test func regionOfInterest() throws {
        let url = try TestFiles.installed("astronaut.png")
        let whole = try #require(try Self.perform(url))
        let request = VNDetectHumanBodyPose3DRequest()
        // Lower-left origin: the image without its left fifth (the camera's principal point is then left of the
        // region's centre).
        request.regionOfInterest = CGRect(x: 0.2, y: 0, width: 0.8, height: 1)
        try VNImageRequestHandler(url: url).perform([request])
        let part = try #require(request.results?.first)
        let a = try part.pointInImage(.leftShoulder), b = try whole.pointInImage(.leftShoulder)
        #expect(abs(0.2 + a.x * 0.8 - b.x) < 0.04 && abs(a.y - b.y) < 0.04, "\(a.location) in the region, \(b.location) in the image")
        let za = try part.cameraRelativePosition(.root).columns.3, zb = try whole.cameraRelativePosition(.root).columns.3
        #expect(abs(za.x - zb.x) < 0.1 && abs(za.z - zb.z) < 0.15 * abs(zb.z), "\(za) against \(zb)")
    }

    /// A photo's EXIF 35 mm-equivalent focal length is its camera when no intrinsics are given: a 77 mm (telephoto)
    /// shot puts her about three times as far as the 26 mm default.
    @Test func exifFocalLengthSetsTheCamera() throws {
        let astronaut = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels
        let jpeg = try ImageEncoder.encode(astronaut, as: .jpeg(quality: 95))
        let plain = FileManager.default.temporaryDirectory.appendingPathComponent("pv-exif-\(UUID().uuidString)-26.jpg")
        let tele = FileManager.default.temporaryDirectory.appendingPathComponent("pv-exif-\(UUID().uuidString)-77.jpg")
        defer { for f in [plain, tele] { try? FileManager.default.removeItem(at: f) } }
        try jpeg.write(to: plain)
        try EXIFBlocks.jpeg(jpeg, withEXIF: EXIFBlocks.focalLength35mm(77)).write(to: tele)
        let wide = try #require(try Self.perform(plain)), long = try #require(try Self.perform(tele))
        let ratio = try long.cameraRelativePosition(.root).columns.3.z / wide.cameraRelativePosition(.root).columns.3.z
        #expect(ratio > 2.6 && ratio < 3.4, "ratio \(ratio) for 77 / 26 = 2.96")
        // Given intrinsics win over EXIF.
        let k = simd_float3x3(SIMD3(500, 0, 0), SIMD3(0, 500, 0), SIMD3(256, 256, 1))
        let given = try #require(try Self.perform(tele, options: [.cameraIntrinsics: k]))
        let direct = try #require(try Self.perform(plain, options: [.cameraIntrinsics: k]))
        #expect(abs(try given.cameraRelativePosition(.root).columns.3.z - direct.cameraRelativePosition(.root).columns.3.z) < 0.05)
    }

    @Test func nobodyNoResult() throws {
        #expect(try Self.perform(try TestFiles.installed("chelsea.png")) == nil)
    }

    @Test func matrices() {
        var m = matrix_identity_float4x4
        m.columns.3 = SIMD4(1, 2, 3, 1)
        m.columns.0 = SIMD4(0, 1, 0, 0)
        m.columns.1 = SIMD4(-1, 0, 0, 0)
        let product = m * m.inverse
        for c in 0..<4 { for r in 0..<4 { #expect(abs(product[c, r] - (c == r ? 1 : 0)) < 1e-6) } }
        #expect(m * SIMD4<Float>(1, 0, 0, 1) == SIMD4(1, 3, 3, 1))
        #expect(m.transpose.transpose == m)
    }
}

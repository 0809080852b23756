// 3D body-pose patterns as motion-capture and fitness apps write them (iOS 17): joint positions as simd matrices,
// limb lengths through the parent joints, the body height, and the joints projected back onto the picture.
import CoreImage
import Testing
import Vision
import simd

@Suite struct Pose3DPatterns {
    /// A joint's position (the matrix's translation column), in metres.
    static func position(_ matrix: simd_float4x4) -> simd_float3 { simd_make_float3(matrix.columns.3) }

    static func length(_ v: simd_float3) -> Float { simd_length(v) }

    /// The angle at `joint` (degrees) between its parent and its child, from their model-space positions.
    static func angle(
        at joint: VNHumanBodyPose3DObservation.JointName, child: VNHumanBodyPose3DObservation.JointName,
        in body: VNHumanBodyPose3DObservation
    ) throws -> Float? {
        guard let parent = body.parentJointName(joint) else { return nil }
        let p = position(try body.recognizedPoint(parent).position), j = position(try body.recognizedPoint(joint).position)
        let c = position(try body.recognizedPoint(child).position)
        let cosine = simd_dot(simd_normalize(p - j), simd_normalize(c - j))
        return acos(simd_clamp(cosine, -1, 1)) * 180 / .pi
    }

    static func skeleton(of image: CIImage) throws -> VNHumanBodyPose3DObservation? {
        let request = VNDetectHumanBodyPose3DRequest()
        try VNImageRequestHandler(ciImage: image, options: [:]).perform([request])
        return request.results?.first
    }

    @Test func heightLimbsAndAngles() throws {
        let body = try #require(try Self.skeleton(of: try Frames.picture("astronaut.png")))
        // Without depth, Vision scales the skeleton to its reference height.
        #expect(body.heightEstimation == .reference && abs(body.bodyHeight - 1.8) < 1e-4)
        // A joint's local position is its offset from its parent: the same limb length both ways.
        for joint in body.availableJointNames where joint != .root {
            let point = try body.recognizedPoint(joint)
            let parent = try body.recognizedPoint(point.parentJoint)
            let limb = simd_distance(Self.position(point.position), Self.position(parent.position))
            #expect(abs(limb - Self.length(Self.position(point.localPosition))) < 0.01, "\(joint)")
            #expect(limb < 0.8, "a limb shorter than 80 cm: \(joint)")
        }
        // Up is y: the head above the shoulders above the hips.
        let head = Self.position(try body.recognizedPoint(.topHead).position).y
        let shoulders = Self.position(try body.recognizedPoint(.centerShoulder).position).y
        let hips = Self.position(try body.recognizedPoint(.leftHip).position).y
        #expect(head > shoulders && shoulders > hips)
        // Elbows bend between 0 and 180 degrees, and the upright neck is nearly straight.
        let elbow = try #require(try Self.angle(at: .leftElbow, child: .leftWrist, in: body))
        #expect(elbow > 0 && elbow <= 180)
        let neck = try #require(try Self.angle(at: .centerShoulder, child: .centerHead, in: body))
        #expect(neck > 120, "\(neck)")
    }

    @Test func jointsProjectedOntoThePicture() throws {
        let photo = try Frames.picture("astronaut.png")
        let faces = VNDetectFaceRectanglesRequest(), pose = VNDetectHumanBodyPose3DRequest()
        try VNImageRequestHandler(ciImage: photo).perform([faces, pose])
        let face = try #require(faces.results?.first), body = try #require(pose.results?.first)
        // The head's centre lands on her face; the projection is normalized with a lower-left origin.
        let head = try body.pointInImage(.centerHead)
        #expect(face.boundingBox.insetBy(dx: -0.05, dy: -0.05).contains(head.location), "\(head) \(face.boundingBox)")
        #expect(try body.pointInImage(.topHead).y > head.y)
        // The camera is in front of her, a plausible portrait distance away.
        let root = Self.position(try body.cameraRelativePosition(.root))
        #expect(Self.length(root) > 0.5 && Self.length(root) < 10, "\(root)")
        #expect(body.cameraOriginMatrix.columns.3.w == 1)

        // In a mirror the projected head moves to the other side of the picture.
        let mirrored = try #require(try Self.skeleton(of: photo.oriented(.upMirrored)))
        let mirroredHead = try mirrored.pointInImage(.centerHead)
        #expect(abs(mirroredHead.x - (1 - head.x)) < 0.05 && abs(mirroredHead.y - head.y) < 0.05)
    }

    @Test func jointGroupsForARigging() throws {
        // A 3D avatar app reads joints group by group and builds its rig from the parent of each.
        let body = try #require(try Self.skeleton(of: try Frames.picture("astronaut.png")))
        var seen: Set<VNHumanBodyPose3DObservation.JointName> = []
        for group in body.availableJointsGroupNames where group != .all {
            for (name, point) in try body.recognizedPoints(group) {
                seen.insert(name)
                #expect(point.identifier == name.rawValue)
            }
        }
        #expect(seen.count == 17 && body.availableJointNames.count == 17)
        // Every joint's chain of parents reaches the root: wrist, elbow, shoulder, centre of the shoulders, spine.
        var chain: [VNHumanBodyPose3DObservation.JointName] = [.leftWrist]
        while let last = chain.last, last != .root, chain.count < 10, let parent = body.parentJointName(last) { chain.append(parent) }
        #expect(chain == [.leftWrist, .leftElbow, .leftShoulder, .centerShoulder, .spine, .root])
        let all = try body.recognizedPoints(.all)
        #expect(all.count == 17 && matrix_identity_float4x4 * all[.root]!.position == all[.root]!.position)
    }
}

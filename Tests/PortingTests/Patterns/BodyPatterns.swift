// Body-pose patterns as fitness and motion apps write them: joint angles from VNVector and atan2, a repetition counter
// over camera frames, skeleton lines, every joint by group, the Core ML keypoint array, full-body boxes, and a
// picture with nobody in it.
import CoreImage
import CoreML
import CoreVideo
import Testing
import Vision

@Suite struct BodyPatterns {
    /// The angle at `joint` (degrees, 0…180) between the limbs to `from` and `to`, from Vision's vectors.
    static func angle(
        at joint: VNHumanBodyPoseObservation.JointName, from: VNHumanBodyPoseObservation.JointName,
        to: VNHumanBodyPoseObservation.JointName, in body: VNHumanBodyPoseObservation, minimumConfidence: Float = 0.3
    ) throws -> Double? {
        let a = try body.recognizedPoint(from), b = try body.recognizedPoint(joint), c = try body.recognizedPoint(to)
        guard [a, b, c].allSatisfy({ $0.confidence >= minimumConfidence }) else { return nil }
        let upper = VNVector(vectorHead: a, tail: b), lower = VNVector(vectorHead: c, tail: b)
        var degrees = abs(atan2(lower.y, lower.x) - atan2(upper.y, upper.x)) * 180 / .pi
        if degrees > 180 { degrees = 360 - degrees }
        return degrees
    }

    static func bodies(in image: CIImage) throws -> [VNHumanBodyPoseObservation] {
        let request = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(ciImage: image, options: [:]).perform([request])
        return request.results ?? []
    }

    @Test func elbowAnglesFromVectors() throws {
        let photo = try Frames.picture("camera.png")
        let body = try #require(try Self.bodies(in: photo).first)
        let mirrored = try #require(try Self.bodies(in: photo.oriented(.upMirrored)).first)
        let right = try Self.angle(at: .rightElbow, from: .rightShoulder, to: .rightWrist, in: body)
        let left = try Self.angle(at: .leftElbow, from: .leftShoulder, to: .leftWrist, in: body)
        #expect(right != nil || left != nil, "an arm is seen")
        // He holds the camera to his eye: a bent arm. The dot product agrees with atan2.
        for case let angle? in [right, left] { #expect(angle > 20 && angle < 160, "\(angle)") }
        if let right {
            let shoulder = try body.recognizedPoint(.rightShoulder), elbow = try body.recognizedPoint(.rightElbow)
            let wrist = try body.recognizedPoint(.rightWrist)
            let u = VNVector.unitVector(for: VNVector(vectorHead: shoulder, tail: elbow))
            let v = VNVector.unitVector(for: VNVector(vectorHead: wrist, tail: elbow))
            #expect(abs(acos(VNVector.dotProduct(of: u, vector: v)) * 180 / .pi - right) < 0.5)
        }
        // In a mirror his right arm looks like a left arm, bent as much.
        if let right, let mirroredLeft = try Self.angle(at: .leftElbow, from: .leftShoulder, to: .leftWrist, in: mirrored) {
            #expect(abs(right - mirroredLeft) < 15, "\(right) vs \(mirroredLeft)")
        }
    }

    /// Counts down-and-up repetitions from the height of the shoulders across frames (hysteresis between two levels
    /// of the frame's height), as squat and jumping-jack counters do.
    final class RepetitionCounter {
        private(set) var count = 0
        private var isDown = false
        private var standingHeight: Double?

        func add(_ body: VNHumanBodyPoseObservation) throws {
            let left = try body.recognizedPoint(.leftShoulder), right = try body.recognizedPoint(.rightShoulder)
            let seen = [left, right].filter { $0.confidence > 0.2 }
            guard !seen.isEmpty else { return }
            let height = seen.map(\.y).reduce(0, +) / Double(seen.count)
            let standing = max(standingHeight ?? height, height)
            standingHeight = standing
            if !isDown && height < standing - 0.2 { isDown = true }
            if isDown && height > standing - 0.08 {
                isDown = false
                count += 1
            }
        }
    }

    @Test func squatCounterOverCameraFrames() throws {
        // Frames of a person going down and up twice: the picture at half size, on a grey frame, low or high.
        let person = try Frames.picture("camera.png").transformed(by: CGAffineTransform(scaleX: 0.5, y: 0.5))
        let backdrop = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 512, height: 512))
        let heights: [CGFloat] = [256, 200, 40, 0, 60, 256, 230, 20, 0, 256]
        let sequence = VNSequenceRequestHandler()
        let counter = RepetitionCounter()
        var framesWithBody = 0
        for y in heights {
            let frame = try Frames.pixelBuffer(person.transformed(by: CGAffineTransform(translationX: 128, y: y)).composited(over: backdrop))
            let request = VNDetectHumanBodyPoseRequest()
            try sequence.perform([request], on: frame, orientation: .up)
            if let body = request.results?.first {
                framesWithBody += 1
                try counter.add(body)
            }
        }
        #expect(framesWithBody == heights.count)
        #expect(counter.count == 2)
    }

    /// The bones an app draws, as pairs of joints, in image pixels with a top-left origin.
    static let bones: [(VNHumanBodyPoseObservation.JointName, VNHumanBodyPoseObservation.JointName)] = [
        (.nose, .neck), (.neck, .leftShoulder), (.neck, .rightShoulder), (.leftShoulder, .leftElbow),
        (.leftElbow, .leftWrist), (.rightShoulder, .rightElbow), (.rightElbow, .rightWrist), (.neck, .root),
        (.root, .leftHip), (.root, .rightHip), (.leftHip, .leftKnee), (.leftKnee, .leftAnkle), (.rightHip, .rightKnee),
        (.rightKnee, .rightAnkle), (.nose, .leftEye), (.nose, .rightEye), (.leftEye, .leftEar), (.rightEye, .rightEar),
    ]

    static func skeletonLines(_ body: VNHumanBodyPoseObservation, width: Int, height: Int) throws -> [(CGPoint, CGPoint)] {
        let points = try body.recognizedPoints(.all).filter { $0.value.confidence > 0.1 }
        return bones.compactMap { from, to in
            guard let a = points[from], let b = points[to] else { return nil }
            func pixel(_ p: VNRecognizedPoint) -> CGPoint {
                let q = VNImagePointForNormalizedPoint(p.location, width, height)
                return CGPoint(x: q.x, y: CGFloat(height) - q.y)
            }
            return (pixel(a), pixel(b))
        }
    }

    @Test func skeletonLinesForAnOverlay() throws {
        let body = try #require(try Self.bodies(in: try Frames.picture("astronaut.png")).first)
        let lines = try Self.skeletonLines(body, width: 512, height: 512)
        #expect(lines.count >= 6, "head and shoulders at least")
        #expect(lines.allSatisfy { [$0.0, $0.1].allSatisfy { CGRect(x: -1, y: -1, width: 514, height: 514).contains($0) } })
        // Vision's lower-left origin: the nose is above (larger y than) the shoulders.
        let nose = try body.recognizedPoint(.nose), shoulders = try body.recognizedPoints(.torso)
        #expect(nose.confidence > 0.5)
        for name in [VNHumanBodyPoseObservation.JointName.leftShoulder, .rightShoulder] {
            let shoulder = try #require(shoulders[name])
            #expect(shoulder.confidence < 0.3 || shoulder.y < nose.y, "\(name)")
        }
    }

    @Test func everyJointOfEveryGroup() throws {
        let request = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(url: try Samples.image("camera.png")).perform([request])
        let body = try #require(request.results?.first)
        let supported = Set(try request.supportedJointNames)
        var confident: [VNHumanBodyPoseObservation.JointName: CGPoint] = [:]
        for (name, point) in try body.recognizedPoints(.all) where point.confidence > 0.3 {
            #expect(supported.contains(name))
            #expect((0...1).contains(point.location.x) && (0...1).contains(point.location.y))
            confident[name] = VNImagePointForNormalizedPoint(point.location, 512, 512)
        }
        #expect(confident.count >= 8)
        // The groups partition the joints the same observation reports for `.all`.
        var grouped = 0
        for group in body.availableJointsGroupNames where group != .all { grouped += try body.recognizedPoints(group).count }
        #expect(grouped >= body.availableJointNames.count - 1)
        // His face is above his hips.
        if let nose = confident[.nose], let hip = confident[.leftHip] ?? confident[.rightHip] { #expect(nose.y > hip.y) }
    }

    @Test func keypointsForAnActionClassifier() throws {
        let body = try #require(try Self.bodies(in: try Frames.picture("astronaut.png")).first)
        let keypoints = try body.keypointsMultiArray()
        // Create ML's action classifiers take 3 × 18 values a frame: x, y and confidence of each joint.
        #expect(keypoints.shape.map(\.intValue) == [1, 3, 18])
        let nose = try body.recognizedPoint(.nose)
        var matched = false
        for j in 0..<18 where keypoints[[0, 0, j] as [NSNumber]].doubleValue == nose.x {
            matched = keypoints[[0, 1, j] as [NSNumber]].doubleValue == nose.y
                && keypoints[[0, 2, j] as [NSNumber]].floatValue == nose.confidence
        }
        #expect(matched, "the nose is one of the columns")
    }

    /// The window an action classifier predicts on: the latest frames' keypoints stacked on the first axis, padded
    /// with zeros at the front to the model's window length.
    static func predictionWindow(_ frames: [MLMultiArray], length: Int) throws -> MLMultiArray {
        let stacked = MLMultiArray(concatenating: frames.suffix(length), axis: 0, dataType: .float32)
        guard frames.count < length else { return stacked }
        let padding = try MLMultiArray(shape: [NSNumber(value: length - frames.count), 3, 18], dataType: .float32)
        for index in 0..<padding.count { padding[index] = 0 }
        return MLMultiArray(concatenating: [padding, stacked], axis: 0, dataType: .float32)
    }

    @Test func actionClassifierWindowOverFrames() throws {
        let person = try Frames.picture("astronaut.png")
        let sequence = VNSequenceRequestHandler()
        var keypoints: [MLMultiArray] = []
        for step in 0..<4 {
            let frame = try Frames.pixelBuffer(person.transformed(by: CGAffineTransform(translationX: CGFloat(4 * step), y: 0))
                .cropped(to: CGRect(x: 0, y: 0, width: 512, height: 512)))
            let request = VNDetectHumanBodyPoseRequest()
            try sequence.perform([request], on: frame)
            keypoints.append(try #require(request.results?.first).keypointsMultiArray())
        }
        let window = try Self.predictionWindow(keypoints, length: 60)
        // Create ML's action classifiers take 60 × 3 × 18.
        #expect(window.shape.map(\.intValue) == [60, 3, 18] && window.dataType == .float32)
        // Padding first, then the frames in order: the last frame's values are the last rows.
        #expect(window[[0, 2, 0] as [NSNumber]].floatValue == 0)
        let last = try #require(keypoints.last)
        for j in 0..<18 {
            #expect(abs(window[[59, 0, j] as [NSNumber]].doubleValue - last[[0, 0, j] as [NSNumber]].doubleValue) < 1e-6)
        }
    }

    @Test func fullBodyRectanglesHoldTheJoints() throws {
        let url = try Samples.image("camera.png")
        let people = VNDetectHumanRectanglesRequest()
        people.upperBodyOnly = false
        let pose = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(url: url).perform([people, pose])
        let person = try #require(people.results?.first)
        #expect(!person.upperBodyOnly && person.confidence > 0.5)
        let body = try #require(pose.results?.first)
        for (name, point) in try body.recognizedPoints(.all) where point.confidence > 0.5 {
            #expect(person.boundingBox.insetBy(dx: -0.03, dy: -0.03).contains(point.location), "\(name)")
        }
    }

    @Test func nobodyInACatPicture() throws {
        let url = try Samples.image("chelsea.png")
        let pose = VNDetectHumanBodyPoseRequest(), people = VNDetectHumanRectanglesRequest()
        let hands = VNDetectHumanHandPoseRequest(), faces = VNDetectFaceRectanglesRequest()
        let segmentation = VNGeneratePersonSegmentationRequest()
        segmentation.qualityLevel = .balanced
        try VNImageRequestHandler(url: url).perform([pose, people, hands, faces, segmentation])
        #expect(pose.results?.isEmpty ?? true)
        #expect(people.results?.isEmpty ?? true)
        #expect(hands.results?.isEmpty ?? true)
        #expect(faces.results?.isEmpty ?? true)
        let mask = try #require(segmentation.results?.first?.pixelBuffer)
        #expect(try Frames.mean(of: mask, in: CGRect(x: 0, y: 0, width: 1, height: 1)) < 0.02)
    }
}

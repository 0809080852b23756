// Hand-pose patterns as gesture and drawing apps write them: a pinch from the thumb and index tips, a gesture from the
// fingers held out, chirality, and a fingertip followed in view coordinates.
import CoreImage
import Testing
import Vision

@Suite struct HandPatterns {
    typealias Joint = VNHumanHandPoseObservation.JointName

    /// The gloved hand on the camera, cropped from the sample as an app crops a frame to the area it watches (the crop
    /// of the `camera-glove` reference case: 160 px from (208, 182), top-left origin).
    static func handPicture() throws -> CIImage {
        let crop = CGRect(x: 208, y: 512 - 182 - 160, width: 160, height: 160)
        return try Frames.picture("camera.png").cropped(to: crop)
            .transformed(by: CGAffineTransform(translationX: -crop.minX, y: -crop.minY))
    }

    static func hands(in image: CIImage, maximum: Int = 2) throws -> [VNHumanHandPoseObservation] {
        let request = VNDetectHumanHandPoseRequest()
        request.maximumHandCount = maximum
        try VNImageRequestHandler(ciImage: image, orientation: .up, options: [:]).perform([request])
        return request.results ?? []
    }

    /// The joints an app keeps: confident ones, as points.
    static func joints(of hand: VNHumanHandPoseObservation, minimumConfidence: Float = 0.3) throws -> [Joint: CGPoint] {
        try hand.recognizedPoints(.all).filter { $0.value.confidence >= minimumConfidence }.mapValues(\.location)
    }

    static func distance(_ a: CGPoint, _ b: CGPoint) -> CGFloat { hypot(a.x - b.x, a.y - b.y) }

    /// A pinch: the thumb and index tips closer than a third of the palm's length (wrist to middle knuckle); nil when
    /// a joint is missing.
    static func isPinching(_ joints: [Joint: CGPoint]) -> Bool? {
        guard let thumb = joints[.thumbTip], let index = joints[.indexTip], let wrist = joints[.wrist],
            let knuckle = joints[.middleMCP]
        else { return nil }
        return distance(thumb, index) < distance(wrist, knuckle) / 3
    }

    enum Gesture: Equatable { case fist, point, peace, openHand, other }

    /// How far each finger (index to little) is held out: its tip's distance from the wrist over its middle joint's
    /// (about 1 curled, 1.5 or more straight); nil when a joint is missing.
    static func fingerExtension(_ joints: [Joint: CGPoint]) -> [CGFloat]? {
        guard let wrist = joints[.wrist] else { return nil }
        let fingers: [(Joint, Joint)] = [(.indexTip, .indexPIP), (.middleTip, .middlePIP), (.ringTip, .ringPIP), (.littleTip, .littlePIP)]
        var ratios: [CGFloat] = []
        for (tipName, middleName) in fingers {
            guard let tip = joints[tipName], let middle = joints[middleName], distance(middle, wrist) > 0 else { return nil }
            ratios.append(distance(tip, wrist) / distance(middle, wrist))
        }
        return ratios
    }

    /// The gesture the fingers held out (ratio above 1.3) make.
    static func gesture(_ joints: [Joint: CGPoint]) -> Gesture? {
        guard let out = fingerExtension(joints)?.map({ $0 > 1.3 }) else { return nil }
        switch out {
        case [false, false, false, false]: return .fist
        case [true, false, false, false]: return .point
        case [true, true, false, false]: return .peace
        case [true, true, true, true]: return .openHand
        default: return .other
        }
    }

    /// MediaPipe's reference hand for the same crop: its 21 landmarks (Vision's joint order) and the anatomical side.
    static func referenceHand() throws -> (joints: [Joint: CGPoint], side: String) {
        let reference = try Samples.reference("hands/hands.json")
        let cases = try #require(reference["cases"] as? [[String: Any]])
        let glove = try #require(cases.first { $0["name"] as? String == "camera-glove" })
        let hand = try #require((glove["hands"] as? [[String: Any]])?.first)
        let landmarks = try #require(hand["landmarks"] as? [[Double]])
        let order: [Joint] = [
            .wrist, .thumbCMC, .thumbMP, .thumbIP, .thumbTip, .indexMCP, .indexPIP, .indexDIP, .indexTip, .middleMCP,
            .middlePIP, .middleDIP, .middleTip, .ringMCP, .ringPIP, .ringDIP, .ringTip, .littleMCP, .littlePIP, .littleDIP,
            .littleTip,
        ]
        var joints: [Joint: CGPoint] = [:]
        for (name, point) in zip(order, landmarks) { joints[name] = CGPoint(x: point[0], y: 1 - point[1]) }
        return (joints, try #require(hand["side"] as? String))
    }

    @Test func pinchAndGestureAgreeWithTheReferenceHand() throws {
        let hand = try #require(try Self.hands(in: try Self.handPicture()).first)
        let joints = try Self.joints(of: hand)
        let reference = try Self.referenceHand()
        #expect(joints.count >= 15)
        // The same rules on MediaPipe's landmarks of the same hand say the same.
        let pinch = Self.isPinching(joints)
        #expect(pinch != nil && pinch == Self.isPinching(reference.joints))
        let ours = try #require(Self.fingerExtension(joints)), theirs = try #require(Self.fingerExtension(reference.joints))
        #expect(zip(ours, theirs).allSatisfy { abs($0 - $1) < 0.15 }, "\(ours) \(theirs)")
        // His fingers grip the camera: curled, a fist.
        #expect(Self.gesture(joints) == .fist && Self.gesture(reference.joints) == .fist)
    }

    @Test func chiralityIsTheSubjectsOwnHand() throws {
        let hand = try #require(try Self.hands(in: try Self.handPicture()).first)
        // MediaPipe labels hands as in a mirrored selfie; the reference records the anatomical side, which Vision's
        // chirality names.
        let reference = try Self.referenceHand()
        #expect(hand.chirality == (reference.side == "left" ? .left : .right))
        // Its wrist is where the reference's is.
        let wrist = try hand.recognizedPoint(.wrist)
        let theirs = try #require(reference.joints[.wrist])
        #expect(Self.distance(wrist.location, theirs) < 0.05)
    }

    @Test func fingertipForDrawingInTheAir() throws {
        // A drawing app follows the index tip while it is confident, in view pixels with a top-left origin.
        let picture = try Self.handPicture()
        let size = picture.extent.size
        let hand = try #require(try Self.hands(in: picture).first)
        let tip = try hand.recognizedPoint(.indexTip)
        #expect(tip.confidence > 0.3)
        let point = VNImagePointForNormalizedPoint(tip.location, Int(size.width), Int(size.height))
        let inView = CGPoint(x: point.x, y: size.height - point.y)
        #expect(CGRect(origin: .zero, size: size).contains(inView))
        // The index finger's joints run from the knuckle out: the tip is farther from the wrist than the knuckle.
        let wrist = try hand.recognizedPoint(.wrist)
        #expect(try hand.recognizedPoint(.indexMCP).distance(wrist) < tip.distance(wrist))
        #expect(Set(try hand.recognizedPoints(.indexFinger).keys) == [.indexMCP, .indexPIP, .indexDIP, .indexTip])
    }
}

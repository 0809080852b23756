import Foundation
import PVImaging
import PVPerception

/// Finds the most prominent person and their 17 joints in 3-D, as Apple's `VNDetectHumanBodyPose3DRequest`
/// (revision 1).
///
/// ```swift
/// let request = VNDetectHumanBodyPose3DRequest()
/// try VNImageRequestHandler(url: url).perform([request])
/// if let body = request.results?.first {
///     let wrist = try body.recognizedPoint(.leftWrist).position.columns.3    // metres from the root
///     let camera = try body.cameraRelativePosition(.root).columns.3          // the root seen from the camera
///     let onImage = try body.pointInImage(.leftWrist)                        // normalized, lower-left
/// }
/// ```
///
/// The person is the most prominent (`prominence(_:width:height:)`: the largest confidently placed body, as Apple's
/// picks the closest) of those the body pipeline's whole-image pass finds, or of the people a body-pose or
/// human-rectangles request already found on the same handler and region (which include them). Their joints come
/// from the pose landmarker's world landmarks (metres, MediaPipe's GHUM model), mapped and placed in front of the
/// camera as the engine's `BodyPose3D` documents and ``VNHumanBodyPose3DObservation`` describes. At most one observation,
/// always with all 17 joints. Camera intrinsics come from the handler's `VNImageOption.cameraIntrinsics` (a
/// `matrix_float3x3`, or `Data` holding one, in pixels of the image), else from the camera calibration of the
/// handler's depth data, else from the file's EXIF 35 mm-equivalent focal length (`FocalLengthIn35mmFilm`, which
/// phones write), else a 26 mm-equivalent lens is assumed.
///
/// **Depth.** With depth — given to the handler (`init(cvPixelBuffer:depthData:orientation:options:)`,
/// `init(cmSampleBuffer:depthData:orientation:options:)`) or in the HEIC file it reads — the person is measured:
/// each confidently placed joint is back-projected along its ray to the depth measured there, and the skeleton
/// scaled about the camera until its joints lie at those depths (the median ratio), so it stands at the measured
/// distance with the height that implies (``VNHumanBodyPose3DObservation/HeightEstimation/measured``). The depth
/// measured is the body's surface, a few centimetres in front of the joints. Depth of
/// ``AVDepthData/Accuracy/relative`` accuracy is not used (it is right in order, not in metres). Where fewer than
/// four joints have a valid depth (NaN, infinite, zero or negative values, joints outside the map), the map's
/// aspect ratio is not the image's, or the height found is not a person's (outside 0.5…3 m), the request falls back
/// to the 1.8-m reference height (``VNHumanBodyPose3DObservation/HeightEstimation/reference``), as Apple documents
/// for images without depth; it does not fail.
///
/// Performed on the frames of a sequence (``VNSequenceRequestHandler``, ``VNVideoProcessor``), its joints are smoothed
/// over time with MediaPipe's video-mode filters.
public final class VNDetectHumanBodyPose3DRequest: VNStatefulRequest, @unchecked Sendable {
    /// The most prominent person, or none.
    public var results: [VNHumanBodyPose3DObservation]? { storedResults as? [VNHumanBodyPose3DObservation] }

    public override class var supportedRevisions: IndexSet { IndexSet(integer: VNDetectHumanBodyPose3DRequestRevision1) }

    /// The stateful initializer Apple hides on this request; use `init()` or `init(completionHandler:)`.
    @available(*, unavailable, message: "use init() or init(completionHandler:)")
    public override init(frameAnalysisSpacing: CMTime, completionHandler: VNRequestCompletionHandler? = nil) {
        fatalError("unavailable")
    }

    public override init(completionHandler: VNRequestCompletionHandler? = nil) {
        super.init(completionHandler: completionHandler)
    }

    /// The 17 joints, in the framework's order.
    public var supportedJointNames: [VNHumanBodyPose3DObservation.JointName] {
        get throws {
            try Self.checkSupported(revision: revision)
            return VNHumanBodyPose3DObservation.JointName.all.map(\.0)
        }
    }

    /// The joint groups (`.all` last).
    public var supportedJointsGroupNames: [VNHumanBodyPose3DObservation.JointsGroupName] {
        get throws {
            try Self.checkSupported(revision: revision)
            return VNHumanBodyPose3DObservation.JointsGroupName.members.map(\.0)
        }
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let analysis = try image.analysis(of: regionOfInterest)
        let region = analysis.image
        let origin = image.pixelRect(for: regionOfInterest)
        let depth = image.sceneDepth()
        var intrinsics: CameraIntrinsics
        if image.options[.cameraIntrinsics] == nil, let calibrated = depth?.intrinsics(width: image.image.width, height: image.image.height) {
            intrinsics = calibrated
        } else {
            intrinsics = try Self.intrinsics(
                image.options[.cameraIntrinsics], width: image.image.width, height: image.image.height,
                focalLength35mm: image.focalLength35mm)
        }
        intrinsics.cx -= Double(origin.x)
        intrinsics.cy -= Double(origin.y)
        // A sequence that tracks follows its people into this frame (the detectors skipped); else the whole-image
        // pass (the closest person is large: no tile search), steadied in a sequence by the previous frame's people.
        var people: [PersonPose]
        if let sequence = image.sequence, regionOfInterest == HandlerImage.wholeImage {
            people = try sequence.state.people(
                of: analysis, timestamp: sequence.timestamp, multiScale: sequence.state.tracksPeople)
        } else {
            people = try analysis.people(multiScale: false)
        }
        // In a sequence, the landmarks (and with them the world landmarks the skeleton is built from) are smoothed,
        // and so is the skeleton's height its scale comes from.
        if let (sequence, time) = image.sequence { people = sequence.smoothed(people, for: self, timestamp: time) }
        let prominence = people.map { Self.prominence($0, width: region.width, height: region.height) }
        guard let best = prominence.indices.max(by: { prominence[$0] < prominence[$1] }), prominence[best] > 0,
            var modelHeight = BodyPose3D.modelHeight(of: people[best])
        else { return [] }
        if let (sequence, time) = image.sequence { modelHeight = sequence.smoothedSkeletonHeight(modelHeight, for: self, timestamp: time) }
        guard var skeleton = BodyPose3D(person: people[best], intrinsics: intrinsics, modelHeight: modelHeight) else { return [] }
        var estimation = VNHumanBodyPose3DObservation.HeightEstimation.reference
        if let depth,
            let measured = skeleton.measured(
                person: people[best], depth: depth.map, origin: (Double(origin.x), Double(origin.y)),
                imageWidth: image.image.width, imageHeight: image.image.height)
        {
            skeleton = measured
            estimation = .measured
        }
        return [
            VNHumanBodyPose3DObservation(
                skeleton: skeleton, region: (Double(region.width), Double(region.height)),
                confidence: Float(min(1, max(0, people[best].presence))), heightEstimation: estimation, requestRevision: revision)
        ]
    }

    /// How prominent a person is: the area of the box of their confidently placed landmarks (visibility and presence
    /// at least 0.5), clipped to the image, times the landmark model's presence. A large, fully seen person wins;
    /// a result whose limbs the model guesses far outside the image (a chair read as a person) does not.
    static func prominence(_ person: PersonPose, width: Int, height: Int) -> Double {
        let sure = person.landmarks.filter { min($0.visibility ?? 0, $0.presence ?? 0) >= 0.5 }.map(\.position)
        guard sure.count >= 2 else { return 0 }
        let xs = sure.map { min(Double(width), max(0, $0.x)) }, ys = sure.map { min(Double(height), max(0, $0.y)) }
        return (xs.max()! - xs.min()!) * (ys.max()! - ys.min()!) * person.presence
    }

    /// The camera intrinsics an option value gives (`matrix_float3x3`, or `Data` holding one: three columns of
    /// three floats, each column padded to four as `simd` stores them, or packed), else a lens of the file's EXIF
    /// 35 mm-equivalent focal length, else a 26 mm-equivalent one.
    /// - Throws: ``VNErrorCode/invalidOption`` for a value of another type, or intrinsics that are not a camera
    ///   (focal lengths not positive, values not finite).
    static func intrinsics(_ value: Any?, width: Int, height: Int, focalLength35mm: Double? = nil) throws -> CameraIntrinsics {
        guard let value else {
            return .assumed(width: width, height: height, focalLength35mm: focalLength35mm ?? CameraIntrinsics.defaultEquivalentFocalLength)
        }
        var k: simd_float3x3
        switch value {
        case let m as simd_float3x3: k = m
        case let data as Data where data.count == 48 || data.count == 36:
            let floats: [Float] = data.withUnsafeBytes { raw in (0..<(data.count / 4)).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) } }
            let stride = data.count == 48 ? 4 : 3
            func column(_ c: Int) -> SIMD3<Float> { SIMD3(floats[c * stride], floats[c * stride + 1], floats[c * stride + 2]) }
            k = simd_float3x3(column(0), column(1), column(2))
        default:
            throw NSError(vision: .invalidOption, "VNImageOption.cameraIntrinsics must be a matrix_float3x3 or Data holding one, not \(type(of: value))")
        }
        let c = CameraIntrinsics(
            fx: Double(k.columns.0.x), fy: Double(k.columns.1.y), cx: Double(k.columns.2.x), cy: Double(k.columns.2.y))
        guard c.isUsable else {
            throw NSError(vision: .invalidOption, "VNImageOption.cameraIntrinsics fx \(c.fx), fy \(c.fy), ox \(c.cx), oy \(c.cy) is not a camera")
        }
        return c
    }
}

/// Revision 1 of the 3-D body-pose request.
public let VNDetectHumanBodyPose3DRequestRevision1: Int = 1

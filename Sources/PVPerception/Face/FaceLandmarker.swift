#if canImport(Glibc)
import Glibc
import PVCore
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PVImaging
import PVInference
import PVThreads

/// Face mesh with irises: the face detector (``FaceDetector``), then the attention mesh
/// (`face_landmark_with_attention.tflite`: 468 points with lips, eyes and irises refined, MediaPipe's
/// `refine_landmarks`), or the plain mesh (`face_landmark.tflite`, MODELS.md §11.3) with the iris model on both eyes
/// (`iris_landmark.tflite`, §11.4).
///
/// One call on an upright image:
/// 1. the detector runs (``Options/detector``, combined short and full range by default);
/// 2. each detection, by descending score, gets the mesh ROI: the box centre, rotated so the eyes
///    (kp0 → kp1) are level, ×1.5, square (MODELS.md §7.4);
/// 3. the mesh runs (192×192, [0, 1], replicate border); a result with presence ≤
///    ``Options/minPresence`` is dropped, and so is one whose mesh box overlaps an earlier face's by
///    more than ``Options/duplicateIoU`` (two detections of one face);
/// 4. with ``Options/refineIrises`` (the default) and ``IrisSource/attentionMesh``, that one run also gives the
///    refined lips (80 points), eye regions (71 each) and irises (468–477); with ``IrisSource/irisModel``, or when
///    the attention mesh doubts the face, the plain mesh runs and each eye gets an iris ROI from its corners (×2.3,
///    square), the iris model runs on it (the left eye mirrored), its 71 eye-region points replace the mesh's
///    (§12.3) and its 5 iris points are appended.
///
/// Safe to share between threads.
///
/// ```swift
/// let landmarker = try FaceLandmarker()
/// for face in try landmarker.detect(in: image) { print(face.leftPupil, face.headPose.roll) }
/// ```
public final class FaceLandmarker: Sendable {
    /// Options; the defaults follow MediaPipe's face-mesh graph unless stated.
    public struct Options: Sendable, Hashable {
        /// Most faces returned, 1…64. Default 8 (MediaPipe's default is 1).
        public var maxFaces: Int = 8
        /// Detector model(s); default ``FaceDetector/Model/combined`` (MediaPipe's mesh uses the short-range model).
        public var detector: FaceDetector.Model = .combined
        /// Detector score threshold, 0…1; `nil` (default) uses each detector graph's own (0.5 short range,
        /// 0.6 full range).
        public var minDetectionScore: Double? = nil
        /// Face-presence threshold, 0…1; a face is kept when presence is **greater than** it.
        public var minPresence: Double = 0.5
        /// Refine the eyes and add the irises (478 points), from ``irisSource``. Default on.
        public var refineIrises: Bool = true
        /// Where refined eyes and irises come from when ``refineIrises`` is on. Default ``IrisSource/attentionMesh``.
        public var irisSource: IrisSource = .attentionMesh
        /// Two results with mesh boxes overlapping by more than this IoU are one face; the first (higher
        /// detection score) is kept. Default 0.5.
        public var duplicateIoU: Double = 0.5
        /// Also run the mesh on the mirror image of each face's ROI, for a head pose that is symmetric under a
        /// horizontal flip (``FaceMesh/mirroredLandmarks``). Costs one more mesh run per face. Default off: on
        /// strongly turned faces (yaw ≈ 45°) the mirrored crop's estimate differs from the direct one by several
        /// degrees, so averaging does not make the result more accurate, only symmetric. The mirrored run uses the
        /// plain mesh, so turn ``refineIrises`` off (or use ``IrisSource/irisModel``) for a pose from one model.
        public var mirroredPose: Bool = false
        /// Extra full-range detector passes over tiles; default none.
        public var detectorTiling: PoseDetector.Tiling? = nil

        public init() {}

        func validate() throws {
            try checkOption((1...64).contains(maxFaces), "maxFaces \(maxFaces) is outside 1…64")
            if let minDetectionScore {
                try checkOption((0...1).contains(minDetectionScore), "minDetectionScore \(minDetectionScore) is outside 0…1")
            }
            try checkOption((0...1).contains(minPresence), "minPresence \(minPresence) is outside 0…1")
            try checkOption((0...1).contains(duplicateIoU), "duplicateIoU \(duplicateIoU) is outside 0…1")
            try detectorTiling?.validate()
        }
    }

    /// Where a refined face's eyes and irises come from.
    public enum IrisSource: Sendable, Hashable, CaseIterable {
        /// `face_landmark_with_attention.tflite` (MODELS.md §11.10): one run gives the mesh with lips, eyes and irises
        /// refined by the model's own crops of its feature map, as MediaPipe's `refine_landmarks` does.
        case attentionMesh
        /// `face_landmark.tflite`, then `iris_landmark.tflite` on a crop around each eye (MediaPipe's iris pipeline):
        /// three model runs.
        case irisModel
    }

    /// The options this landmarker runs with.
    public let options: Options
    /// The detector it uses.
    public let detector: FaceDetector
    private let mesh: InterpreterPool
    private let iris: InterpreterPool
    private let attention: InterpreterPool?

    static let meshSize = 192
    static let irisSize = 64

    /// Loads the models (once per process) and checks their tensors.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for bad options, `.unexpectedModel` for a model with other
    ///   tensors; `InferenceError` `.modelNotFound` when a model is not installed.
    public init(options: Options = Options(), threads: Int? = nil) throws {
        try options.validate()
        self.options = options
        detector = try FaceDetector(threads: threads)
        mesh = try InterpreterPool(
            modelNamed: "face_landmark.tflite", threads: threads, input: [1, 192, 192, 3], outputCounts: [1404, 1])
        iris = try InterpreterPool(
            modelNamed: "iris_landmark.tflite", threads: threads, input: [1, 64, 64, 3], outputCounts: [213, 15])
        if options.refineIrises && options.irisSource == .attentionMesh {
            attention = try InterpreterPool(
                modelNamed: "face_landmark_with_attention.tflite", threads: threads, input: [1, 192, 192, 3],
                outputCounts: [1404, 160, 142, 142, 10, 10, 1])
        } else {
            attention = nil
        }
    }

    /// Finds the faces in an upright image.
    /// - Returns: up to ``Options/maxFaces`` faces, by descending detection score.
    /// - Throws: errors of the sampler or the interpreters.
    /// - Complexity: one or two detector runs and one mesh run per processed detection (plus two iris runs per face
    ///   with ``IrisSource/irisModel``).
    public func detect(in image: PixelBuffer) throws -> [FaceMesh] {
        let detections = try detector.detect(
            in: image, model: options.detector, minScore: options.minDetectionScore, tiling: options.detectorTiling)
        return try landmarks(in: image, detections: detections)
    }

    /// Runs the mesh (and irises) for given detections (pixels), by their order, skipping duplicates.
    public func landmarks(in image: PixelBuffer, detections: [Detection]) throws -> [FaceMesh] {
        var faces: [FaceMesh] = []
        for detection in detections {
            if faces.count >= options.maxFaces { break }
            let roi = Self.roi(for: detection)
            guard roi.hasSampleableCentreAndSide, roi.angle.isFinite, var face = try landmarks(in: image, roi: roi)
            else { continue }
            face.detection = detection
            let box = face.meshBoundingBox
            if faces.contains(where: { $0.meshBoundingBox.intersectionOverUnion(with: box) > options.duplicateIoU }) {
                continue
            }
            faces.append(face)
        }
        return faces
    }

    /// The mesh ROI of a face detection in pixels (MODELS.md §7.4): box centre and size, kp0 → kp1 level,
    /// ×1.5, square.
    public static func roi(for detection: Detection) -> RotatedRect {
        let angle = ROI.rotation(from: detection.keypoints[0], to: detection.keypoints[1], targetAngle: 0)
        return ROI.rect(box: detection.box, angle: angle).transformed(by: .faceMesh)
    }

    /// The mesh ROI built from a previous mesh (MODELS.md §7.4): the box of the 468 points, 33 → 263 level,
    /// ×1.5, square. For tracking, or to re-run the mesh on a better-aligned crop.
    public static func roi(for mesh: [Landmark]) -> RotatedRect {
        let box = BoundingBox(enclosing: mesh.prefix(FaceMeshTopology.meshCount).map(\.position))!
        let angle = ROI.rotation(from: mesh[33].position, to: mesh[263].position, targetAngle: 0)
        return ROI.rect(box: box, angle: angle).transformed(by: .faceMesh)
    }

    /// The iris ROI of one eye (MODELS.md §7.4): the axis-aligned box of the two corners, corner0 → corner1
    /// level, ×2.3, square.
    package static func irisROI(_ p0: SIMD2<Double>, _ p1: SIMD2<Double>) -> RotatedRect {
        let box = BoundingBox(enclosing: [p0, p1])!
        return ROI.rect(box: box, angle: ROI.rotation(from: p0, to: p1, targetAngle: 0)).transformed(by: .iris)
    }

    /// Runs the mesh on one ROI: with ``Options/refineIrises``, the attention mesh (or, per ``Options/irisSource``
    /// and where the attention mesh's presence is not above ``Options/minPresence``, the plain mesh and the iris
    /// model); without, the plain mesh.
    /// - Parameters:
    ///   - image: the upright image.
    ///   - roi: a square ROI in image pixels.
    /// - Returns: the face, or `nil` when the plain mesh's presence is not above ``Options/minPresence`` either.
    /// - Throws: `ImagingError` for a non-finite or empty ROI; interpreter errors.
    public func landmarks(in image: PixelBuffer, roi: RotatedRect) throws -> FaceMesh? {
        // The attention mesh's face flag doubts some partly hidden faces the plain mesh is sure of (a face behind a
        // camera, turned 15°: 0.997 against under 0.5); those get the plain mesh and the iris model.
        var landmarks: [Landmark], presence: Double
        if attention != nil, let refined = try runAttentionMesh(image, roi: roi) {
            (landmarks, presence) = refined
        } else {
            guard let plain = try runMesh(image, roi: roi, mirrored: false) else { return nil }
            (landmarks, presence) = plain
            if options.refineIrises { try refineEyes(&landmarks, image: image) }
        }
        var face = FaceMesh(landmarks: landmarks, roi: roi, presence: presence, detection: nil)
        if options.mirroredPose {
            face.mirroredLandmarks = try runMesh(image, roi: roi, mirrored: true)?.landmarks
        }
        return face
    }

    /// The attention mesh alone on one ROI (``IrisSource/attentionMesh``, without the plain-mesh fallback of
    /// ``landmarks(in:roi:)``): `nil` when its presence is not above ``Options/minPresence``, or when this landmarker
    /// does not run the attention mesh.
    /// - Throws: `ImagingError` for a non-finite or empty ROI; interpreter errors.
    public func attentionLandmarks(in image: PixelBuffer, roi: RotatedRect) throws -> FaceMesh? {
        guard attention != nil, let (landmarks, presence) = try runAttentionMesh(image, roi: roi) else { return nil }
        return FaceMesh(landmarks: landmarks, roi: roi, presence: presence, detection: nil)
    }

    /// One mesh run. `mirrored`: on the horizontally flipped crop, with the landmarks placed in the mirror image
    /// (x measured from the right edge: the ROI becomes `(W − cx, cy, w, h, −θ)`).
    private func runMesh(_ image: PixelBuffer, roi: RotatedRect, mirrored: Bool) throws
        -> (landmarks: [Landmark], presence: Double)?
    {
        try runFaceModel(mesh, image: image, roi: roi, mirrored: mirrored, presenceOutput: 1) { interpreter in
            let n = Self.meshSize
            let points = interpreter.withOutput(0) {
                LandmarkDecoder(count: FaceMeshTopology.meshCount, valuesPerLandmark: 3, tensorWidth: n, tensorHeight: n)
                    .decode($0)
            }
            let frame = mirrored
                ? RotatedRect(
                    centerX: Double(image.width) - roi.centerX, centerY: roi.centerY, width: roi.width, height: roi.height,
                    angle: -roi.angle)
                : roi
            return points.map { $0.projected(onto: frame) }
        }
    }

    /// One run of the attention mesh: the 468 points with the lips' 80 and each eye region's 71 replaced by the
    /// model's refined x, y (z stays the mesh's), then the 10 iris points, whose z is the mean z of their eye's
    /// contour (its first 16 region points), as MediaPipe's refinement does.
    private func runAttentionMesh(_ image: PixelBuffer, roi: RotatedRect) throws -> (landmarks: [Landmark], presence: Double)? {
        try runFaceModel(attention!, image: image, roi: roi, mirrored: false, presenceOutput: 6) { interpreter in
            let n = Self.meshSize
            func decode(_ output: Int, count: Int, values: Int) -> [Landmark] {
                interpreter.withOutput(output) {
                    LandmarkDecoder(count: count, valuesPerLandmark: values, tensorWidth: n, tensorHeight: n).decode($0)
                }.map { $0.projected(onto: roi) }
            }
            var landmarks = decode(0, count: FaceMeshTopology.meshCount, values: 3)
            // The model's "left" outputs are the eye on the image's left: the subject's right.
            let refinements = [
                (1, FaceMeshTopology.lipsRegion), (2, FaceMeshTopology.rightEyeRegion), (3, FaceMeshTopology.leftEyeRegion),
            ]
            for (output, region) in refinements {
                for (k, p) in decode(output, count: region.count, values: 2).enumerated() {
                    landmarks[region[k]].x = p.x
                    landmarks[region[k]].y = p.y
                }
            }
            for (output, region) in [(4, FaceMeshTopology.rightEyeRegion), (5, FaceMeshTopology.leftEyeRegion)] {
                let contour = region.prefix(16)
                let z = contour.reduce(0.0) { $0 + landmarks[$1].z } / Double(contour.count)
                landmarks += decode(output, count: 5, values: 2).map { Landmark(x: $0.x, y: $0.y, z: z) }
            }
            return landmarks
        }
    }

    /// One run of a 192² face model of `pool` on `roi` (stretched, [0, 1] at byte levels, flipped when
    /// `mirrored`): `nil` unless the sigmoid of output `presenceOutput` is above ``Options/minPresence``, else the
    /// landmarks `decode` reads from the outputs, with that presence.
    private func runFaceModel(
        _ pool: InterpreterPool, image: PixelBuffer, roi: RotatedRect, mirrored: Bool, presenceOutput: Int,
        decode: (Interpreter) -> [Landmark]
    ) throws -> (landmarks: [Landmark], presence: Double)? {
        let n = Self.meshSize
        let sampler = TensorSampler(width: n, height: n, range: 0...1, fit: .stretch, border: .replicate)
        let minPresence = options.minPresence
        return try pool.withInterpreter { interpreter -> (landmarks: [Landmark], presence: Double)? in
            _ = try interpreter.sampleInput(image, rect: roi, sampler: sampler)
            if mirrored { interpreter.withInput(0) { Self.flipHorizontally($0, width: n, height: n) } }
            try interpreter.invoke()
            let presence = Double(interpreter.withOutput(presenceOutput) { 1 / (1 + exp(-$0[0])) })
            guard presence > minPresence else { return nil }
            return (decode(interpreter), presence)
        }
    }

    private static func flipHorizontally(_ tensor: UnsafeMutableBufferPointer<Float>, width: Int, height: Int) {
        for y in 0..<height {
            let row = y * width * 3
            for x in 0..<(width / 2) {
                let a = row + 3 * x, b = row + 3 * (width - 1 - x)
                for c in 0..<3 { tensor.swapAt(a + c, b + c) }
            }
        }
    }

    /// The face with its eyes refined by the iris model (478 landmarks); unchanged when it already has irises.
    /// For a mesh computed without ``Options/refineIrises``.
    /// - Throws: `ImagingError` for a degenerate eye ROI; interpreter errors.
    public func refiningIrises(_ face: FaceMesh, in image: PixelBuffer) throws -> FaceMesh {
        guard !face.hasIrises else { return face }
        var refined = face
        try refineEyes(&refined.landmarks, image: image)
        return refined
    }

    /// Runs the iris model on both eyes: overwrites the 71 eye-region points of each and appends the irises.
    private func refineEyes(_ landmarks: inout [Landmark], image: PixelBuffer) throws {
        let eyes = [
            (FaceMeshTopology.rightEyeCorners, FaceMeshTopology.rightEyeRegion, false),
            (FaceMeshTopology.leftEyeCorners, FaceMeshTopology.leftEyeRegion, true),
        ]
        // The two eyes' ROIs come from their own corners only, so both iris runs go side by side.
        let mesh = landmarks
        let results = try concurrently(eyes.map { eye in
            { @Sendable [self] in
                try self.runIris(image: image, roi: Self.irisROI(mesh[eye.0.0].position, mesh[eye.0.1].position), flip: eye.2)
            }
        })
        for ((_, region, _), (eye, _)) in zip(eyes, results) {
            for (k, index) in region.enumerated() { landmarks[index] = eye[k] }
        }
        landmarks += results[0].iris + results[1].iris
    }

    private func runIris(image: PixelBuffer, roi: RotatedRect, flip: Bool) throws -> (eye: [Landmark], iris: [Landmark]) {
        let s = Self.irisSize
        let sampler = IrisCropSampler(width: s, height: s, range: 0...1)
        return try iris.withInterpreter { interpreter in
            let padding = try interpreter.withInput(0) { tensor in
                try sampler.sample(image, rect: roi, flipHorizontally: flip, into: tensor)
            }
            try interpreter.invoke()
            func decode(_ index: Int, count: Int) -> [Landmark] {
                interpreter.withOutput(index) {
                    LandmarkDecoder(
                        count: count, valuesPerLandmark: 3, tensorWidth: s, tensorHeight: s, flipHorizontally: flip
                    ).decode($0)
                }.map { $0.removingLetterbox(padding).projected(onto: roi) }
            }
            return (decode(0, count: 71), decode(1, count: 5))
        }
    }
}

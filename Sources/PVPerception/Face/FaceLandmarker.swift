#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import PVImaging
import PVInference

/// Face mesh with irises: the face detector (``FaceDetector``), the 468-point mesh model
/// (`face_landmark.tflite`, MODELS.md §11.3) and the iris model on both eyes (`iris_landmark.tflite`, §11.4).
///
/// One call on an upright image:
/// 1. the detector runs (``Options/detector``, combined short and full range by default);
/// 2. each detection, by descending score, gets the mesh ROI: the box centre, rotated so the eyes
///    (kp0 → kp1) are level, ×1.5, square (MODELS.md §7.4);
/// 3. the mesh model runs (192×192, [0, 1], replicate border); a result with presence ≤
///    ``Options/minPresence`` is dropped, and so is one whose mesh box overlaps an earlier face's by
///    more than ``Options/duplicateIoU`` (two detections of one face);
/// 4. when ``Options/refineIrises`` is on, each eye gets an iris ROI from its corners (×2.3, square), the iris
///    model runs on it (the left eye mirrored), its 71 eye-region points replace the mesh's (§12.3) and its
///    5 iris points are appended (468–477).
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
        /// Run the iris model on both eyes (478 points). Default on.
        public var refineIrises: Bool = true
        /// Two results with mesh boxes overlapping by more than this IoU are one face; the first (higher
        /// detection score) is kept. Default 0.5.
        public var duplicateIoU: Double = 0.5
        /// Also run the mesh on the mirror image of each face's ROI, for a head pose that is symmetric under a
        /// horizontal flip (``FaceMesh/mirroredLandmarks``). Costs one more mesh run per face. Default off: on
        /// strongly turned faces (yaw ≈ 45°) the mirrored crop's estimate differs from the direct one by several
        /// degrees, so averaging does not make the result more accurate, only symmetric.
        public var mirroredPose: Bool = false
        /// Extra full-range detector passes over tiles; default none.
        public var detectorTiling: PoseDetector.Tiling? = nil

        public init() {}

        func validate() throws {
            func check(_ ok: Bool, _ message: @autoclosure () -> String) throws {
                if !ok { throw PerceptionError(.invalidArgument, message()) }
            }
            try check((1...64).contains(maxFaces), "maxFaces \(maxFaces) is outside 1…64")
            if let minDetectionScore {
                try check((0...1).contains(minDetectionScore), "minDetectionScore \(minDetectionScore) is outside 0…1")
            }
            try check((0...1).contains(minPresence), "minPresence \(minPresence) is outside 0…1")
            try check((0...1).contains(duplicateIoU), "duplicateIoU \(duplicateIoU) is outside 0…1")
            try detectorTiling?.validate()
        }
    }

    /// The options this landmarker runs with.
    public let options: Options
    /// The detector it uses.
    public let detector: FaceDetector
    private let mesh: InterpreterPool
    private let iris: InterpreterPool

    static let meshSize = 192
    static let irisSize = 64

    /// Loads the models (once per process) and checks their tensors.
    /// - Throws: ``PerceptionError`` `.invalidArgument` for bad options, `.unexpectedModel` for a model with other
    ///   tensors; `InferenceError` `.modelNotFound` when a model is not installed.
    public init(options: Options = Options(), threads: Int? = nil) throws {
        try options.validate()
        self.options = options
        detector = try FaceDetector(threads: threads)
        mesh = try InterpreterPool(modelNamed: "face_landmark.tflite", threads: threads)
        iris = try InterpreterPool(modelNamed: "iris_landmark.tflite", threads: threads)
        let m = mesh.model, i = iris.model
        guard m.inputs.count == 1, m.inputs[0].shape == [1, 192, 192, 3], m.outputs.map(\.elementCount) == [1404, 1] else {
            throw PerceptionError(
                .unexpectedModel,
                "face_landmark.tflite has inputs \(m.inputs.map(\.shape)) and outputs \(m.outputs.map(\.shape)); expected "
                    + "[1, 192, 192, 3] → 1404, 1 values. Reinstall it with scripts/bootstrap")
        }
        guard i.inputs.count == 1, i.inputs[0].shape == [1, 64, 64, 3], i.outputs.map(\.elementCount) == [213, 15] else {
            throw PerceptionError(
                .unexpectedModel,
                "iris_landmark.tflite has inputs \(i.inputs.map(\.shape)) and outputs \(i.outputs.map(\.shape)); expected "
                    + "[1, 64, 64, 3] → 213, 15 values. Reinstall it with scripts/bootstrap")
        }
    }

    /// Finds the faces in an upright image.
    /// - Returns: up to ``Options/maxFaces`` faces, by descending detection score.
    /// - Throws: errors of the sampler or the interpreters.
    /// - Complexity: one or two detector runs, one mesh run per processed detection and two iris runs per face.
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
            guard roi.width > 0, roi.width.isFinite, roi.centerX.isFinite, roi.centerY.isFinite, roi.angle.isFinite,
                var face = try landmarks(in: image, roi: roi)
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

    /// Runs the mesh model (and the iris model, per ``Options/refineIrises``) on one ROI.
    /// - Parameters:
    ///   - image: the upright image.
    ///   - roi: a square ROI in image pixels.
    /// - Returns: the face, or `nil` when presence is not above ``Options/minPresence``.
    /// - Throws: `ImagingError` for a non-finite or empty ROI; interpreter errors.
    public func landmarks(in image: PixelBuffer, roi: RotatedRect) throws -> FaceMesh? {
        guard let (found, presence) = try runMesh(image, roi: roi, mirrored: false) else { return nil }
        var landmarks = found
        if options.refineIrises {
            try refineEyes(&landmarks, image: image)
        }
        var face = FaceMesh(landmarks: landmarks, roi: roi, presence: presence, detection: nil)
        if options.mirroredPose {
            face.mirroredLandmarks = try runMesh(image, roi: roi, mirrored: true)?.landmarks
        }
        return face
    }

    /// One mesh run. `mirrored`: on the horizontally flipped crop, with the landmarks placed in the mirror image
    /// (x measured from the right edge: the ROI becomes `(W − cx, cy, w, h, −θ)`).
    private func runMesh(_ image: PixelBuffer, roi: RotatedRect, mirrored: Bool) throws
        -> (landmarks: [Landmark], presence: Double)?
    {
        let n = Self.meshSize
        let sampler = TensorSampler(width: n, height: n, range: 0...1, fit: .stretch, border: .replicate)
        let minPresence = options.minPresence
        return try mesh.withInterpreter { interpreter -> (landmarks: [Landmark], presence: Double)? in
            try interpreter.withInput(0) { tensor in
                _ = try sampler.sample(image, rect: roi, into: tensor)
                InputQuantization.roundToByteLevels(tensor, range: sampler.range)
                if mirrored { Self.flipHorizontally(tensor, width: n, height: n) }
            }
            try interpreter.invoke()
            let presence = Double(interpreter.withOutput(1) { 1 / (1 + exp(-$0[0])) })
            guard presence > minPresence else { return nil }
            let points = interpreter.withOutput(0) {
                LandmarkDecoder(count: FaceMeshTopology.meshCount, valuesPerLandmark: 3, tensorWidth: n, tensorHeight: n)
                    .decode($0)
            }
            let frame = mirrored
                ? RotatedRect(
                    centerX: Double(image.width) - roi.centerX, centerY: roi.centerY, width: roi.width, height: roi.height,
                    angle: -roi.angle)
                : roi
            return (points.map { $0.projected(onto: frame) }, presence)
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

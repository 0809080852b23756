import PVImaging

/// One face found by ``FaceLandmarker``: the mesh, the irises and where they came from.
public struct FaceMesh: Sendable {
    /// The landmarks in **image pixels** (top-left origin, pixel-centre convention), `z` in pixels too (same
    /// scale as x; smaller is closer; origin about the head centre). 468 mesh points (MODELS.md §12.2), plus,
    /// when irises were refined, the refined eye regions (and, from the attention mesh, lips) and 10 iris points:
    /// 468 right iris centre, 469–472 its ring, 473 left iris centre, 474–477 its ring
    /// (``FaceMeshTopology/refinedCount``). The rings start as their model gives them: the attention mesh
    /// starts both toward the image's left, the iris model the left eye's toward its outer corner (mirrored).
    public var landmarks: [Landmark]
    /// The square ROI the mesh model ran on, in image pixels.
    public var roi: RotatedRect
    /// The mesh model's face-presence probability (sigmoid of its flag).
    public var presence: Double
    /// The detection behind ``roi`` (pixels); `nil` when the ROI came from elsewhere.
    public var detection: Detection?
    /// The 468 mesh points found on the horizontally mirrored crop, placed in the mirror image (x measured from
    /// the image's right edge), when ``FaceLandmarker/Options/mirroredPose`` is on. Only ``headPose`` uses them.
    public var mirroredLandmarks: [Landmark]?
    /// For each of the 468 mesh points, how far it moved, in pixels, between a previous mesh of the same face and
    /// this one (the mesh re-run on the ROI the previous one defines, ``measuringSpread(from:)``); `nil` when the
    /// mesh ran once. Points the model places consistently barely move; uncertain ones (hidden, blurred) do.
    public var pointSpread: [Double]?

    public init(landmarks: [Landmark], roi: RotatedRect, presence: Double, detection: Detection?, mirroredLandmarks: [Landmark]? = nil) {
        self.landmarks = landmarks
        self.roi = roi
        self.presence = presence
        self.detection = detection
        self.mirroredLandmarks = mirroredLandmarks
    }

    /// This mesh with ``pointSpread`` measured against `previous`, an earlier mesh of the same face.
    public func measuringSpread(from previous: FaceMesh) -> FaceMesh {
        var measured = self
        let n = min(FaceMeshTopology.meshCount, landmarks.count, previous.landmarks.count)
        measured.pointSpread = (0..<n).map { i in
            let d = landmarks[i].position - previous.landmarks[i].position
            return (d * d).sum().squareRoot()
        }
        return measured
    }

    /// Whether the iris points are present (478 landmarks).
    public var hasIrises: Bool { landmarks.count >= FaceMeshTopology.refinedCount }

    /// Axis-aligned box of the 468 mesh points, in pixels.
    public var meshBoundingBox: BoundingBox {
        BoundingBox(enclosing: landmarks.prefix(FaceMeshTopology.meshCount).map(\.position))!
    }

    /// The subject's right pupil (iris centre 468) in pixels, or the centre of the right eye's corners
    /// without irises.
    public var rightPupil: SIMD2<Double> {
        hasIrises ? landmarks[FaceMeshTopology.rightIrisCenter].position : (landmarks[33].position + landmarks[133].position) / 2
    }

    /// The subject's left pupil (iris centre 473) in pixels, or the centre of the left eye's corners.
    public var leftPupil: SIMD2<Double> {
        hasIrises ? landmarks[FaceMeshTopology.leftIrisCenter].position : (landmarks[362].position + landmarks[263].position) / 2
    }

    /// Head pose from the mesh (``HeadPose/init(mesh:)``); with ``mirroredLandmarks``, the mean of the pose
    /// of the mesh and the mirrored pose of the mirror crop's mesh (roll and yaw negated), which makes the
    /// estimate antisymmetric under a horizontal flip of the image and halves the model's own asymmetry.
    public var headPose: HeadPose {
        let direct = HeadPose(mesh: landmarks)
        guard let mirroredLandmarks else { return direct }
        let m = HeadPose(mesh: mirroredLandmarks)
        let dr = ROI.wrapAngle(-m.roll - direct.roll)
        return HeadPose(
            roll: ROI.wrapAngle(direct.roll + dr / 2), yaw: (direct.yaw - m.yaw) / 2, pitch: (direct.pitch + m.pitch) / 2)
    }
}

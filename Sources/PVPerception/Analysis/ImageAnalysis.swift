import PVCore
import PVImaging
import PVThreads

/// Everything computed on one upright image (a handler's image, or a region of it), each piece at most once however
/// many requests ask: the face work (``FaceAnalysis``), the people of the body pipeline, and the accurate person
/// mask's fusion. A handler owns one per region of interest; it goes away with the handler.
package final class ImageAnalysis: Sendable {
    /// The upright pixels analysed.
    package let image: PixelBuffer
    /// Faces: detections and meshes.
    package let faces: FaceAnalysis
    /// The pose models' runs, shared by the body pipeline and the accurate person mask's pose pass.
    package let poseRuns = PoseRuns(clusterScore: Pipelines.bodyDetectionScore)

    private struct State {
        /// The body pipeline's people: the whole-image pass, and the multi-scale search when asked for.
        var wholeImagePeople: [PersonPose]?
        var multiScalePeople: [PersonPose]?
        /// The accurate person-mask level's work, without the guide statistics (several times larger than the rest;
        /// the refinement computes them again).
        var fusion: PersonSegmenter.Fusion?
        /// The hands found, by the most hands asked for.
        var hands: [Int: [HandPose]] = [:]
        /// Whether face landmarks will follow the face detection of this image (a landmarks or capture-quality
        /// request that detects its own faces is among the requests performed).
        var landmarksFollow = false
    }

    private let state = Locked(State())

    package init(image: PixelBuffer) {
        self.image = image
        faces = FaceAnalysis(image: image)
    }

    /// Says that face landmarks will be asked of this image's own faces, so that face detection starts the meshes
    /// they need early (``FaceAnalysis/faces(withMeshes:smallFaces:landmarksToFollow:)``).
    package func expectFaceLandmarks() { state.withLock { $0.landmarksFollow = true } }

    /// Whether ``expectFaceLandmarks()`` was said.
    package var faceLandmarksExpected: Bool { state.withLock { $0.landmarksFollow } }

    /// The people of the body pipeline (pixels of ``image``). Multi-scale: the whole-image pass, then tiles of about
    /// 320 px unless the people found fill the picture (``PoseLandmarker/detectMultiScale(in:maxPeople:options:)``);
    /// otherwise the whole-image pass only. A multi-scale search continues from a whole-image pass already made, and
    /// its result also serves a whole-image request.
    package func people(multiScale: Bool = true) throws -> [PersonPose] {
        let known = state.withLock { s in s.multiScalePeople ?? (multiScale ? nil : s.wholeImagePeople) }
        if let known { return known }
        let landmarker = try Pipelines.bodyLandmarker()
        if multiScale {
            let whole = state.withLock { $0.wholeImagePeople }
            let people = try landmarker.detectMultiScale(
                in: image, maxPeople: Pipelines.maxPeople, options: PoseLandmarker.MultiScaleOptions(),
                tilesBeside: whole == nil && CPUBudget.available > 1, wholeImage: whole, runs: poseRuns)
            state.withLock { $0.multiScalePeople = people }
            return people
        }
        let people = try landmarker.detect(in: image, detectorTiling: nil, maxPeople: Pipelines.maxPeople, runs: poseRuns)
        state.withLock { $0.wholeImagePeople = people }
        return people
    }

    /// The people of a tracked frame (``PoseTracking``): the landmark model on each followed person's ROI, side by side,
    /// without the detectors. Nil when someone is lost (no person in their ROI), so that the caller detects instead.
    /// The people found serve every request on this image, as the detected people would.
    package func trackedPeople(rois: [RotatedRect]) throws -> [PersonPose]? {
        let landmarker = try Pipelines.bodyLandmarker()
        let found = try concurrently(rois.map { roi in { @Sendable [self] in try landmarker.landmarks(in: image, roi: roi, runs: poseRuns) } })
        var people: [PersonPose] = []
        for person in found {
            guard let person else { return nil }
            landmarker.add(person, to: &people)
        }
        state.withLock {
            $0.multiScalePeople = people
            $0.wholeImagePeople = people
        }
        return people
    }

    /// The accurate person-mask level's work up to its fused grid (``PersonSegmenter/fuse(_:people:)``), shared by the
    /// person mask and the person instances. Its pose pass is the segmenter's own (MediaPipe's detection threshold,
    /// searching further only where the selfie mask shows someone it missed): the body pipeline's wider search also
    /// returns weakly detected people whose pose masks, fused, bleed into their neighbours.
    ///
    /// `following`: the landmark ROIs of the people a video follows into this frame (``PoseTracking``), run instead of
    /// the detector (``PersonSegmenter/fuse(_:runs:following:)``); used by the first call only.
    package func accurateFusion(following: [RotatedRect]? = nil) throws -> PersonSegmenter.Fusion {
        if let known = state.withLock({ $0.fusion }) { return known }
        let made = try Pipelines.segmenter(.accurate).fuse(image, runs: poseRuns, following: following)
        state.withLock { $0.fusion = $0.fusion ?? made.droppingGuideStatistics() }
        return made
    }

    /// `body`'s result, with the faces' refined meshes (``FaceAnalysis/refinedMeshes()``) found beside it when
    /// `withFaces`, else none. Beside a person mask this saves little on a 2-core machine (the mask keeps both cores
    /// busy for most of its run): measured 1–2 ms quicker at 1080p than the two one after the other.
    package func withRefinedFaceMeshes<T: Sendable>(_ withFaces: Bool, beside body: @escaping @Sendable () throws -> T)
        throws -> (result: T, meshes: [FaceMesh])
    {
        guard withFaces else { return (try body(), []) }
        let result = Locked<T?>(nil), meshes = Locked<[FaceMesh]>([])
        _ = try concurrently([
            { @Sendable in
                let made = try body()
                result.withLock { $0 = made }
            },
            { @Sendable [faces] in
                let found = try faces.refinedMeshes()
                meshes.withLock { $0 = found }
            },
        ])
        return (result.withLock { $0! }, meshes.withLock { $0 })
    }

    /// The hands of the image, at most `maxHands`: palms, then, where they find too few, around the body pipeline's
    /// wrists (whole-image pass).
    package func hands(maxHands: Int) throws -> [HandPose] {
        if let known = state.withLock({ $0.hands[maxHands] }) { return known }
        let found = try Pipelines.handLandmarker(maxHands: maxHands).detect(in: image) { [self] in
            try self.people(multiScale: false)
        }
        state.withLock { $0.hands[maxHands] = found }
        return found
    }
}

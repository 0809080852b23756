import Foundation
import PVCore
import PVImaging
import PVPerception

/// Finds people and returns a box for each, as Apple's `VNDetectHumanRectanglesRequest` (revisions 1 and 2).
///
/// ```swift
/// let request = VNDetectHumanRectanglesRequest()
/// request.upperBodyOnly = false                      // whole bodies (revision 2)
/// try VNImageRequestHandler(url: url).perform([request])
/// for person in request.results ?? [] { print(person.boundingBox, person.confidence) }
/// ```
///
/// The boxes come from the same multi-person pose pipeline as ``VNDetectHumanBodyPoseRequest`` (one box per
/// person found, up to 32; pixels of a person outside the image are not boxed):
/// - **full body** (`upperBodyOnly = false`): the box of the person's 33 body landmarks and of the top of the head
///   (estimated 1.6 eye–mouth distances above the eyes), grown by 10 % of its width at each side and 5 % of its
///   height at the top and bottom (the landmarks are joint centres), clipped to the image: a person cut off by the
///   frame is boxed to the edge;
/// - **upper body** (`upperBodyOnly = true`, the default, and always with revision 1): from the top of the head
///   down to the lower shoulder, across the face landmarks, the shoulders and the head top.
///
/// An observation's confidence is the landmark model's person-presence probability.
///
/// With a `regionOfInterest`, the people are those of the whole image lying mostly inside the region (at least 40 %
/// of their box as this request draws it), in coordinates normalized to the region: a region is not searched as a
/// picture of its own, where, enlarged, a cat's face can pass for a person.
public final class VNDetectHumanRectanglesRequest: VNImageBasedRequest, @unchecked Sendable {
    private let upperOnly = Locked(true)

    /// Upper-body boxes (default `true`) or, with revision 2, full-body boxes.
    public var upperBodyOnly: Bool {
        get { upperOnly.withLock { $0 } }
        set { upperOnly.withLock { $0 = newValue } }
    }

    /// One observation per person, by descending detection score.
    public var results: [VNHumanObservation]? { storedResults as? [VNHumanObservation] }

    public override class var supportedRevisions: IndexSet {
        IndexSet([VNDetectHumanRectanglesRequestRevision1, VNDetectHumanRectanglesRequestRevision2])
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let upper = upperBodyOnly || revision == VNDetectHumanRectanglesRequestRevision1
        let (w, h) = (image.image.width, image.image.height)
        let (people, W, H) = try image.people(in: regionOfInterest) {
            upper ? $0.upperBodyBox(imageWidth: w, imageHeight: h) : $0.fullBodyBox(imageWidth: w, imageHeight: h)
        }
        return people.compactMap { person -> VNObservation? in
            let box = upper ? person.upperBodyBox(imageWidth: W, imageHeight: H) : person.fullBodyBox(imageWidth: W, imageHeight: H)
            guard let box else { return nil }
            return VNHumanObservation(
                boundingBox: VisionCoordinates.rect(box, width: W, height: H),
                confidence: Float(min(1, max(0, person.presence))), upperBodyOnly: upper, requestRevision: revision)
        }
    }
}

/// Revision 1 of the human-rectangles request: upper bodies only.
public let VNDetectHumanRectanglesRequestRevision1: Int = 1
/// Revision 2: upper-body or full-body boxes (``VNDetectHumanRectanglesRequest/upperBodyOnly``).
public let VNDetectHumanRectanglesRequestRevision2: Int = 2

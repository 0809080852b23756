import Foundation
import PVCore
import PVImaging
import PVPerception

/// Generates the semantic segmentation mattes (skin, hair, teeth, glasses) and the portrait effects matte of any
/// photo: **PeopleVision's own request, not Apple API** (Apple's mattes come only from an iPhone's camera).
///
/// The mattes cover every person found, at the size of the image (or of the region of interest), upright, in
/// Apple's matte format (`kCVPixelFormatType_OneComponent8`, 255 inside). No learned hair or skin model ships with
/// this package, so they are built from the face mesh, the accurate person mask and colour models measured on the
/// image:
///
/// | matte | how |
/// |---|---|
/// | skin | each face's oval minus eyes, brows and lips, plus the people's pixels within the chroma of that face's skin (neck, arms, hands) |
/// | hair | inside the person mask, around the head above the chin line, outside the face oval, not skin-coloured, close to the colour above the forehead |
/// | teeth | inside the inner lips of an open mouth, bright unsaturated pixels |
/// | glasses | two lens ellipses about the eyes where a thin frame-like band crosses the nose bridge and lies below an eye; thin or skin-toned frames are missed |
/// | portrait effects | the accurate person mask (soft edges) |
///
/// Skin and hair are refined along the image's edges by a guided filter. Without a face there is no skin model,
/// so skin, hair and teeth are empty; the portrait matte still covers the people. `EVALUATION.md` measures them
/// against labelled faces.
///
/// ```swift
/// let request = PVGenerateMattesRequest()
/// try VNImageRequestHandler(url: photoURL).perform([request])
/// let skin = request.semanticSegmentationMattes.first { $0.matteType == .skin }
/// try CIContext().writeHEIFRepresentation(of: CIImage(contentsOf: photoURL)!, to: outURL, format: .RGBA8,
///     colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!,
///     options: [.avSemanticSegmentationMattes: request.semanticSegmentationMattes,
///               .avPortraitEffectsMatte: request.portraitEffectsMatte!])
/// ```
public final class PVGenerateMattesRequest: VNImageBasedRequest, @unchecked Sendable {
    private struct Settings {
        var types: [AVSemanticSegmentationMatte.MatteType] = [.skin, .hair, .teeth, .glasses]
        var portrait = true
    }
    private let settings = Locked(Settings())

    /// The semantic mattes to make (default skin, hair, teeth and glasses). `.sky` is not made: asking for it makes
    /// `perform` fail with ``VNErrorCode/invalidOption``.
    public var matteTypes: [AVSemanticSegmentationMatte.MatteType] {
        get { settings.withLock { $0.types } }
        set { settings.withLock { $0.types = newValue } }
    }

    /// Whether to make the portrait effects matte too (default true).
    public var generatesPortraitEffectsMatte: Bool {
        get { settings.withLock { $0.portrait } }
        set { settings.withLock { $0.portrait = newValue } }
    }

    /// One observation per matte made, in the order of ``matteTypes`` then the portrait matte; each observation's
    /// `featureName` is the matte type's raw value, or `"portraitEffectsMatte"`.
    public var results: [VNPixelBufferObservation]? { storedResults as? [VNPixelBufferObservation] }

    /// The semantic mattes of the last perform, as AVFoundation objects (ready for
    /// ``CIImageRepresentationOption/avSemanticSegmentationMattes``).
    public var semanticSegmentationMattes: [AVSemanticSegmentationMatte] {
        (results ?? []).compactMap { observation in
            guard let name = observation.featureName, name != Self.portraitFeature else { return nil }
            return AVSemanticSegmentationMatte(type: .init(rawValue: name), image: observation.pixelBuffer)
        }
    }

    /// The portrait effects matte of the last perform, if one was made.
    public var portraitEffectsMatte: AVPortraitEffectsMatte? {
        (results ?? []).first { $0.featureName == Self.portraitFeature }.map { AVPortraitEffectsMatte(image: $0.pixelBuffer) }
    }

    static let portraitFeature = "portraitEffectsMatte"
    static let made: [AVSemanticSegmentationMatte.MatteType] = [.skin, .hair, .teeth, .glasses]

    public override class var supportedRevisions: IndexSet { IndexSet(integer: 1) }

    override func validate() throws {
        try super.validate()
        if let other = matteTypes.first(where: { !Self.made.contains($0) }) {
            throw NSError(vision: .invalidOption, "matte type \(other.rawValue) is not generated; use skin, hair, teeth or glasses")
        }
    }

    override func announce(to image: HandlerImage) {
        (try? image.analysis(of: regionOfInterest))?.expectFaceLandmarks()
    }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let analysis = try image.analysis(of: regionOfInterest)
        let (types, portrait) = settings.withLock { ($0.types, $0.portrait) }
        let segmenter = try Pipelines.segmenter(.accurate)
        // The shrunk photo only serves the semantic mattes: the portrait matte alone does not make it.
        let mask: @Sendable () throws -> MaskWork = { [regionOfInterest, types] in
            let fusion = try image.accurateFusion(of: regionOfInterest)
            return MaskWork(
                mask: try segmenter.refine(fusion, guide: analysis.image, as: .oneComponent8),
                shrunkImage: types.isEmpty ? nil : try fusion.shrunkImage())
        }
        let (work, meshes) = try analysis.withRefinedFaceMeshes(!types.isEmpty, beside: mask)
        var person = work.mask
        // Without a person the refinement returns an empty float mask.
        if person.format != .oneComponent8 { person = try person.converted(to: .oneComponent8) }
        var observations: [VNObservation] = []
        if !types.isEmpty {
            let mattes = try SemanticMattes.make(
                image: analysis.image, personMask: person, faces: meshes.compactMap(FaceRegions.init), shrunkImage: work.shrunkImage)
            for type in types {
                let pixels: PixelBuffer
                switch type {
                case .skin: pixels = mattes.skin
                case .hair: pixels = mattes.hair
                case .teeth: pixels = mattes.teeth
                default: pixels = mattes.glasses
                }
                observations.append(
                    VNPixelBufferObservation(pixelBuffer: CVPixelBuffer(pixels), featureName: type.rawValue, requestRevision: revision))
            }
        }
        if portrait {
            observations.append(
                VNPixelBufferObservation(
                    pixelBuffer: CVPixelBuffer(person), featureName: Self.portraitFeature, requestRevision: revision))
        }
        return observations
    }

    /// The accurate person mask, and the photo shrunk to its grid when its refinement left it (the mattes measure on
    /// the same grid).
    private struct MaskWork: Sendable {
        var mask: PixelBuffer
        var shrunkImage: PixelBuffer?
    }
}

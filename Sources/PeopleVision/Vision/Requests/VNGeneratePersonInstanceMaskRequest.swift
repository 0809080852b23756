import Foundation
import PVImaging
import PVPerception
import Synchronization
import PVCore

/// Separates the people in an image, each with a mask of their own, as Apple's `VNGeneratePersonInstanceMaskRequest`
/// (revision 1).
///
/// The result is one ``VNInstanceMaskObservation``: a label map (0 = background, 1…N = people, N ≤ 4) at a lower
/// resolution than the image, soft masks per person, and, through the handler that produced it, masks and cut-outs at
/// the image's size. The people come from the accurate person-segmentation level's pipeline (pose detector, pose
/// landmarker with per-person masks, the landscape selfie model, and the multi-scale body search when the selfie
/// mask shows someone the first pass missed): inside each person's region the person whose pose mask is strongest
/// takes the pixel. With more than four people, the four largest are kept. A person mask performed on the same
/// handler and region (``VNGeneratePersonSegmentationRequest`` at the accurate level) shares that work.
///
/// ```swift
/// let request = VNGeneratePersonInstanceMaskRequest()
/// let handler = VNImageRequestHandler(url: url)
/// try handler.perform([request])
/// if let result = request.results?.first {
///     let cutout = try result.generateMaskedImage(
///         ofInstances: result.allInstances, from: handler, croppedToInstancesExtent: true)
/// }
/// ```
public final class VNGeneratePersonInstanceMaskRequest: VNImageBasedRequest, @unchecked Sendable {
    /// One observation (with no instances when nobody was found).
    public var results: [VNInstanceMaskObservation]? { storedResults as? [VNInstanceMaskObservation] }

    public override class var supportedRevisions: IndexSet { IndexSet(integer: VNGeneratePersonInstanceMaskRequestRevision1) }

    override func process(_ image: HandlerImage) throws -> [VNObservation] {
        let instances = try Pipelines.segmenter(.accurate).instances(of: try image.accurateFusion(of: regionOfInterest))
        return [
            VNInstanceMaskObservation(
                instances: instances, context: image, regionOfInterest: regionOfInterest, requestRevision: revision)
        ]
    }
}

/// Revision 1 of the person instance-mask request.
public let VNGeneratePersonInstanceMaskRequestRevision1: Int = 1

/// People separated into instances, as Apple's `VNInstanceMaskObservation`.
///
/// Instance numbers run from 1, largest person first; 0 is the background. In an index set, 0 selects the
/// background: the mask is then 1 minus the masks of the instances the set leaves out. Masks at the image's size
/// (``generateScaledMaskForImage(forInstances:from:)``, ``generateMaskedImage(ofInstances:from:croppedToInstancesExtent:)``)
/// need the handler that produced the observation, still alive; they cover the request's region of interest.
public final class VNInstanceMaskObservation: VNObservation, @unchecked Sendable {
    private let instances: PersonInstances
    private weak var context: HandlerImage?
    private let regionOfInterest: CGRect

    init(instances: PersonInstances, context: HandlerImage, regionOfInterest: CGRect, requestRevision: Int) {
        self.instances = instances
        self.context = context
        self.regionOfInterest = regionOfInterest
        super.init(confidence: 1, requestRevision: requestRevision)
    }

    /// The label map (`OneComponent8`, the accurate segmentation level's grid: the region shrunk by a whole factor
    /// to at most 512 px a side): 0 for the background, k where instance k's soft mask is at least 0.5.
    public var instanceMask: CVPixelBuffer {
        let i = instances
        // The grid's size was accepted when the fusion was made, so a buffer of it can be made.
        var labels = try! PixelBuffer(width: i.width, height: i.height, format: .oneComponent8)
        let stride = labels.bytesPerRow()
        labels.withUnsafeMutableBytes { out in
            for y in 0..<i.height { for x in 0..<i.width { out[y * stride + x] = i.labels[y * i.width + x] } }
        }
        return CVPixelBuffer(labels)
    }

    /// The instances found: 1…N, empty when nobody was found.
    public var allInstances: IndexSet {
        instances.count == 0 ? IndexSet() : IndexSet(integersIn: 1...instances.count)
    }

    /// The soft mask (0…1, `OneComponent32Float`) of `instances` at the size of ``instanceMask``.
    /// - Throws: `VNErrorCode.invalidArgument` for a number that is neither 0 nor one of ``allInstances``.
    public func generateMask(forInstances instances: IndexSet) throws -> CVPixelBuffer {
        CVPixelBuffer(try gridMask(instances))
    }

    /// The soft mask of `instances` at the size of the request's region of interest, its edges refined against the
    /// image (the accurate segmentation level's colour guided filter); `OneComponent32Float`, 0…1.
    /// - Throws: `VNErrorCode.invalidArgument` for an unknown instance or a handler other than the one that produced
    ///   this observation.
    public func generateScaledMaskForImage(forInstances instances: IndexSet, from requestHandler: VNImageRequestHandler) throws
        -> CVPixelBuffer
    {
        CVPixelBuffer(try scaledMask(instances, from: requestHandler).mask)
    }

    /// The region of interest's pixels where `instances` are, transparent black elsewhere: `32BGRA`, premultiplied
    /// by the scaled mask (``generateScaledMaskForImage(forInstances:from:)``); with `cropResult`, cropped to the box
    /// of the pixels left visible.
    /// - Throws: `VNErrorCode.invalidArgument` for an unknown instance or another handler; `.invalidOperation` when
    ///   `cropResult` is asked for and the selection leaves nothing visible (there is no box to crop to).
    public func generateMaskedImage(
        ofInstances instances: IndexSet, from requestHandler: VNImageRequestHandler, croppedToInstancesExtent cropResult: Bool
    ) throws -> CVPixelBuffer {
        let (mask, image) = try scaledMask(instances, from: requestHandler)
        let W = image.width, H = image.height
        let bgra = try ErrorTranslation.translating { try image.converted(to: .bgra32) }
        var out = try ErrorTranslation.translating { try PixelBuffer(width: W, height: H, format: .bgra32) }
        let ms = mask.bytesPerRow() / 4, ss = bgra.bytesPerRow(), os = out.bytesPerRow()
        var box: (x0: Int, y0: Int, x1: Int, y1: Int) = (W, H, -1, -1)
        mask.withUnsafeBytes { mb in
            let m = mb.bindMemory(to: Float.self)
            bgra.withUnsafeBytes { src in
                out.withUnsafeMutableBytes { dst in
                    for y in 0..<H {
                        for x in 0..<W {
                            let a = min(1, max(0, m[y * ms + x]))
                            let alpha = (a * 255).rounded()
                            guard alpha > 0 else { continue }
                            let s = y * ss + 4 * x, d = y * os + 4 * x
                            for c in 0..<3 { dst[d + c] = UInt8((Float(src[s + c]) * a).rounded()) }
                            dst[d + 3] = UInt8(alpha)
                            box = (min(box.x0, x), min(box.y0, y), max(box.x1, x), max(box.y1, y))
                        }
                    }
                }
            }
        }
        guard cropResult else { return CVPixelBuffer(out) }
        guard box.x1 >= box.x0 else {
            throw NSError(vision: .invalidOperation, "the selected instances \(Array(instances)) leave no pixel visible: there is nothing to crop to")
        }
        return CVPixelBuffer(
            try ErrorTranslation.translating { try out.cropped(x: box.x0, y: box.y0, width: box.x1 - box.x0 + 1, height: box.y1 - box.y0 + 1) })
    }

    /// The selection's soft mask on the grid, as a buffer.
    private func gridMask(_ selection: IndexSet) throws -> PixelBuffer {
        let i = instances
        let values: [Float]
        do {
            values = try i.mask(selecting: Set(selection))
        } catch let e as PerceptionError {
            throw NSError(vision: .invalidArgument, "\(e.message) in this observation", underlying: e)
        }
        var mask = try ErrorTranslation.translating { try PixelBuffer(width: i.width, height: i.height, format: .oneComponent32Float) }
        let stride = mask.bytesPerRow() / 4
        mask.withUnsafeMutableBytes { raw in
            let m = raw.bindMemory(to: Float.self)
            for y in 0..<i.height { for x in 0..<i.width { m[y * stride + x] = values[y * i.width + x] } }
        }
        return mask
    }

    /// The selection's mask at the region's size, and the region's pixels.
    private func scaledMask(_ selection: IndexSet, from handler: VNImageRequestHandler) throws -> (mask: PixelBuffer, image: PixelBuffer) {
        let grid = try gridMask(selection)
        let given = try handler.prepare()
        guard let context, given === context else {
            throw NSError(vision: 
                .invalidArgument, "full-size instance masks need the VNImageRequestHandler that produced the observation, still alive")
        }
        let region = try context.analysis(of: regionOfInterest).image
        guard region.width == instances.imageWidth, region.height == instances.imageHeight else {
            throw NSError(vision: .internalError, "the handler's region is \(region.width)×\(region.height), the instances' \(instances.imageWidth)×\(instances.imageHeight)")
        }
        let mask = try ErrorTranslation.translating { try PersonSegmenter.refine(gridMask: grid, guide: region) }
        return (mask, region)
    }
}

import Foundation
import PVImaging

/// People separated into instances, as Vision's `InstanceMaskObservation` (iOS 18), converted from a
/// ``VNInstanceMaskObservation``: instance 0 is the background, 1…N the people, largest first.
///
/// Full-size masks (``generateScaledMask(for:scaledToImageFrom:)``, ``generateMaskedImage(for:imageFrom:croppedToInstancesExtent:)``)
/// need the handler that produced the observation, still alive, and the observation as that perform returned it.
/// A decoded observation keeps the label map only: its ``generateMask(for:)`` gives hard 0/1 masks from the labels,
/// and its full-size masks throw ``VisionError/invalidOperation(_:)``.
public struct InstanceMaskObservation: VisionObservation {
    public let uuid: UUID
    public let confidence: Float
    public let originatingRequestDescriptor: RequestDescriptor?
    public let timeRange: CMTimeRange?
    /// The instances found, 1…N.
    public let allInstances: IndexSet
    /// The label map (`OneComponent8`): 0 for the background, k where instance k is.
    public let allInstancesMask: PixelBufferObservation
    private var link = EngineLink<VNInstanceMaskObservation>()

    private enum CodingKeys: String, CodingKey {
        case uuid, confidence, originatingRequestDescriptor, timeRange, allInstances, allInstancesMask
    }

    /// The same instances as a `VNInstanceMaskObservation`'s; nil when it has none.
    public init?(_ observation: VNInstanceMaskObservation) {
        guard !observation.allInstances.isEmpty else { return nil }
        self.init(observation, descriptor: nil)
    }

    init(_ observation: VNInstanceMaskObservation, descriptor: RequestDescriptor?) {
        uuid = observation.uuid
        confidence = observation.confidence
        originatingRequestDescriptor = descriptor
        timeRange = observation.frameTimeRange
        allInstances = observation.allInstances
        allInstancesMask = PixelBufferObservation(
            buffer: observation.instanceMask, confidence: observation.confidence, descriptor: descriptor, timeRange: timeRange)
        link = EngineLink(observation)
    }

    /// The instances at a normalized point (lower-left origin): the one labelled there, or the background (0).
    public func instanceAtPoint(_ point: NormalizedPoint) -> IndexSet {
        let label = Int((allInstancesMask.pixel(at: point) * 255).rounded())
        return IndexSet(integer: label)
    }

    /// The soft mask (0…1, `OneComponent32Float`) of `instances` at the label map's size (0 selects the background).
    /// - Throws: ``VisionError/invalidArgument(_:)`` for a number that is neither 0 nor one of ``allInstances``.
    public func generateMask(for instances: IndexSet) throws -> CVPixelBuffer {
        if let engine = link.object {
            do { return try engine.generateMask(forInstances: instances) } catch { throw VisionError.from(error) }
        }
        for i in instances where i != 0 && !allInstances.contains(i) {
            throw VisionError.invalidArgument("instance \(i) is not one of \(Array(allInstances))")
        }
        let labels = allInstancesMask.buffer.pixelBuffer
        do {
            var mask = try PixelBuffer(width: labels.width, height: labels.height, format: .oneComponent32Float)
            let ls = labels.bytesPerRow(), ms = mask.bytesPerRow() / 4
            labels.withUnsafeBytes { l in
                mask.withUnsafeMutableBytes { raw in
                    let m = raw.bindMemory(to: Float.self)
                    for y in 0..<labels.height {
                        for x in 0..<labels.width { m[y * ms + x] = instances.contains(Int(l[y * ls + x])) ? 1 : 0 }
                    }
                }
            }
            return CVPixelBuffer(mask)
        } catch {
            throw VisionError.from(error)
        }
    }

    /// The soft mask of `instances` at the size of the request's region of interest, refined against the image.
    /// - Throws: ``VisionError/invalidArgument(_:)`` for an unknown instance or another handler;
    ///   ``VisionError/invalidOperation(_:)`` for a decoded observation.
    public func generateScaledMask(for instances: IndexSet, scaledToImageFrom requestHandler: ImageRequestHandler) throws
        -> CVPixelBuffer
    {
        let engine = try engineObservation()
        do {
            return try engine.generateScaledMaskForImage(forInstances: instances, from: requestHandler.engine)
        } catch {
            throw VisionError.from(error)
        }
    }

    /// The region of interest's pixels where `instances` are, transparent elsewhere (`32BGRA`, premultiplied);
    /// with `croppedToInstancesExtent`, cropped to the visible pixels' box.
    /// - Throws: as ``generateScaledMask(for:scaledToImageFrom:)``; ``VisionError/invalidOperation(_:)`` when a
    ///   crop is asked for and nothing is visible.
    public func generateMaskedImage(
        for instances: IndexSet, imageFrom requestHandler: ImageRequestHandler, croppedToInstancesExtent: Bool = false
    ) throws -> CVPixelBuffer {
        let engine = try engineObservation()
        do {
            return try engine.generateMaskedImage(
                ofInstances: instances, from: requestHandler.engine, croppedToInstancesExtent: croppedToInstancesExtent)
        } catch {
            throw VisionError.from(error)
        }
    }

    private func engineObservation() throws -> VNInstanceMaskObservation {
        guard let engine = link.object else {
            throw VisionError.invalidOperation("full-size masks need the observation as its perform returned it, not a decoded copy")
        }
        return engine
    }
}

// Person-instance patterns as sticker and photo-editing apps write them (iOS 17): every person apart, the person
// under a tap selected from the label map, a full-size mask of one person, and cut-outs.
import CoreImage
import CoreVideo
import Testing
import Vision

@Suite struct InstancePatterns {
    /// Two people side by side, facing each other: the astronaut on the left, her mirror image on the right.
    static func groupPhoto() throws -> CIImage {
        let left = try Frames.picture("astronaut.png")
        return left.oriented(.upMirrored).transformed(by: CGAffineTransform(translationX: 512, y: 0)).composited(over: left)
    }

    /// Her face in the left picture, the other's face, and the grey backdrop by the right edge of the right picture.
    static let leftFace = CGRect(x: 0.2, y: 0.65, width: 0.05, height: 0.1)
    static let rightFace = CGRect(x: 0.75, y: 0.65, width: 0.05, height: 0.1)
    static let backdrop = CGRect(x: 0.515, y: 0.9, width: 0.015, height: 0.08)

    /// The instance under a tap (normalized, lower-left origin), read from the label map; nil for the background.
    static func instance(at point: CGPoint, in observation: VNInstanceMaskObservation) -> Int? {
        let labels = observation.instanceMask
        guard CVPixelBufferLockBaseAddress(labels, .readOnly) == kCVReturnSuccess,
            let base = CVPixelBufferGetBaseAddress(labels)
        else { return nil }
        defer { CVPixelBufferUnlockBaseAddress(labels, .readOnly) }
        let width = CVPixelBufferGetWidth(labels), height = CVPixelBufferGetHeight(labels)
        let x = min(width - 1, max(0, Int(point.x * CGFloat(width))))
        let y = min(height - 1, max(0, Int((1 - point.y) * CGFloat(height))))
        let label = Int(base.load(fromByteOffset: y * CVPixelBufferGetBytesPerRow(labels) + x, as: UInt8.self))
        return label == 0 ? nil : label
    }

    @Test func everyPersonApartAndATapSelectsOne() throws {
        let photo = try Self.groupPhoto()
        let request = VNGeneratePersonInstanceMaskRequest()
        let handler = VNImageRequestHandler(ciImage: photo, options: [:])
        try handler.perform([request])
        let observation = try #require(request.results?.first)
        #expect(observation.allInstances.count == 2 && !observation.allInstances.contains(0))

        // A tap on each face selects a different person; a tap on the backdrop selects nobody.
        let left = try #require(Self.instance(at: CGPoint(x: Self.leftFace.midX, y: Self.leftFace.midY), in: observation))
        let right = try #require(Self.instance(at: CGPoint(x: Self.rightFace.midX, y: Self.rightFace.midY), in: observation))
        #expect(left != right)
        #expect(Self.instance(at: CGPoint(x: Self.backdrop.midX, y: Self.backdrop.midY), in: observation) == nil)

        // The left person's full-size mask covers her, not the other.
        let mask = try observation.generateScaledMaskForImage(forInstances: IndexSet(integer: left), from: handler)
        #expect(CVPixelBufferGetWidth(mask) == 1024 && CVPixelBufferGetHeight(mask) == 512)
        #expect(CVPixelBufferGetPixelFormatType(mask) == kCVPixelFormatType_OneComponent32Float)
        let onHer = try Frames.mean(of: mask, in: Self.leftFace), onTheOther = try Frames.mean(of: mask, in: Self.rightFace)
        #expect(onHer > 0.8 && onTheOther < 0.1, "\(onHer) \(onTheOther)")
    }

    @Test func stickersCutOutOfTheBackground() throws {
        let photo = try Self.groupPhoto()
        let request = VNGeneratePersonInstanceMaskRequest()
        let handler = VNImageRequestHandler(ciImage: photo, options: [:])
        try handler.perform([request])
        let observation = try #require(request.results?.first)
        let everyone = try observation.generateMaskedImage(ofInstances: observation.allInstances, from: handler, croppedToInstancesExtent: false)
        #expect(CVPixelBufferGetWidth(everyone) == 1024 && CVPixelBufferGetPixelFormatType(everyone) == kCVPixelFormatType_32BGRA)
        // Opaque on the people, transparent on the backdrop.
        #expect(try Frames.meanColor(of: everyone, in: Self.leftFace).w > 200 && (try Frames.meanColor(of: everyone, in: Self.rightFace).w) > 200)
        #expect(try Frames.meanColor(of: everyone, in: Self.backdrop).w < 10)

        // One person's sticker, cropped to them: about their half of the picture (a soft edge may reach a little past).
        for instance in observation.allInstances {
            let sticker = try observation.generateMaskedImage(ofInstances: IndexSet(integer: instance), from: handler, croppedToInstancesExtent: true)
            #expect(CVPixelBufferGetWidth(sticker) <= 540 && CVPixelBufferGetHeight(sticker) <= 512, "\(CVPixelBufferGetWidth(sticker))")
            let asImage = CIImage(cvPixelBuffer: sticker)
            #expect(asImage.extent.width == CGFloat(CVPixelBufferGetWidth(sticker)))
        }
        // The soft union of both on the request's grid is brighter on each person than on the sky.
        let union = try observation.generateMask(forInstances: observation.allInstances)
        #expect(try Frames.mean(of: union, in: Self.leftFace) > 0.8 && (try Frames.mean(of: union, in: Self.rightFace)) > 0.8)
        #expect(try Frames.mean(of: union, in: Self.backdrop) < 0.1)
    }
}

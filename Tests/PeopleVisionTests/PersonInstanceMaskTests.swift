import Foundation
import PeopleVision
import PVImaging
import PVTestSupport
import Testing

/// The person instance-mask request and its observation, through the public API (plus PVImaging for pixels).
@Suite struct PersonInstanceMaskTests {
    /// The astronaut twice, side by side (1024×512): two people, one in each half.
    static func twoAstronauts() throws -> PixelBuffer {
        let astronaut = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels.converted(to: .rgba32)
        return try astronaut.pasted(onto: 1024, 512, at: [(0, 0), (512, 0)], fill: 0)
    }

    static func perform(_ image: PixelBuffer, configure: (VNGeneratePersonInstanceMaskRequest) -> Void = { _ in }) throws
        -> (VNInstanceMaskObservation, VNImageRequestHandler)
    {
        let handler = VNImageRequestHandler(cvPixelBuffer: CVPixelBuffer(image))
        let request = VNGeneratePersonInstanceMaskRequest()
        configure(request)
        try handler.perform([request])
        #expect(request.results?.count == 1)
        return (try #require(request.results?.first), handler)
    }

    /// A one-component buffer's values as floats, row-major without padding.
    static func values(_ buffer: CVPixelBuffer) throws -> [Float] {
        let p = try buffer.pixelBuffer.converted(to: .oneComponent32Float)
        let s = p.bytesPerRow() / 4
        return p.withUnsafeBytes { raw in
            let f = raw.bindMemory(to: Float.self)
            return (0..<(p.width * p.height)).map { f[($0 / p.width) * s + $0 % p.width] }
        }
    }

    /// How many indices of `n` fail `ok`.
    static func failures(_ n: Int, _ ok: (Int) -> Bool) -> Int {
        var bad = 0
        for i in 0..<n where !ok(i) { bad += 1 }
        return bad
    }

    /// The label map's bytes, row-major without padding.
    static func labels(_ observation: VNInstanceMaskObservation) -> (values: [UInt8], width: Int, height: Int) {
        let m = observation.instanceMask
        #expect(CVPixelBufferGetPixelFormatType(m) == kCVPixelFormatType_OneComponent8)
        let p = m.pixelBuffer, s = p.bytesPerRow()
        let v = p.withUnsafeBytes { raw in (0..<(p.width * p.height)).map { raw[($0 / p.width) * s + $0 % p.width] } }
        return (v, p.width, p.height)
    }

    @Test func twoPeopleAreTwoInstancesEachInTheirHalf() throws {
        let (result, _) = try Self.perform(try Self.twoAstronauts())
        #expect(result.allInstances == IndexSet(integersIn: 1...2))
        let (labels, w, h) = Self.labels(result)
        // The label map is the accurate level's grid: 1024×512 shrunk by a whole factor.
        #expect(w * 512 == h * 1024 && w <= 512 && w >= 256)
        var left = [0, 0, 0], right = [0, 0, 0]
        for y in 0..<h {
            for x in 0..<w where labels[y * w + x] <= 2 {
                if x < w / 2 { left[Int(labels[y * w + x])] += 1 } else { right[Int(labels[y * w + x])] += 1 }
            }
        }
        #expect(labels.allSatisfy { $0 <= 2 })
        // Each person is one instance, on their own side of the image.
        let (l, r) = left[1] > left[2] ? (1, 2) : (2, 1)
        #expect(left[l] > w * h / 10 && right[r] > w * h / 10, "left \(left), right \(right)")
        #expect(left[r] == 0 && right[l] == 0, "an instance crosses into the other person's half: left \(left), right \(right)")
        // Largest first.
        #expect(left[1] + right[1] >= left[2] + right[2])

        // The union of the instances is the accurate person mask of the same image (the soft masks sum to it).
        let both = try Self.values(try result.generateMask(forInstances: result.allInstances))
        let one = try Self.values(try result.generateMask(forInstances: IndexSet(integer: 1)))
        let two = try Self.values(try result.generateMask(forInstances: IndexSet(integer: 2)))
        let overlaps = Self.failures(one.count) { one[$0] == 0 || two[$0] == 0 }
        #expect(overlaps == 0, "instances overlap")
        let unions = Self.failures(both.count) { abs(both[$0] - min(1, one[$0] + two[$0])) <= 1e-6 }
        #expect(unions == 0)
        // Labels are where an instance's own soft mask reaches 0.5.
        let misplaced = Self.failures(labels.count) { i in
            let expected: UInt8 = one[i] >= 0.5 ? 1 : two[i] >= 0.5 ? 2 : 0
            return labels[i] == expected
        }
        #expect(misplaced == 0)
    }

    @Test func backgroundInTheSetSelectsTheComplement() throws {
        let (result, _) = try Self.perform(try Self.twoAstronauts())
        let one = try Self.values(try result.generateMask(forInstances: IndexSet(integer: 1)))
        let two = try Self.values(try result.generateMask(forInstances: IndexSet(integer: 2)))
        let background = try Self.values(try result.generateMask(forInstances: IndexSet(integer: 0)))
        let backgroundAndOne = try Self.values(try result.generateMask(forInstances: IndexSet([0, 1])))
        let everything = try Self.values(try result.generateMask(forInstances: IndexSet([0, 1, 2])))
        let nothing = try Self.values(try result.generateMask(forInstances: IndexSet()))
        let complement = Self.failures(background.count) { abs(background[$0] - (1 - one[$0] - two[$0])) <= 1e-6 }
        #expect(complement == 0)
        let withOne = Self.failures(backgroundAndOne.count) { abs(backgroundAndOne[$0] - (1 - two[$0])) <= 1e-6 }
        #expect(withOne == 0)
        #expect(everything.allSatisfy { $0 == 1 })
        #expect(nothing.allSatisfy { $0 == 0 })
        #expect(background.contains { $0 == 1 } && background.contains { $0 < 0.5 })
    }

    @Test func unknownInstancesAndOtherHandlersAreInvalidArguments() throws {
        let image = try Self.twoAstronauts()
        let (result, handler) = try Self.perform(image)
        func code(_ body: () throws -> Void) -> Int? {
            do { try body(); return nil } catch let e as NSError {
                #expect(e.domain == VNErrorDomain)
                return e.code
            }
        }
        let invalid = VNErrorCode.invalidArgument.rawValue
        #expect(code { _ = try result.generateMask(forInstances: IndexSet(integer: 3)) } == invalid)
        #expect(code { _ = try result.generateScaledMaskForImage(forInstances: IndexSet(integer: 3), from: handler) } == invalid)
        // The same pixels through another handler: not the handler that produced the observation.
        let other = VNImageRequestHandler(cvPixelBuffer: CVPixelBuffer(image))
        #expect(code { _ = try result.generateScaledMaskForImage(forInstances: IndexSet(integer: 1), from: other) } == invalid)
        #expect(
            code { _ = try result.generateMaskedImage(ofInstances: IndexSet(integer: 1), from: other, croppedToInstancesExtent: false) }
                == invalid)
        // Nothing selected leaves nothing to crop to.
        #expect(
            code { _ = try result.generateMaskedImage(ofInstances: IndexSet(), from: handler, croppedToInstancesExtent: true) }
                == VNErrorCode.invalidOperation.rawValue)
        // The right handler works.
        #expect(code { _ = try result.generateScaledMaskForImage(forInstances: IndexSet(integer: 1), from: handler) } == nil)
    }

    @Test func scaledMaskAndCutoutAreImageSized() throws {
        let image = try Self.twoAstronauts()
        let (result, handler) = try Self.perform(image)
        let grid = try Self.values(try result.generateMask(forInstances: IndexSet(integer: 2)))
        let (_, w, h) = Self.labels(result)
        let scaled = try result.generateScaledMaskForImage(forInstances: IndexSet(integer: 2), from: handler)
        #expect(CVPixelBufferGetPixelFormatType(scaled) == kCVPixelFormatType_OneComponent32Float)
        #expect(CVPixelBufferGetWidth(scaled) == 1024 && CVPixelBufferGetHeight(scaled) == 512)
        let full = try Self.values(scaled)
        #expect(full.allSatisfy { $0 >= 0 && $0 <= 1 })
        // It is the grid mask brought to full size: at 0.5 they agree away from the edges.
        var agree = 0, total = 0
        for y in 0..<512 {
            for x in 0..<1024 {
                let g = grid[min(h - 1, y * h / 512) * w + min(w - 1, x * w / 1024)]
                guard g < 0.2 || g > 0.8 else { continue }
                total += 1
                if (g > 0.5) == (full[y * 1024 + x] >= 0.5) { agree += 1 }
            }
        }
        #expect(Double(agree) / Double(total) > 0.99, "\(agree) of \(total)")

        // The cutout: the photo premultiplied by the scaled mask, transparent black elsewhere.
        let cutout = try result.generateMaskedImage(ofInstances: IndexSet(integer: 2), from: handler, croppedToInstancesExtent: false)
        #expect(CVPixelBufferGetPixelFormatType(cutout) == kCVPixelFormatType_32BGRA)
        let bgra = cutout.pixelBuffer, rgba = try image.converted(to: .rgba32)
        #expect(bgra.width == 1024 && bgra.height == 512)
        var wrong = 0, visible = 0
        bgra.withUnsafeBytes { c in
            rgba.withUnsafeBytes { p in
                for y in 0..<512 {
                    for x in 0..<1024 {
                        let i = y * bgra.bytesPerRow() + 4 * x, j = y * rgba.bytesPerRow() + 4 * x
                        let a = full[y * 1024 + x]
                        let alpha = Int(c[i + 3])
                        if alpha > 0 { visible += 1 }
                        if abs(alpha - Int((a * 255).rounded())) > 1 { wrong += 1; continue }
                        // B, G, R against R, G, B, scaled by the mask.
                        for (k, from) in [2, 1, 0].enumerated() {
                            let expected = Int((Float(p[j + from]) * a).rounded())
                            if abs(Int(c[i + k]) - expected) > 1 { wrong += 1 }
                        }
                    }
                }
            }
        }
        #expect(wrong == 0 && visible > 50_000, "\(wrong) wrong pixels, \(visible) visible")
        // Cropped to the instance: within the image's right half, where that person stands.
        let cropped = try result.generateMaskedImage(ofInstances: IndexSet(integer: 2), from: handler, croppedToInstancesExtent: true)
        #expect(cropped.pixelBuffer.width <= 512 && cropped.pixelBuffer.width > 200 && cropped.pixelBuffer.height > 300)
    }

    @Test func noPeopleNoInstances() throws {
        let cat = try ImageDecoder.decode(contentsOf: try TestFiles.installed("chelsea.png")).pixels
        let (result, handler) = try Self.perform(cat)
        #expect(result.allInstances.isEmpty)
        #expect(Self.labels(result).values.allSatisfy { $0 == 0 })
        #expect(try Self.values(try result.generateScaledMaskForImage(forInstances: IndexSet(), from: handler)).allSatisfy { $0 == 0 })
        #expect(try Self.values(try result.generateMask(forInstances: IndexSet(integer: 0))).allSatisfy { $0 == 1 })
    }

    /// More than four people: the four largest are instances. Six astronauts of 256 px are too small for the
    /// whole-image pose pass (faces of about 12 px at its input), so the accurate level's search finds them.
    @Test func atMostFourInstances() throws {
        let astronaut = try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels.converted(to: .rgba32)
        let small = try astronaut.resized(width: 256, height: 256)
        let six = try small.pasted(onto: 768, 512, at: [(0, 0), (256, 0), (512, 0), (0, 256), (256, 256), (512, 256)], fill: 0)
        let (result, _) = try Self.perform(six)
        #expect(result.allInstances == IndexSet(integersIn: 1...4))
        // The person mask of the same image is not empty either.
        let segmentation = VNGeneratePersonSegmentationRequest()
        try VNImageRequestHandler(cvPixelBuffer: CVPixelBuffer(six)).perform([segmentation])
        let mask = try Self.values(try #require(segmentation.results?.first).pixelBuffer)
        #expect(mask.filter { $0 >= 0.5 }.count > 768 * 512 / 10)
    }

    /// On one handler and region, the person mask and the instances share the accurate level's work: the mask is
    /// what a handler of its own gives, whichever request runs first.
    @Test func sharingWithThePersonMaskChangesNothing() throws {
        let image = try Self.twoAstronauts()
        func mask(_ requests: (VNGeneratePersonSegmentationRequest) -> [VNRequest]) throws -> [Float] {
            let segmentation = VNGeneratePersonSegmentationRequest()
            try VNImageRequestHandler(cvPixelBuffer: CVPixelBuffer(image)).perform(requests(segmentation))
            return try Self.values(try #require(segmentation.results?.first).pixelBuffer)
        }
        let alone = try mask { [$0] }
        let after = try mask { [VNGeneratePersonInstanceMaskRequest(), $0] }
        let before = try mask { [$0, VNGeneratePersonInstanceMaskRequest()] }
        #expect(alone.count == after.count && alone.count == before.count)
        #expect(Self.failures(alone.count) { alone[$0] == after[$0] } == 0)
        #expect(Self.failures(alone.count) { alone[$0] == before[$0] } == 0)
    }

    /// Apple's subject-lifting sample pattern: the scaled mask of every instance, as a Core Image mask, puts the
    /// people over a new background.
    @Test func coreImageCompositesThePeopleOverABackdrop() throws {
        let url = try TestFiles.installed("astronaut.png")
        let request = VNGeneratePersonInstanceMaskRequest()
        let handler = VNImageRequestHandler(url: url)
        try handler.perform([request])
        let result = try #require(request.results?.first)
        let mask = CIImage(cvPixelBuffer: try result.generateScaledMaskForImage(forInstances: result.allInstances, from: handler))
        let photo = try #require(CIImage(contentsOf: url))
        let blend = CIFilter.blendWithMask()
        blend.inputImage = photo
        blend.backgroundImage = CIImage(color: CIColor(red: 0, green: 1, blue: 0)).cropped(to: photo.extent)
        blend.maskImage = mask
        let out = CITest.rgba(try #require(blend.outputImage)), m = CITest.rgba(mask), p = CITest.rgba(photo)
        var person = 0, backdrop = 0, wrong = 0
        for y in out.indices {
            for x in out[y].indices {
                if m[y][x].x == 255 {
                    person += 1
                    if (0..<3).contains(where: { abs(Int(out[y][x][$0]) - Int(p[y][x][$0])) > 1 }) { wrong += 1 }
                } else if m[y][x].x == 0 {
                    backdrop += 1
                    if out[y][x] != SIMD4(0, 255, 0, 255) { wrong += 1 }
                }
            }
        }
        #expect(wrong == 0 && person > 50_000 && backdrop > 50_000, "\(wrong) wrong of \(person) person and \(backdrop) backdrop pixels")
    }

    @Test func regionOfInterestIsHonoured() throws {
        let image = try Self.twoAstronauts()
        // Lower-left origin: the left half holds one astronaut.
        let (result, handler) = try Self.perform(image) { $0.regionOfInterest = CGRect(x: 0, y: 0, width: 0.5, height: 1) }
        #expect(result.allInstances == IndexSet(integer: 1))
        let scaled = try result.generateScaledMaskForImage(forInstances: result.allInstances, from: handler)
        #expect(CVPixelBufferGetWidth(scaled) == 512 && CVPixelBufferGetHeight(scaled) == 512)
        #expect(try Self.values(scaled).filter { $0 >= 0.5 }.count > 512 * 512 / 5)
    }
}

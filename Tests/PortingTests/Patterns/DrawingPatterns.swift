// Drawing patterns as iOS apps write them with Core Graphics: a skeleton overlay drawn over the photo, a model's input
// pixels drawn from a photo, a person cut out through a clip mask, face boxes in a flipped context, and a mask's bytes
// turned into an image.
import CoreGraphics
import CoreImage
import ImageIO
import Testing
import Vision

@Suite struct DrawingPatterns {
    static func loadPhoto(_ name: String) throws -> CGImage {
        guard let source = CGImageSourceCreateWithURL(try Samples.image(name) as CFURL, nil),
              let image = CGImageSourceCreateImageAtIndex(source, 0, nil)
        else { throw FrameError.noImage }
        return image
    }

    /// Straight RGBA bytes of an image's pixel (column `x`, row `y` from the top), read as apps read them.
    static func rgba(_ image: CGImage, _ x: Int, _ y: Int) -> [Int] {
        guard let data = image.dataProvider?.data, let bytes = CFDataGetBytePtr(data) else { return [] }
        let bpp = image.bitsPerPixel / 8, p = bytes + y * image.bytesPerRow + x * bpp
        return bpp == 1 ? [Int(p[0]), Int(p[0]), Int(p[0]), 255] : (0..<4).map { Int(p[$0]) }
    }

    static func bitmapContext(width: Int, height: Int) -> CGContext? {
        CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                  space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
    }

    // MARK: Skeleton overlay

    static let bones: [(VNHumanBodyPoseObservation.JointName, VNHumanBodyPoseObservation.JointName)] = [
        (.leftShoulder, .rightShoulder), (.leftShoulder, .leftElbow), (.rightShoulder, .rightElbow), (.neck, .nose),
        (.leftEye, .rightEye),
    ]

    /// The photo with the body's bones in green and its joints as red dots, drawn in image pixels (lower-left origin,
    /// which is Vision's and a bitmap context's).
    static func skeletonOverlay(photo: CGImage, body: VNHumanBodyPoseObservation) throws -> (CGImage, [CGPoint])? {
        let w = photo.width, h = photo.height
        guard let context = bitmapContext(width: w, height: h) else { return nil }
        context.draw(photo, in: CGRect(x: 0, y: 0, width: w, height: h))
        let points = try body.recognizedPoints(.all).filter { $0.value.confidence > 0.3 }
        context.setStrokeColor(CGColor(red: 0, green: 1, blue: 0, alpha: 1))
        context.setLineWidth(4)
        context.setLineCap(.round)
        for (a, b) in bones {
            guard let p = points[a], let q = points[b] else { continue }
            context.move(to: VNImagePointForNormalizedPoint(p.location, w, h))
            context.addLine(to: VNImagePointForNormalizedPoint(q.location, w, h))
        }
        context.strokePath()
        context.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        var centres: [CGPoint] = []
        for point in points.values {
            let c = VNImagePointForNormalizedPoint(point.location, w, h)
            context.fillEllipse(in: CGRect(x: c.x - 6, y: c.y - 6, width: 12, height: 12))
            centres.append(c)
        }
        guard let image = context.makeImage() else { return nil }
        return (image, centres)
    }

    @Test func skeletonOverlayDrawnWithCGContext() throws {
        let photo = try Self.loadPhoto("astronaut.png")
        let request = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(cgImage: photo).perform([request])
        let body = try #require(request.results?.first)
        let (overlay, joints) = try #require(try Self.skeletonOverlay(photo: photo, body: body))
        #expect(overlay.width == photo.width && overlay.height == photo.height)
        #expect(joints.count >= 5)
        // Each dot is red at its joint; rows of an image run top-down, the context's y runs up.
        for c in joints {
            let pixel = Self.rgba(overlay, Int(c.x), photo.height - 1 - Int(c.y))
            #expect(pixel[0] > 240 && pixel[1] < 20 && pixel[2] < 20 && pixel[3] == 255, "joint at \(c): \(pixel)")
        }
        // Far from the skeleton the photo shows through unchanged.
        #expect(zip(Self.rgba(overlay, 2, 2), Self.rgba(photo, 2, 2)).allSatisfy { abs($0 - $1) <= 1 })
    }

    // MARK: Model input

    /// The photo drawn into a 224×224 RGBX buffer the app owns, as Core ML models without an image input take it.
    static func modelInput(_ photo: CGImage, side: Int) -> [UInt8]? {
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard let context = CGContext(
                data: buffer.baseAddress, width: side, height: side, bitsPerComponent: 8, bytesPerRow: side * 4,
                space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.noneSkipLast.rawValue)
            else { return false }
            context.interpolationQuality = .high
            context.draw(photo, in: CGRect(x: 0, y: 0, width: side, height: side))
            return true
        }
        return drawn ? pixels : nil
    }

    @Test func modelInputPixelsFromAPhoto() throws {
        let photo = try Self.loadPhoto("astronaut.png")
        let side = 224
        let pixels = try #require(Self.modelInput(photo, side: side))
        // Mean green of the top and bottom thirds, in the photo and in the small input: shrinking by an area average
        // keeps means, and the memory's first row is the picture's top row.
        func photoMean(_ rows: Range<Int>) -> Double {
            var sum = 0
            for y in rows { for x in 0..<photo.width { sum += Self.rgba(photo, x, y)[1] } }
            return Double(sum) / Double(rows.count * photo.width)
        }
        func inputMean(_ rows: Range<Int>) -> Double {
            var sum = 0
            for y in rows { for x in 0..<side { sum += Int(pixels[(y * side + x) * 4 + 1]) } }
            return Double(sum) / Double(rows.count * side)
        }
        let third = photo.height / 3, inputThird = side / 3
        let top = photoMean(0..<third), bottom = photoMean((photo.height - third)..<photo.height)
        #expect(abs(top - bottom) > 10, "the test needs a photo whose top and bottom differ")
        #expect(abs(inputMean(0..<inputThird) - top) < 4)
        #expect(abs(inputMean((side - inputThird)..<side) - bottom) < 4)
        // The skipped byte of an RGBX buffer is written opaque.
        #expect(pixels[3] == 255)
    }

    // MARK: Cut-out through a clip mask

    @Test func personCutOutThroughAClipMask() throws {
        let photo = try Self.loadPhoto("astronaut.png")
        let rect = CGRect(x: 0, y: 0, width: photo.width, height: photo.height)
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .accurate
        let handler = VNImageRequestHandler(cgImage: photo)
        let faces = VNDetectFaceRectanglesRequest()
        try handler.perform([request, faces])
        let mask = try #require(request.results?.first?.pixelBuffer)
        let maskImage = CIImage(cvPixelBuffer: mask)
        let scaled = maskImage.transformed(by: CGAffineTransform(scaleX: rect.width / maskImage.extent.width,
                                                                 y: rect.height / maskImage.extent.height))
        let maskCG = try #require(CIContext().createCGImage(scaled, from: rect))
        let context = try #require(Self.bitmapContext(width: photo.width, height: photo.height))
        context.clip(to: rect, mask: maskCG)
        context.draw(photo, in: rect)
        let cutOut = try #require(context.makeImage())
        // The face shows, opaque; the top corners (background) are transparent.
        let face = try #require(faces.results?.first).boundingBox
        let centre = VNImagePointForNormalizedPoint(CGPoint(x: face.midX, y: face.midY), photo.width, photo.height)
        #expect(Self.rgba(cutOut, Int(centre.x), photo.height - 1 - Int(centre.y))[3] > 250)
        #expect(Self.rgba(cutOut, 3, 3)[3] < 5 && Self.rgba(cutOut, photo.width - 4, 3)[3] < 5)
    }

    // MARK: Face boxes in a flipped context

    @Test func faceBoxesInAFlippedContext() throws {
        let photo = try Self.loadPhoto("astronaut.png")
        let faces = VNDetectFaceRectanglesRequest()
        try VNImageRequestHandler(cgImage: photo).perform([faces])
        let face = try #require(faces.results?.first)
        let w = photo.width, h = photo.height
        // A view's top-left coordinates: flip the context once, then draw boxes as a UIKit view would.
        let flipped = try #require(Self.bitmapContext(width: w, height: h))
        flipped.translateBy(x: 0, y: CGFloat(h))
        flipped.scaleBy(x: 1, y: -1)
        let box = VNImageRectForNormalizedRect(face.boundingBox, w, h)
        let topLeftBox = CGRect(x: box.minX, y: CGFloat(h) - box.maxY, width: box.width, height: box.height)
        flipped.setStrokeColor(CGColor(red: 1, green: 1, blue: 0, alpha: 1))
        flipped.setLineWidth(3)
        flipped.stroke(topLeftBox)
        // The same box drawn in the unflipped context, in Vision's lower-left coordinates.
        let plain = try #require(Self.bitmapContext(width: w, height: h))
        plain.setStrokeColor(CGColor(red: 1, green: 1, blue: 0, alpha: 1))
        plain.setLineWidth(3)
        plain.stroke(box)
        let a = try #require(flipped.makeImage()), b = try #require(plain.makeImage())
        // The top edge is on image row `topLeftBox.minY`, in both.
        let row = Int(topLeftBox.minY.rounded()), column = Int(topLeftBox.midX)
        #expect(Self.rgba(a, column, row) == [255, 255, 0, 255])
        #expect(Self.rgba(b, column, row) == [255, 255, 0, 255])
        #expect(Self.rgba(a, column, row + 10)[3] == 0)
        var differing = 0
        for y in stride(from: 0, to: h, by: 3) { for x in stride(from: 0, to: w, by: 3) where zip(Self.rgba(a, x, y), Self.rgba(b, x, y)).contains(where: { abs($0 - $1) > 2 }) {
            differing += 1
        } }
        #expect(differing == 0)
    }

    // MARK: A mask's bytes as an image

    @Test func maskBytesBecomeAnImage() throws {
        let request = VNGeneratePersonSegmentationRequest()
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
        try VNImageRequestHandler(url: try Samples.image("astronaut.png")).perform([request])
        let mask = try #require(request.results?.first?.pixelBuffer)
        CVPixelBufferLockBaseAddress(mask, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(mask, .readOnly) }
        let width = CVPixelBufferGetWidth(mask), height = CVPixelBufferGetHeight(mask)
        let bytesPerRow = CVPixelBufferGetBytesPerRow(mask)
        let base = try #require(CVPixelBufferGetBaseAddress(mask)).assumingMemoryBound(to: UInt8.self)
        let data = Data(bytes: base, count: bytesPerRow * height)
        let provider = try #require(CGDataProvider(data: data as CFData))
        let image = try #require(CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 8, bytesPerRow: bytesPerRow,
            space: CGColorSpaceCreateDeviceGray(), bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.none.rawValue),
            provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent))
        #expect(image.width == width && image.height == height && image.alphaInfo == .none)
        for (x, y) in [(0, 0), (width / 2, height / 3), (width - 1, height - 1), (width / 3, height / 2)] {
            #expect(Self.rgba(image, x, y)[0] == Int(base[y * bytesPerRow + x]))
        }
        // A 24-bit RGB image from bytes, and its pixels back.
        let rgb = Data([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30])
        let rgbProvider = try #require(CGDataProvider(data: rgb as CFData))
        let small = try #require(CGImage(
            width: 2, height: 2, bitsPerComponent: 8, bitsPerPixel: 24, bytesPerRow: 6,
            space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.none.rawValue),
            provider: rgbProvider, decode: nil, shouldInterpolate: true,
            intent: .defaultIntent))
        #expect(Self.rgba(small, 1, 0) == [0, 255, 0, 255] && Self.rgba(small, 1, 1) == [10, 20, 30, 255])
        #expect(CFDataGetLength(small.dataProvider?.data) == small.bytesPerRow * 2)
    }
}

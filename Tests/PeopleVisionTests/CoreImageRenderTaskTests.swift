import Foundation
import PeopleVision
import Testing

@Suite("Core Image: render tasks on a thread of their own")
struct CoreImageRenderTaskTests {
    /// A blend of a noisy photo and a backdrop by a mask scaled up to it, with a blurred step: every kind of node.
    func scene() -> CIImage {
        let photo = CIImage(cvPixelBuffer: CITest.buffer(97, 61, kCVPixelFormatType_32BGRA) { x, y in
            [CITest.noise(x, y, 1), CITest.noise(x, y, 2), CITest.noise(x, y, 3), 255]
        })
        let mask = CIImage(cvPixelBuffer: CITest.buffer(9, 7, kCVPixelFormatType_OneComponent8) { x, y in [CITest.noise(x, y, 4)] })
            .transformed(by: CGAffineTransform(scaleX: 97.0 / 9, y: 61.0 / 7))
        let backdrop = CIImage(color: CIColor(red: 0.1, green: 0.5, blue: 0.9)).cropped(to: photo.extent)
            .composited(over: photo.applyingGaussianBlur(sigma: 2))
        return photo.applyingFilter("CIBlendWithMask", parameters: [
            kCIInputBackgroundImageKey: backdrop, kCIInputMaskImageKey: mask,
        ])
    }

    func bitmap(_ width: Int, _ height: Int, _ bytesPerPixel: Int) -> UnsafeMutableRawBufferPointer {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: width * height * bytesPerPixel, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0xA5)
        return memory
    }

    @Test("a bitmap task gives the bytes of render(_:toBitmap:), in 8-bit and float formats, with its figures")
    func bitmapMatchesSynchronousRender() throws {
        let image = scene(), context = CIContext()
        for (format, size) in [(CIFormat.RGBA8, 4), (.BGRA8, 4), (.RGBAf, 16), (.L8, 1)] {
            let width = 101, height = 64
            let expected = bitmap(width, height, size), actual = bitmap(width, height, size)
            defer {
                expected.deallocate()
                actual.deallocate()
            }
            context.render(
                image, toBitmap: expected.baseAddress!, rowBytes: width * size,
                bounds: CGRect(x: 0, y: 0, width: width, height: height), format: format, colorSpace: nil)
            let destination = CIRenderDestination(
                bitmapData: actual.baseAddress!, width: width, height: height, bytesPerRow: width * size, format: format)
            let task = try context.startTask(toRender: image, to: destination)
            let info = try task.waitUntilCompleted()
            #expect(Array(actual) == Array(expected), "format \(format)")
            #expect(info.pixelsProcessed == width * height && info.passCount == 1)
            #expect(info.kernelExecutionTime >= 0 && info.kernelCompileTime >= 0)
        }
    }

    @Test("from:at: renders the part of the image, as if cropped, at a point of the destination")
    func fromRectAtPoint() throws {
        let image = scene(), context = CIContext()
        let width = 40, height = 30
        let expected = bitmap(width, height, 4), actual = bitmap(width, height, 4)
        defer {
            expected.deallocate()
            actual.deallocate()
        }
        let from = CGRect(x: 20, y: 10, width: 25, height: 18), at = CGPoint(x: 5, y: 3)
        // The destination shows the working-space rectangle whose point `at` is `from`'s origin.
        context.render(
            image.cropped(to: from), toBitmap: expected.baseAddress!, rowBytes: width * 4,
            bounds: CGRect(x: 15, y: 7, width: width, height: height), format: .RGBA8, colorSpace: nil)
        let destination = CIRenderDestination(
            bitmapData: actual.baseAddress!, width: width, height: height, bytesPerRow: width * 4, format: .RGBA8)
        _ = try context.startTask(toRender: image, from: from, to: destination, at: at).waitUntilCompleted()
        #expect(Array(actual) == Array(expected))
        // The crop shows: the destination's top-left pixel lies outside `from` and is clear.
        #expect(actual[0..<4].allSatisfy { $0 == 0 })
    }

    @Test("a pixel buffer task writes what render(_:to:) writes, while the caller goes on")
    func pixelBufferMatchesSynchronousRender() throws {
        let image = scene(), context = CIContext()
        let expected = CITest.buffer(97, 61, kCVPixelFormatType_32BGRA) { _, _ in [1, 2, 3, 4] }
        let actual = CITest.buffer(97, 61, kCVPixelFormatType_32BGRA) { _, _ in [1, 2, 3, 4] }
        context.render(image, to: expected)
        let task = try context.startTask(toRender: image, to: CIRenderDestination(pixelBuffer: actual))
        // Other work on this thread meanwhile: a render of its own.
        let other = CITest.rgba(image, CGRect(x: 0, y: 0, width: 8, height: 8), context: context)
        _ = try task.waitUntilCompleted()
        #expect(other.count == 8)
        for y in 0..<61 {
            for x in 0..<97 { #expect(CITest.bytes(actual, x, y) == CITest.bytes(expected, x, y)) }
        }
    }

    @Test("an error of the render surfaces in waitUntilCompleted, the same on every call")
    func errorsSurfaceWhenWaiting() throws {
        let image = scene(), context = CIContext()
        let memory = bitmap(10, 10, 4)
        defer { memory.deallocate() }
        let short = CIRenderDestination(bitmapData: memory.baseAddress!, width: 10, height: 10, bytesPerRow: 12, format: .RGBA8)
        let task = try context.startTask(toRender: image, to: short)
        for _ in 0..<2 {
            #expect {
                _ = try task.waitUntilCompleted()
            } throws: { error in
                (error as NSError).domain == "com.apple.CoreImage"
            }
        }
        let unknown = CIRenderDestination(
            bitmapData: memory.baseAddress!, width: 10, height: 10, bytesPerRow: 40, format: CIFormat(rawValue: 99))
        #expect(throws: (any Error).self) { _ = try context.startTask(toRender: image, to: unknown).waitUntilCompleted() }
        #expect(memory.allSatisfy { $0 == 0xA5 }, "a failed render writes nothing")
    }
}

import Testing

@testable import PVImaging

/// Images large enough that the kernels split rows into parallel bands; results are checked at
/// sampled pixels against the same naive references as the small tests.
@Suite("Kernels: large images (parallel bands)")
struct KernelsParallelTests {
    @Test("tensor sampler 256×256 from 640×480, rotated, letterboxed")
    func sampler() throws {
        let image = try makeImage(640, 480, .bgra32, smoothPattern)
        let rect = RotatedRect(centerX: 330, centerY: 250, width: 500, height: 380, angle: 0.3)
        let sampler = TensorSampler(width: 256, height: 256, range: -1...1, fit: .letterbox, border: .replicate)
        var tensor = [Float](repeating: .nan, count: sampler.elementCount)
        try tensor.withUnsafeMutableBufferPointer { _ = try sampler.sample(image, rect: rect, into: $0) }
        #expect(!tensor.contains { $0.isNaN })
        // Reference on a sparse grid of output pixels (the naive reference is slow in debug builds).
        let ref = referenceTensor(
            image, rect: rect, width: 256, height: 256, range: -1...1, letterbox: true, zeroBorder: false)
        var worst = 0.0
        for j in stride(from: 0, to: 256, by: 5) {
            for i in stride(from: 0, to: 256, by: 3) {
                for k in 0..<3 {
                    let idx = (j * 256 + i) * 3 + k
                    worst = max(worst, abs(Double(tensor[idx]) - ref.tensor[idx]))
                }
            }
        }
        #expect(worst <= 1e-4)
    }

    @Test("resize, blend and conversion on 1024×768")
    func largeKernels() throws {
        let image = try makeImage(1024, 768, .rgba32, noisePattern(seed: 61))
        let small = try image.resized(width: 300, height: 200, method: .bilinear)
        for (x, y) in [(0, 0), (150, 100), (299, 199), (17, 180), (280, 3)] {
            for c in 0..<4 {
                #expect(
                    abs(readSample(small, x, y, c) - KernelsResamplingTests.bilinearRef(image, 300, 200, x, y, c))
                        <= 0.5 + 1e-3)
            }
        }
        let bg = try makeImage(1024, 768, .rgba32, noisePattern(seed: 62))
        let mask = try makeImage(1024, 768, .oneComponent8, noisePattern(seed: 63))
        let blended = try PixelBuffer.blend(foreground: image, background: bg, mask: mask)
        for (x, y) in [(0, 0), (1023, 767), (512, 384), (7, 700), (1000, 13)] {
            let m = readSample(mask, x, y) / 255
            let f = readPixel(image, x, y), b = readPixel(bg, x, y), o = readPixel(blended, x, y)
            #expect(o.0 == (b.0 + m * (f.0 - b.0)).rounded())
        }
        let yuv = try image.converted(to: .yuv420BiPlanarVideoRange)
        let back = try yuv.converted(to: .bgra32)
        let direct = try yuv.converted(to: .rgba32)
        for (x, y) in [(0, 0), (1023, 767), (512, 384), (9, 601)] {
            let a = readPixel(back, x, y), b = readPixel(direct, x, y)
            #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2)
        }
    }
}

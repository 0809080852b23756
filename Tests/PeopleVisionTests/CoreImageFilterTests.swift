import Foundation
import PVImaging
@testable import PeopleVision
import PVRender
import Testing

@Suite("Core Image: built-in filters")
struct CoreImageFilterTests {
    static let width = 37, height = 23

    /// Opaque noise images.
    func noiseImage(_ salt: Int) -> CIImage {
        CIImage(cvPixelBuffer: CITest.buffer(Self.width, Self.height, kCVPixelFormatType_32BGRA) { x, y in
            [CITest.noise(x, y, salt), CITest.noise(x, y, salt + 1), CITest.noise(x, y, salt + 2), 255]
        })
    }

    /// A mask whose four channels are independent noise (premultiplied: colour ≤ alpha).
    func maskImage() -> CIImage {
        CIImage(cvPixelBuffer: CITest.buffer(Self.width, Self.height, kCVPixelFormatType_32RGBA) { x, y in
            let a = CITest.noise(x, y, 40)
            return [min(a, CITest.noise(x, y, 41)), min(a, CITest.noise(x, y, 42)), min(a, CITest.noise(x, y, 43)), a]
        })
    }

    @Test(
        "blendWithMask / RedMask / BlueMask / AlphaMask: bg + m·(fg − bg) within 1 LSB",
        arguments: [("CIBlendWithMask", 1), ("CIBlendWithRedMask", 0), ("CIBlendWithBlueMask", 2), ("CIBlendWithAlphaMask", 3)])
    func blend(_ name: String, _ channel: Int) throws {
        let fg = noiseImage(0), bg = noiseImage(10), mask = maskImage()
        let f = CITest.rgba(fg), b = CITest.rgba(bg), m = CITest.rgba(mask)
        let filter = try #require(CIFilter(name: name))
        filter.setValue(fg, forKey: kCIInputImageKey)
        filter.setValue(bg, forKey: kCIInputBackgroundImageKey)
        filter.setValue(mask, forKey: kCIInputMaskImageKey)
        let output = try #require(filter.outputImage)
        #expect(output.extent == fg.extent)
        let out = CITest.rgba(output)
        var worst = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let w = Double(m[y][x][channel]) / 255
                for c in 0..<4 {
                    let expected = Double(b[y][x][c]) + w * (Double(f[y][x][c]) - Double(b[y][x][c]))
                    worst = max(worst, abs(Int(out[y][x][c]) - Int(expected.rounded())))
                }
            }
        }
        #expect(worst <= 1)
    }

    @Test("the type-safe factories compile as on Apple and match the string API")
    func typeSafeFactories() {
        let fg = noiseImage(0), bg = noiseImage(10), mask = maskImage()
        let f = CIFilter.blendWithRedMask()
        f.inputImage = fg
        f.backgroundImage = bg
        f.maskImage = mask
        let named = fg.applyingFilter(
            "CIBlendWithRedMask", parameters: [kCIInputBackgroundImageKey: bg, kCIInputMaskImageKey: mask])
        #expect(CITest.rgba(f.outputImage!) == CITest.rgba(named))
        #expect(f.inputKeys == [kCIInputImageKey, kCIInputBackgroundImageKey, kCIInputMaskImageKey])
        #expect(f.value(forKey: kCIInputMaskImageKey) as? CIImage === mask)
        #expect(CIFilter.blendWithMask().name == "CIBlendWithMask")
        #expect(CIFilter.blendWithAlphaMask().outputImage == nil)  // no inputs yet
        #expect(CIFilter(name: "CINoSuchFilter") == nil)
        #expect(fg.applyingFilter("CINoSuchFilter").extent.isNull)
    }

    @Test("a one-component mask blends with mask/red mask; the alpha variant shows only the input")
    func greyMask() {
        let fg = noiseImage(0), bg = noiseImage(10)
        let mask = CIImage(cvPixelBuffer: CITest.buffer(Self.width, Self.height, kCVPixelFormatType_OneComponent8) { x, _ in [x < 18 ? 255 : 0] })
        let green = CIFilter.blendWithMask(), alpha = CIFilter.blendWithAlphaMask()
        for f in [green, alpha] {
            f.inputImage = fg
            f.backgroundImage = bg
            f.maskImage = mask
        }
        let (f, b) = (CITest.rgba(fg), CITest.rgba(bg))
        let g = CITest.rgba(green.outputImage!), a = CITest.rgba(alpha.outputImage!)
        #expect(g[5][3] == f[5][3] && g[5][30] == b[5][30])
        #expect(a[5][3] == f[5][3] && a[5][30] == f[5][30])
    }

    @Test("a small mask scaled to the image extent composites a person over a background")
    func scaledMaskComposite() {
        // 4 × 2 mask: left half 1, right half 0; scaled ×8 to a 32 × 16 frame.
        let frame = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 16))
        let background = CIImage(color: .blue).cropped(to: frame.extent)
        let mask = CIImage(cvPixelBuffer: CITest.buffer(4, 2, kCVPixelFormatType_OneComponent8) { x, _ in [x < 2 ? 255 : 0] })
            .transformed(by: CGAffineTransform(scaleX: 8, y: 8))
        let out = CITest.rgba(frame.applyingFilter("CIBlendWithRedMask", parameters: [
            kCIInputBackgroundImageKey: background, kCIInputMaskImageKey: mask,
        ]))
        #expect(out[8][4] == SIMD4(255, 0, 0, 255))
        #expect(out[8][28] == SIMD4(0, 0, 255, 255))
        #expect(out[8][15][0] > 100 && out[8][15][2] > 0)  // soft edge in between
    }

    @Test("gammaAdjust: 255·(v/255)^power per colour channel, alpha kept")
    func gamma() {
        let ramp = CIImage(cvPixelBuffer: CITest.buffer(256, 1, kCVPixelFormatType_32RGBA) { x, _ in
            [UInt8(x), UInt8(255 - x), UInt8(x / 2), 255]
        })
        for power: Float in [0.5, 2.2] {
            let f = CIFilter.gammaAdjust()
            f.inputImage = ramp
            f.power = power
            #expect(f.power == power)
            let out = CITest.rgba(f.outputImage!)[0]
            for x in 0..<256 {
                func expected(_ v: Int) -> Int { Int((255 * pow(Double(v) / 255, Double(power))).rounded()) }
                #expect(abs(Int(out[x][0]) - expected(x)) <= 1 && abs(Int(out[x][1]) - expected(255 - x)) <= 1)
                #expect(abs(Int(out[x][2]) - expected(x / 2)) <= 1 && out[x][3] == 255)
            }
        }
        #expect(CIFilter.gammaAdjust().power == 1)
    }

    @Test("maximumComponent: grey max(r, g, b)")
    func maximumComponent() {
        let image = noiseImage(3)
        let f = CIFilter.maximumComponent()
        f.inputImage = image
        let (input, out) = (CITest.rgba(image), CITest.rgba(f.outputImage!))
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let p = input[y][x], m = max(p[0], p[1], p[2])
                #expect(out[y][x] == SIMD4(m, m, m, 255))
            }
        }
    }

    @Test("sourceOverCompositing: fg + bg·(1 − fg.alpha)")
    func sourceOver() {
        // Premultiplied BGRA foreground with alpha 128 over an opaque background.
        let fg = CIImage(cvPixelBuffer: CITest.buffer(2, 2, kCVPixelFormatType_32BGRA) { _, _ in [0, 0, 100, 128] })
        let bg = CIImage(cvPixelBuffer: CITest.buffer(2, 2, kCVPixelFormatType_32BGRA) { _, _ in [200, 50, 10, 255] })
        let f = CIFilter.sourceOverCompositing()
        f.inputImage = fg
        f.backgroundImage = bg
        let p = CITest.rgba(f.outputImage!)[0][0]
        let k = 1 - 128.0 / 255
        let expected = SIMD4<UInt8>(UInt8((100 + 10 * k).rounded()), UInt8((50 * k).rounded()), UInt8((200 * k).rounded()), 255)
        #expect(CITest.maxDifference(p, expected) <= 1)
        #expect(CITest.rgba(fg.composited(over: bg)) == CITest.rgba(f.outputImage!))
    }

    @Test("lanczosScaleTransform: output size w·scale·aspectRatio × h·scale; constants stay constant")
    func lanczos() throws {
        let flat = CIImage(color: CIColor(red: 0.2, green: 0.6, blue: 1)).cropped(to: CGRect(x: 0, y: 0, width: 100, height: 80))
        let f = CIFilter.lanczosScaleTransform()
        f.inputImage = flat
        f.scale = 0.5
        #expect(f.aspectRatio == 1)
        #expect(f.outputImage!.extent == CGRect(x: 0, y: 0, width: 50, height: 40))
        f.aspectRatio = 2
        #expect(f.outputImage!.extent == CGRect(x: 0, y: 0, width: 100, height: 40))
        f.scale = 0.37
        f.aspectRatio = 1
        let out = try #require(f.outputImage)
        #expect(out.extent == CGRect(x: 0, y: 0, width: 37, height: 30))
        for row in CITest.rgba(out) {
            for p in row { #expect(CITest.maxDifference(p, SIMD4(51, 153, 255, 255)) <= 1) }
        }
        // Upscaling a ramp stays monotonic and keeps its ends.
        let ramp = CIImage(cvPixelBuffer: CITest.buffer(16, 1, kCVPixelFormatType_OneComponent8) { x, _ in [UInt8(x * 17)] })
        let up = CITest.rgba(ramp.applyingFilter("CILanczosScaleTransform", parameters: [kCIInputScaleKey: 4]))[0].map { Int($0[0]) }
        #expect(up.count == 64)
        #expect(abs(up[0] - 0) <= 2 && abs(up[63] - 255) <= 2)
        #expect(zip(up, up.dropFirst()).allSatisfy { $1 >= $0 - 1 })
    }

    @Test("gaussianBlur: sigma = radius; the extent grows by ceil(3·sigma); impulses spread and sum to 1")
    func gaussianBlur() throws {
        let impulse = CIImage(cvPixelBuffer: CITest.floatBuffer(21, 21, half: false) { x, y in x == 10 && y == 10 ? 1 : 0 })
        let f = CIFilter.gaussianBlur()
        #expect(f.radius == 10)
        f.inputImage = impulse
        f.radius = 2
        let out = try #require(f.outputImage)
        #expect(out.extent == CGRect(x: -6, y: -6, width: 33, height: 33))
        #expect(impulse.applyingGaussianBlur(sigma: 2).extent == out.extent)
        #expect(CIImage(color: .red).applyingGaussianBlur(sigma: 3).extent.isInfinite)
        let values = CITest.rgbaFloat(out, impulse.extent)
        // The impulse's grey spreads; alpha is 1 inside the input, fading only near its edges.
        var sum: Float = 0
        for row in values { for p in row { sum += p[0] } }
        #expect(abs(sum - 1) < 1e-3)
        let g = { (d: Float) in exp(-d * d / 8) }
        let peak = values[10][10][0]
        #expect(abs(values[10][12][0] / peak - g(2)) < 1e-3)
        #expect(abs(values[8][10][0] / peak - g(2)) < 1e-3)
        #expect(abs(values[10][10][3] - 1) < 1e-4 && values[0][0][3] < 0.9)
        // Outside the input the blur fades to clear.
        #expect(CITest.rgbaFloat(out, CGRect(x: -6, y: 10, width: 1, height: 1))[0][0][3] < 0.01)
    }

    @Test("wide blurs run on a reduced grid within 1/255 of the exact blur, edges included, and any region gives the same pixels")
    func wideBlurOnAReducedGrid() throws {
        // Hard edges, a gradient, noise and a translucent hole: what a photo's backdrop blur meets.
        let (w, h) = (201, 143)
        let image = CIImage(cvPixelBuffer: CITest.buffer(w, h, kCVPixelFormatType_32BGRA) { x, y in
            let hole = (x - 140) * (x - 140) + (y - 50) * (y - 50) < 700
            let a: UInt8 = hole ? 60 : 255
            let b = UInt8(min(Int(a), x < 100 ? 255 : 20)), g = UInt8(min(Int(a), y * 255 / h))
            return [b, g, min(CITest.noise(x, y, 3), a), a]
        })
        func render(_ blurred: CIImage, _ rect: CGRect, exact: Bool) -> [[SIMD4<Float>]] {
            guard exact else { return CITest.rgbaFloat(blurred, rect) }
            RenderShortcuts.decimatesWideBlurs.store(false, ordering: .relaxed)
            defer { RenderShortcuts.decimatesWideBlurs.store(true, ordering: .relaxed) }
            return CITest.rgbaFloat(blurred, rect)
        }
        for sigma in [16.0, 23.5, 40.0] {
            for clamped in [false, true] {
                let blurred = clamped
                    ? image.clampedToExtent().applyingGaussianBlur(sigma: sigma).cropped(to: image.extent)
                    : image.applyingGaussianBlur(sigma: sigma)
                let rect = blurred.extent
                let reduced = render(blurred, rect, exact: false), exact = render(blurred, rect, exact: true)
                var worst: Float = 0, total: Float = 0
                for (r, e) in zip(reduced.joined(), exact.joined()) {
                    let diff = r - e
                    let d = max(abs(diff[0]), abs(diff[1]), abs(diff[2]), abs(diff[3]))
                    worst = max(worst, d)
                    total += d
                }
                let mean = total / Float(reduced.joined().count)
                #expect(worst < 1 / 255 && mean < 0.2 / 255, "sigma \(sigma), clamped \(clamped): worst \(worst * 255)/255, mean \(mean * 255)/255")
                // A region rendered on its own: the blocks are anchored to the grid, not to the region.
                let part = CGRect(x: rect.minX + 37, y: rect.minY + 11, width: 90, height: 70)
                let alone = CITest.rgbaFloat(blurred, part)
                let inFull = reduced[(Int(rect.maxY) - Int(part.maxY))..<(Int(rect.maxY) - Int(part.minY))].map {
                    Array($0[(Int(part.minX - rect.minX))..<(Int(part.maxX - rect.minX))])
                }
                #expect(alone == inFull, "sigma \(sigma), clamped \(clamped): a region differs from the whole render")
            }
        }
        #expect(blurDecimation(sigma: 15.9) == nil && blurDecimation(sigma: 16) == 4 && blurDecimation(sigma: 32) == 8)
        #expect(blurDecimation(sigma: 100) == 16 && blurDecimation(sigma: 5000) == 64)
    }

    @Test("CIColorMatrix by name: output channel i = dot(vector_i, rgba) + bias_i")
    func colorMatrix() throws {
        let image = CIImage(cvPixelBuffer: CITest.buffer(1, 1, kCVPixelFormatType_32RGBA) { _, _ in [200, 100, 50, 255] })
        let f = try #require(CIFilter(name: "CIColorMatrix"))
        f.setValue(image, forKey: kCIInputImageKey)
        f.setValue(CIVector(x: 0, y: 1, z: 0, w: 0), forKey: "inputRVector")  // R ← G
        f.setValue(CIVector(x: 0, y: 0, z: 0, w: 0), forKey: "inputGVector")
        f.setValue(CIVector(x: 0.5, y: 0, z: 0, w: 0), forKey: "inputBVector")  // B ← R/2
        f.setValue(CIVector(x: 0, y: 0.1, z: 0, w: 0), forKey: "inputBiasVector")  // G ← 0.1
        let p = CITest.rgba(try #require(f.outputImage))[0][0]
        #expect(CITest.maxDifference(p, SIMD4(100, 26, 100, 255)) <= 1)
        // A matte sample: alpha from the mask's red, the background tinted.
        let tint = CIFilter.colorMatrix()
        tint.inputImage = image
        tint.aVector = CIVector(x: 1, y: 0, z: 0, w: 0)
        let q = CITest.rgba(try #require(tint.outputImage))[0][0]
        let a = 200.0 / 255
        #expect(CITest.maxDifference(q, SIMD4(UInt8((200 * a).rounded()), UInt8((100 * a).rounded()), UInt8((50 * a).rounded()), 200)) <= 1)
    }

    @Test("CIAffineTransform by name equals transformed(by:)")
    func affineTransformFilter() {
        let image = noiseImage(7)
        let t = CGAffineTransform(rotationAngle: 0.3).translatedBy(x: 3, y: -1)
        let viaFilter = image.applyingFilter("CIAffineTransform", parameters: [kCIInputTransformKey: t])
        #expect(viaFilter.extent == image.transformed(by: t).extent)
        #expect(CITest.rgba(viaFilter) == CITest.rgba(image.transformed(by: t)))
    }

    @Test("personSegmentation forwards its input and quality level to the Vision layer's hook")
    func personSegmentationHook() {
        let image = noiseImage(1)
        let f = CIFilter.personSegmentation()
        f.inputImage = image
        #expect(f.qualityLevel == 0)
        f.qualityLevel = 2
        #expect(f.value(forKey: "inputQualityLevel") as? Int == 2)
        // Task-local overrides: other tests keep using the real hook concurrently.
        CIFilter.$personSegmentationHookOverride.withValue(.init(nil)) {
            #expect(f.outputImage == nil)
        }
        CIFilter.$personSegmentationHookOverride.withValue(.init({ input, level in
            CIImage(color: CIColor(red: CGFloat(level) / 2, green: 0, blue: 0)).cropped(to: input.extent)
        })) {
            let mask = f.outputImage
            #expect(mask?.extent == image.extent)
            #expect(CITest.rgba(mask!, CGRect(x: 0, y: 0, width: 1, height: 1))[0][0] == SIMD4(255, 0, 0, 255))
        }
        CIFilter.$personSegmentationHookOverride.withValue(.init({ _, _ in throw CocoaError(.featureUnsupported) })) {
            #expect(f.outputImage == nil)
        }
    }
}

import Foundation
import PeopleVision
import Testing

/// The matte-effect patterns of Apple's people samples: cut-outs, blends over colours, blurred backgrounds.
@Suite("Core Image: masking and new built-in filters")
struct CoreImageMaskingTests {
    static let width = 24, height = 16

    /// An opaque photo of noise.
    func photo() -> CIImage {
        CIImage(cvPixelBuffer: CITest.buffer(Self.width, Self.height, kCVPixelFormatType_32BGRA) { x, y in
            [CITest.noise(x, y, 1), CITest.noise(x, y, 2), CITest.noise(x, y, 3), 255]
        })
    }

    /// A person-mask-like image: 255 in the left half (columns < 12), 0 in the right.
    func halfMask() -> CIImage {
        CIImage(cvPixelBuffer: CITest.buffer(Self.width, Self.height, kCVPixelFormatType_OneComponent8) { x, _ in
            [x < Self.width / 2 ? 255 : 0]
        })
    }

    @Test func blendWithoutBackgroundCutsOutOntoTransparent() throws {
        let filter = CIFilter.blendWithMask()
        filter.inputImage = photo()
        filter.maskImage = halfMask()
        let output = try #require(filter.outputImage)
        #expect(output.extent == CGRect(x: 0, y: 0, width: Self.width, height: Self.height))
        let source = CITest.rgba(photo()), out = CITest.rgba(output)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                #expect(out[y][x] == (x < Self.width / 2 ? source[y][x] : SIMD4(0, 0, 0, 0)))
            }
        }
    }

    @Test func blendOverAnInfiniteColourHasTheMaskExtent() throws {
        let context = CIContext()
        let mask = halfMask().transformed(by: CGAffineTransform(translationX: 5, y: 3))
        let filter = CIFilter.blendWithMask()
        filter.inputImage = CIImage(color: CIColor(red: 0, green: 0, blue: 1))
        filter.maskImage = mask
        let cutOut = try #require(filter.outputImage)
        #expect(cutOut.extent == mask.extent)
        let image = try #require(context.createCGImage(cutOut, from: cutOut.extent))
        #expect(image.width == Self.width && image.height == Self.height)
        // Colour over a finite background: the background's extent.
        filter.backgroundImage = photo()
        let overPhoto = try #require(filter.outputImage)
        #expect(overPhoto.extent == mask.extent.union(photo().extent))
        let pixels = CITest.rgba(overPhoto, CGRect(x: 5, y: 3, width: 1, height: 1))
        #expect(pixels[0][0] == SIMD4(0, 0, 255, 255))
        #expect(context.createCGImage(overPhoto, from: overPhoto.extent) != nil)
    }

    @Test func bitmapDataRoundTrips() throws {
        var bytes = [UInt8]()
        let rowBytes = Self.width * 4 + 8  // padded rows
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let a = CITest.noise(x, y, 9)
                bytes += [min(a, CITest.noise(x, y, 5)), min(a, CITest.noise(x, y, 6)), min(a, CITest.noise(x, y, 7)), a]
            }
            bytes += [UInt8](repeating: 0xEE, count: 8)
        }
        let image = CIImage(
            bitmapData: Data(bytes), bytesPerRow: rowBytes, size: CGSize(width: Self.width, height: Self.height),
            format: .RGBA8, colorSpace: nil)
        #expect(image.extent == CGRect(x: 0, y: 0, width: Self.width, height: Self.height))
        let out = CITest.rgba(image)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let i = y * rowBytes + x * 4
                #expect(out[y][x] == SIMD4(bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]))
            }
        }
        // BGRA and grey read back as the same colours.
        let bgra = CIImage(
            bitmapData: Data([30, 20, 10, 255]), bytesPerRow: 4, size: CGSize(width: 1, height: 1), format: .BGRA8,
            colorSpace: nil)
        #expect(CITest.rgba(bgra)[0][0] == SIMD4(10, 20, 30, 255))
        let grey = CIImage(
            bitmapData: Data([77]), bytesPerRow: 1, size: CGSize(width: 1, height: 1), format: .L8, colorSpace: nil)
        #expect(CITest.rgba(grey)[0][0] == SIMD4(77, 77, 77, 255))
        // Too little data: an image with no pixels rather than a crash.
        let short = CIImage(
            bitmapData: Data(count: 10), bytesPerRow: 8, size: CGSize(width: 2, height: 2), format: .RGBA8, colorSpace: nil)
        #expect(short.extent.isEmpty)
    }

    @Test func cvImageBufferIsThePixelBuffer() {
        let buffer = CITest.buffer(2, 2, kCVPixelFormatType_32BGRA) { _, _ in [1, 2, 3, 255] }
        let image = CIImage(cvImageBuffer: buffer)
        #expect(image.pixelBuffer === buffer)
        #expect(CIImage(cvImageBuffer: buffer, options: [:]).extent == CGRect(x: 0, y: 0, width: 2, height: 2))
    }

    /// Mean absolute difference between horizontal neighbours: how much detail is left.
    func detail(_ pixels: [[SIMD4<UInt8>]], columns: Range<Int>) -> Double {
        var sum = 0, n = 0
        for row in pixels.dropFirst(4).dropLast(4) {
            for x in columns.dropLast() {
                sum += abs(Int(row[x][1]) - Int(row[x + 1][1]))
                n += 1
            }
        }
        return Double(sum) / Double(n)
    }

    @Test func maskedVariableBlurBlursWhereTheMaskIsWhite() throws {
        let filter = CIFilter.maskedVariableBlur()
        #expect(filter.radius == 5)
        filter.inputImage = photo()
        filter.mask = halfMask()
        filter.radius = 6
        let output = try #require(filter.outputImage)
        #expect(output.extent == photo().extent)
        let source = CITest.rgba(photo()), out = CITest.rgba(output)
        // Far from the mask's edge: blurred on the white (left) side, untouched on the black (right) side.
        #expect(detail(out, columns: 0..<6) < detail(source, columns: 0..<6) / 3)
        for y in 0..<Self.height {
            for x in 18..<Self.width { #expect(CITest.maxDifference(out[y][x], source[y][x]) <= 1) }
        }
        let named = photo().applyingFilter("CIMaskedVariableBlur", parameters: ["inputMask": halfMask(), kCIInputRadiusKey: 6])
        #expect(CITest.rgba(named) == out)
    }

    @Test func colourFiltersFollowTheirFormulas() throws {
        let grey = CIImage(color: CIColor(red: 0.2, green: 0.4, blue: 0.6)).cropped(to: CGRect(x: 0, y: 0, width: 1, height: 1))
        let controls = CIFilter.colorControls()
        controls.inputImage = grey
        controls.saturation = 0
        let luma = 0.2126 * 0.2 + 0.7152 * 0.4 + 0.0722 * 0.6
        let desaturated = CITest.rgba(try #require(controls.outputImage))[0][0]
        #expect(abs(Double(desaturated[0]) - luma * 255) <= 1 && desaturated[0] == desaturated[2])
        controls.saturation = 1
        controls.brightness = 0.1
        controls.contrast = 2
        // (c + 0.1 − 0.5)·2 + 0.5 for c = 0.4: 0.5.
        #expect(abs(Int(CITest.rgba(try #require(controls.outputImage))[0][0][1]) - 128) <= 1)
        let exposure = CIFilter.exposureAdjust()
        exposure.inputImage = grey
        exposure.ev = 2.2  // one 2.2-power stop doubles the encoded value
        #expect(abs(Int(CITest.rgba(try #require(exposure.outputImage))[0][0][0]) - 102) <= 1)
        let clamp = CIFilter.colorClamp()
        clamp.inputImage = grey
        clamp.maxComponents = CIVector(x: 0.3, y: 0.3, z: 0.3, w: 1)
        let clamped = CITest.rgba(try #require(clamp.outputImage))[0][0]
        // 0.3·255 = 76.5 may round either way.
        #expect(clamped[0] == 51 && (76...77).contains(clamped[1]) && clamped[1] == clamped[2] && clamped[3] == 255)
        let crop = try #require(CIFilter(name: "CICrop"))
        crop.setValue(photo(), forKey: kCIInputImageKey)
        crop.setValue(CIVector(cgRect: CGRect(x: 2, y: 3, width: 4, height: 5)), forKey: "inputRectangle")
        #expect(crop.outputImage?.extent == CGRect(x: 2, y: 3, width: 4, height: 5))
        let transform = CIFilter.affineTransform()
        transform.inputImage = photo()
        transform.transform = CGAffineTransform(translationX: 3, y: 0)
        #expect(transform.outputImage?.extent == CGRect(x: 3, y: 0, width: Self.width, height: Self.height))
    }
}

/// `CIPixellate` and Core Graphics colours.
@Suite("Core Image: pixellate and CGColor")
struct CoreImagePixellateTests {
    @Test func pixellateCopiesEachSquaresCentre() throws {
        // A horizontal ramp: pixel x has grey 10·x.
        let width = 16
        let row: [UInt8] = (0..<width).map { x in UInt8(10 * x) }
        let bytes: [UInt8] = row + row + row + row
        let ramp = CIImage(
            bitmapData: Data(bytes), bytesPerRow: width,
            size: CGSize(width: width, height: 4), format: .L8, colorSpace: nil)
        let filter = CIFilter.pixellate()
        #expect(filter.scale == 8 && filter.center == CGPoint(x: 150, y: 150))
        filter.inputImage = ramp
        filter.center = .zero
        filter.scale = 4
        let output = try #require(filter.outputImage)
        #expect(output.extent == ramp.extent)
        // Square i spans x ∈ [4i, 4i + 4); its centre 4i + 2 lies in pixel 4i + 2.
        let expected: [UInt8] = (0..<width).map { x in UInt8(10 * (4 * (x / 4) + 2)) }
        for line in CITest.rgba(output) { #expect(line.map { $0[0] } == expected) }
    }

    @Test func cgColorsBecomeCIColors() {
        let rgb = CIColor(cgColor: CGColor(red: 0.1, green: 0.2, blue: 0.3, alpha: 0.4))
        #expect(rgb.red == 0.1 && rgb.green == 0.2 && rgb.blue == 0.3 && rgb.alpha == 0.4)
        let grey = CIColor(cgColor: CGColor(gray: 0.5, alpha: 1))
        #expect(grey.red == 0.5 && grey.blue == 0.5 && grey.alpha == 1)
        #expect(CGColor.clear.alpha == 0 && CGColor.white.numberOfComponents == 2)
    }
}

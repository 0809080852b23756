import Foundation
import PVImaging
@testable import PeopleVision
import PVRender
import Testing

@Suite("Core Image: CIContext rendering and export")
struct CoreImageContextTests {
    /// 6 × 4 opaque image: red increases to the right, green downwards (row 0, the top, has 0).
    func gradient() -> CIImage {
        CIImage(cvPixelBuffer: CITest.buffer(6, 4, kCVPixelFormatType_32RGBA) { x, y in [UInt8(40 * x), UInt8(60 * y), 7, 255] })
    }

    @Test("the 8-bit fast path agrees with the float path within 1 LSB on a mixed recipe")
    func fastPathMatchesFloat() {
        func noise(_ salt: Int, _ format: OSType, alpha: Bool) -> CIImage {
            CIImage(cvPixelBuffer: CITest.buffer(53, 41, format) { x, y in
                let a: UInt8 = alpha ? max(CITest.noise(x, y, salt + 9), 1) : 255
                return (0..<3).map { min(CITest.noise(x, y, salt + $0), a) } + [a]
            })
        }
        let fg = noise(0, kCVPixelFormatType_32BGRA, alpha: true), bg = noise(5, kCVPixelFormatType_32ARGB, alpha: false)
        let mask = CIImage(cvPixelBuffer: CITest.buffer(7, 5, kCVPixelFormatType_OneComponent8) { x, y in [CITest.noise(x, y, 30)] })
            .transformed(by: CGAffineTransform(scaleX: 53.0 / 7, y: 41.0 / 5))
        let recipes: [CIImage] = [
            fg.applyingFilter("CIBlendWithRedMask", parameters: [kCIInputBackgroundImageKey: bg, kCIInputMaskImageKey: mask]),
            fg.composited(over: bg.transformed(by: CGAffineTransform(translationX: 3, y: -2))),
            fg.oriented(.right).composited(over: bg.oriented(.right)).cropped(to: CGRect(x: 2, y: 3, width: 30, height: 40)),
            fg.oriented(.upMirrored).applyingFilter("CIMaximumComponent"),
            fg.applyingFilter("CIGammaAdjust", parameters: ["inputPower": 0.7]).composited(over: CIImage(color: .gray)),
            fg.applyingGaussianBlur(sigma: 1.5).applyingFilter("CIBlendWithMask", parameters: [
                kCIInputBackgroundImageKey: CIImage(color: .red), kCIInputMaskImageKey: mask.applyingGaussianBlur(sigma: 2),
            ]),
        ]
        for (i, recipe) in recipes.enumerated() {
            let rect = CGRect(x: -4, y: -3, width: 70, height: 60)
            let fast = CITest.rgba(recipe, rect)
            let exact = CITest.rgbaFloat(recipe, rect)
            var worst = 0
            for y in 0..<60 {
                for x in 0..<70 {
                    let e = exact[y][x]
                    for c in 0..<4 {
                        let expected = Int((min(max(e[c], 0), 1) * 255).rounded())
                        worst = max(worst, abs(Int(fast[y][x][c]) - expected))
                    }
                }
            }
            #expect(worst <= 1, "recipe \(i): \(worst)")
        }
    }

    @Test("an 8-bit mask and RGBA images at full size are blended straight from their bytes, to the tile path's bytes")
    func byteMaskBlend() throws {
        /// `image` rendered with and without reading stored bytes directly.
        func bothPaths(_ image: CIImage, _ rect: CGRect) -> (direct: [[SIMD4<UInt8>]], tiles: [[SIMD4<UInt8>]]) {
            let direct = CITest.rgba(image, rect)
            RenderShortcuts.blendReadsStoredBytes.store(false, ordering: .relaxed)
            defer { RenderShortcuts.blendReadsStoredBytes.store(true, ordering: .relaxed) }
            return (direct, CITest.rgba(image, rect))
        }
        // Widths that leave a tail after the eight-pixel steps; alpha 255 in runs with translucent pixels between them.
        for (w, h) in [(61, 9), (8, 3), (5, 2), (1030, 4)] {
            var straight = try PixelBuffer(width: w, height: h, format: .rgba32)
            let rowBytes = straight.bytesPerRow()
            straight.withUnsafeMutableBytes { raw in
                for y in 0..<h {
                    for x in 0..<w {
                        let a: UInt8 = (x + 3 * y) % 11 == 4 ? CITest.noise(x, y, 9) : 255
                        for c in 0..<3 { raw[y * rowBytes + 4 * x + c] = CITest.noise(x, y, c) }
                        raw[y * rowBytes + 4 * x + 3] = a
                    }
                }
            }
            let premultiplied = CIImage(cvPixelBuffer: CITest.buffer(w, h, kCVPixelFormatType_32RGBA) { x, y in
                let a: UInt8 = (x + 3 * y) % 11 == 4 ? max(CITest.noise(x, y, 9), 1) : 255
                return (0..<3).map { min(CITest.noise(x, y, $0), a) } + [a]
            })
            let backgrounds = [kCVPixelFormatType_32BGRA, kCVPixelFormatType_32RGBA].map { format in
                CIImage(cvPixelBuffer: CITest.buffer(w, h, format) { x, y in
                    [CITest.noise(x, y, 5), CITest.noise(x, y, 6), CITest.noise(x, y, 7), 255]
                })
            }
            // Every byte value occurs in the mask (the 61 × 9 case).
            let mask = CIImage(cvPixelBuffer: CITest.buffer(w, h, kCVPixelFormatType_OneComponent8) { x, y in
                [UInt8((x + w * y) * 7 % 256)]
            })
            // Moved by whole pixels, partly outside the image (the tile path there).
            let moved = mask.transformed(by: CGAffineTransform(translationX: 2, y: -1))
            let rect = CGRect(x: 0, y: 0, width: w, height: h)
            for fg in [premultiplied, CIImage(cgImage: CGImage(buffer: straight))] {
                for bg in backgrounds {
                    for m in [mask, moved] {
                        let paths = bothPaths(
                            fg.applyingFilter("CIBlendWithRedMask", parameters: [kCIInputBackgroundImageKey: bg, kCIInputMaskImageKey: m]),
                            rect)
                        #expect(paths.direct == paths.tiles, "\(w)×\(h)")
                    }
                }
            }
            // A straight-alpha foreground (a CGImage) is premultiplied on the way: fg·α/255 per channel, rounded.
            let full = CIImage(cvPixelBuffer: CITest.buffer(w, h, kCVPixelFormatType_OneComponent8) { _, _ in [255] })
            let out = CITest.rgba(
                CIImage(cgImage: CGImage(buffer: straight)).applyingFilter(
                    "CIBlendWithRedMask", parameters: [kCIInputBackgroundImageKey: backgrounds[1], kCIInputMaskImageKey: full]),
                rect)
            for y in 0..<h {
                for x in 0..<w {
                    let a = (x + 3 * y) % 11 == 4 ? Int(CITest.noise(x, y, 9)) : 255
                    for c in 0..<3 {
                        let v = Int(CITest.noise(x, y, c))
                        #expect(Int(out[y][x][c]) == (v * a + 127) / 255, "\(x),\(y),\(c)")
                    }
                    #expect(Int(out[y][x][3]) == a)
                }
            }
        }
    }

    @Test("scaled photos and masks in the 8-bit path give the words of the float tiles, edges and translucency included")
    func scaledBytesMatchTheFloatPath() throws {
        /// `image` over `rect` through the byte kernels, and with every input rendered into float tiles first.
        func bothPaths(_ image: CIImage, _ rect: CGRect) -> (kernels: [[SIMD4<UInt8>]], tiles: [[SIMD4<UInt8>]]) {
            let kernels = CITest.rgba(image, rect)
            RenderShortcuts.resamplesStoredBytes.store(false, ordering: .relaxed)
            RenderShortcuts.blendReadsStoredBytes.store(false, ordering: .relaxed)
            defer {
                RenderShortcuts.resamplesStoredBytes.store(true, ordering: .relaxed)
                RenderShortcuts.blendReadsStoredBytes.store(true, ordering: .relaxed)
            }
            return (kernels, CITest.rgba(image, rect))
        }
        let (w, h) = (37, 23)
        // Premultiplied buffers in three byte orders and a straight-alpha CGImage, each with translucent pixels.
        let translucent = { (x: Int, y: Int) -> Bool in (x + 2 * y) % 7 == 3 }
        let images: [CIImage] = [kCVPixelFormatType_32RGBA, kCVPixelFormatType_32BGRA, kCVPixelFormatType_32ARGB].map { format in
            CIImage(cvPixelBuffer: CITest.buffer(w, h, format) { x, y in
                let a: UInt8 = translucent(x, y) ? max(CITest.noise(x, y, 4), 1) : 255
                let rgb = (0..<3).map { min(CITest.noise(x, y, $0), a) }
                switch format {
                case kCVPixelFormatType_32BGRA: return [rgb[2], rgb[1], rgb[0], a]
                case kCVPixelFormatType_32ARGB: return [a] + rgb
                default: return rgb + [a]
                }
            })
        }
        func straightAlpha(_ w: Int, _ h: Int) throws -> CIImage {
            var pixels = try PixelBuffer(width: w, height: h, format: .rgba32)
            let rowBytes = pixels.bytesPerRow()
            pixels.withUnsafeMutableBytes { raw in
                for y in 0..<h {
                    for x in 0..<w {
                        for c in 0..<3 { raw[y * rowBytes + 4 * x + c] = CITest.noise(x, y, c + 10) }
                        raw[y * rowBytes + 4 * x + 3] = translucent(x, y) ? CITest.noise(x, y, 14) : 255
                    }
                }
            }
            return CIImage(cgImage: CGImage(buffer: pixels))
        }
        let straight = try straightAlpha(w, h)
        // Upscales (Apple's sample scales a backdrop and a person mask to the photo), downscales, a mirror, and a scale
        // along one axis only (whole-pixel columns), each with a fractional offset.
        let transforms = [
            CGAffineTransform(a: 3.07, b: 0, c: 0, d: 2.5, tx: 0.25, ty: -0.5),
            CGAffineTransform(a: 0.55, b: 0, c: 0, d: 0.8, tx: 1.5, ty: 0),
            CGAffineTransform(a: -1.7, b: 0, c: 0, d: 1.3, tx: 70.3, ty: 2),
            CGAffineTransform(a: 1, b: 0, c: 0, d: 2.25, tx: 0, ty: 0.75),
        ]
        for (i, source) in (images + [straight]).enumerated() {
            for t in transforms {
                let scaled = source.transformed(by: t)
                // Beyond every edge, where the bilinear taps read the clear outside.
                let rect = scaled.extent.insetBy(dx: -3, dy: -3).integral
                let paths = bothPaths(scaled, rect)
                #expect(paths.kernels == paths.tiles, "image \(i), \(t)")
            }
        }
        // Apple's sample: a photo over a scaled backdrop by a scaled Vision mask, and by one at the photo's size.
        let photo = CIImage(cvPixelBuffer: CITest.buffer(90, 60, kCVPixelFormatType_32BGRA) { x, y in
            [CITest.noise(x, y, 20), CITest.noise(x, y, 21), CITest.noise(x, y, 22), 255]
        })
        let smallMask = CIImage(cvPixelBuffer: CITest.buffer(16, 9, kCVPixelFormatType_OneComponent8) { x, y in [CITest.noise(x, y, 30)] })
        let fullMask = CIImage(cvPixelBuffer: CITest.buffer(90, 60, kCVPixelFormatType_OneComponent8) { x, y in [CITest.noise(x, y, 31)] })
        let backdrop = images[1].transformed(by: CGAffineTransform(scaleX: 90.0 / Double(w), y: 60.0 / Double(h)))
        let foregrounds = [
            photo, try straightAlpha(90, 60), straight.transformed(by: CGAffineTransform(scaleX: 90.0 / Double(w), y: 60.0 / Double(h))),
        ]
        for foreground in foregrounds {
            for mask in [smallMask.transformed(by: CGAffineTransform(scaleX: 90.0 / 16, y: 60.0 / 9)), fullMask] {
                let blended = foreground.applyingFilter(
                    "CIBlendWithRedMask", parameters: [kCIInputBackgroundImageKey: backdrop, kCIInputMaskImageKey: mask])
                let paths = bothPaths(blended, CGRect(x: 0, y: 0, width: 90, height: 60))
                #expect(paths.kernels == paths.tiles)
            }
        }
    }

    @Test("large renders are split over threads and match the per-pixel reference")
    func largeThreadedRender() {
        let w = 1200, h = 700
        let fgBuffer = CITest.buffer(w, h, kCVPixelFormatType_32BGRA) { x, y in [CITest.noise(x, y, 1), UInt8(x & 255), UInt8(y & 255), 255] }
        let bgBuffer = CITest.buffer(w, h, kCVPixelFormatType_32BGRA) { x, y in [UInt8(y & 255), CITest.noise(x, y, 2), 9, 255] }
        let maskBuffer = CITest.buffer(150, 70, kCVPixelFormatType_OneComponent8) { x, y in [UInt8((x * 7 + y * 3) & 255)] }
        let mask = CIImage(cvPixelBuffer: maskBuffer).transformed(by: CGAffineTransform(scaleX: 8, y: 10))
        let output = CIImage(cvPixelBuffer: fgBuffer).applyingFilter("CIBlendWithRedMask", parameters: [
            kCIInputBackgroundImageKey: CIImage(cvPixelBuffer: bgBuffer), kCIInputMaskImageKey: mask,
        ])
        var out: CVPixelBuffer?
        CVPixelBufferCreate(nil, w, h, kCVPixelFormatType_32BGRA, nil, &out)
        CIContext().render(output, to: out!)
        let m = CITest.rgbaFloat(mask, CGRect(x: 0, y: 0, width: w, height: h))
        var worst = 0
        for y in stride(from: 0, to: h, by: 7) {
            for x in stride(from: 0, to: w, by: 3) {
                let f = CITest.bytes(fgBuffer, x, y), b = CITest.bytes(bgBuffer, x, y), o = CITest.bytes(out!, x, y)
                let weight = Double(m[y][x][0])
                for c in 0..<4 {
                    let expected = Double(b[c]) + weight * (Double(f[c]) - Double(b[c]))
                    worst = max(worst, abs(Int(o[c]) - Int(expected.rounded())))
                }
            }
        }
        #expect(worst <= 1)
    }

    @Test("render(_:to:) writes BGRA, ARGB and RGBA buffers in their byte order, top row first")
    func renderToPixelBuffer() {
        let image = gradient()
        for (format, order) in [(kCVPixelFormatType_32BGRA, [2, 1, 0, 3]), (kCVPixelFormatType_32ARGB, [1, 2, 3, 0]), (kCVPixelFormatType_32RGBA, [0, 1, 2, 3])] {
            var out: CVPixelBuffer?
            CVPixelBufferCreate(nil, 6, 4, format, nil, &out)
            CIContext().render(image, to: out!)
            let p = CITest.bytes(out!, 5, 1)  // column 5, second row from the top
            let rgba: [UInt8] = [200, 60, 7, 255]
            #expect((0..<4).allSatisfy { p[$0] == rgba[order.firstIndex(of: $0)!] }, "\(format): \(p)")
        }
    }

    @Test("render(_:to:) into a one-component buffer writes grey; into float keeps values beyond 0…1")
    func renderToOneComponent() {
        let grey = CIImage(cvPixelBuffer: CITest.buffer(3, 3, kCVPixelFormatType_OneComponent8) { x, y in [UInt8(20 * x + 70 * y)] })
        var out: CVPixelBuffer?
        CVPixelBufferCreate(nil, 3, 3, kCVPixelFormatType_OneComponent8, nil, &out)
        CIContext().render(grey, to: out!)
        #expect(CITest.byte(out!, 2, 1) == 110)
        let depth = CIImage(cvPixelBuffer: CITest.floatBuffer(2, 2, half: false) { x, y in Float(x + 2 * y) * 1.5 })
        var f: CVPixelBuffer?
        CVPixelBufferCreate(nil, 2, 2, kCVPixelFormatType_DepthFloat32, nil, &f)
        CIContext().render(depth, to: f!)
        let base = CVPixelBufferGetBaseAddress(f!)!
        #expect(base.load(fromByteOffset: CVPixelBufferGetBytesPerRow(f!) + 4, as: Float.self) == 4.5)
    }

    @Test("render(_:to:) leaves pixels outside the image's extent untouched; bounds pick the region")
    func renderRegion() {
        var out: CVPixelBuffer?
        CVPixelBufferCreate(nil, 4, 4, kCVPixelFormatType_32BGRA, nil, &out)
        let buffer = out!
        let base = CVPixelBufferGetBaseAddress(buffer)!
        for i in 0..<(4 * CVPixelBufferGetBytesPerRow(buffer)) { base.storeBytes(of: 9, toByteOffset: i, as: UInt8.self) }
        let small = CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 2))
        CIContext().render(small, to: buffer)
        #expect(CITest.bytes(buffer, 0, 3) == SIMD4(255, 255, 255, 255))  // bottom-left is the extent
        #expect(CITest.bytes(buffer, 0, 0) == SIMD4(9, 9, 9, 9))  // top-left untouched
        // bounds: show the image region (2, 1)…(6, 5) — the buffer's top-left is (2, 4).
        let image = gradient()
        CIContext().render(image, to: buffer, bounds: CGRect(x: 2, y: 0, width: 4, height: 4), colorSpace: nil)
        #expect(CITest.bytes(buffer, 0, 0) == SIMD4(7, 0, 80, 255))  // BGRA of image pixel x = 2, top row
        #expect(CITest.bytes(buffer, 3, 3) == SIMD4(7, 180, 200, 255))  // x = 5, bottom row
    }

    @Test("createCGImage renders any rectangle; outside the extent is transparent; infinite gives nil")
    func createCGImage() throws {
        let context = CIContext()
        let image = gradient()
        let cg = try #require(context.createCGImage(image, from: CGRect(x: -1, y: 0, width: 8, height: 4)))
        #expect(cg.width == 8 && cg.height == 4)
        #expect(cg.pixel(x: 0, y: 0).a == 0)
        #expect(cg.pixel(x: 1, y: 0) == (0, 0, 7, 255))
        #expect(cg.pixel(x: 6, y: 3) == (200, 180, 7, 255))
        #expect(context.createCGImage(CIImage(color: .red), from: .infinite) == nil)
        let grey = try #require(context.createCGImage(image, from: image.extent, format: .L8, colorSpace: CITest.gray))
        #expect(grey.bitsPerPixel == 8)
    }

    @Test("PNG, JPEG and HEIF round trips through PVImaging")
    func fileRoundTrips() throws {
        let directory = try CITest.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = CIContext()
        let image = CIImage(cvPixelBuffer: CITest.buffer(64, 48, kCVPixelFormatType_32BGRA) { x, y in
            [UInt8(4 * y), 128, UInt8(4 * x), 255]
        })
        let expected = CITest.rgba(image)

        let png = directory.appendingPathComponent("a.png")
        try context.writePNGRepresentation(of: image, to: png, format: .RGBA8, colorSpace: CITest.sRGB)
        let decodedPNG = try ImageDecoder.decode(contentsOf: png).pixels
        #expect(decodedPNG.width == 64 && decodedPNG.height == 48)
        #expect(CITest.rgba(CIImage(contentsOf: png)!) == expected)

        let greyPNG = try #require(context.pngRepresentation(of: image, format: .L8, colorSpace: CITest.gray))
        #expect(try ImageDecoder.decode(data: greyPNG).pixels.format == .oneComponent8)
        let deepPNG = try #require(context.pngRepresentation(of: image, format: .Lf, colorSpace: CITest.gray))
        #expect(try ImageDecoder.info(data: deepPNG).isGray)

        for (name, write) in [
            ("b.jpg", { (url: URL) in
                try context.writeJPEGRepresentation(
                    of: image, to: url, colorSpace: CITest.sRGB, options: [kCGImageDestinationLossyCompressionQuality as CIImageRepresentationOption: 0.95])
            }),
            ("c.heic", { (url: URL) in try context.writeHEIFRepresentation(of: image, to: url, format: .RGBA8, colorSpace: CITest.sRGB) }),
        ] {
            let url = directory.appendingPathComponent(name)
            try write(url)
            let back = CITest.rgba(try #require(CIImage(contentsOf: url)))
            var worst = 0
            for y in 0..<48 { for x in 0..<64 { worst = max(worst, CITest.maxDifference(back[y][x], expected[y][x])) } }
            #expect(worst <= 24, "\(name): \(worst)")
        }
        #expect(context.jpegRepresentation(of: image, colorSpace: CITest.sRGB) != nil)
        #expect(context.heifRepresentation(of: image, format: .RGBA8, colorSpace: CITest.sRGB) != nil)
        // Nothing but the three files (no temporaries) is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["a.png", "b.jpg", "c.heic"])
    }

    @Test("HEIF with matte and depth options stores auxiliary images that read back through CIImageOption")
    func heifAuxiliaryImages() throws {
        let directory = try CITest.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = CIImage(color: CIColor(red: 0.3, green: 0.5, blue: 0.7)).cropped(to: CGRect(x: 0, y: 0, width: 64, height: 64))
        let matte = CIImage(cvPixelBuffer: CITest.buffer(32, 32, kCVPixelFormatType_OneComponent8) { x, _ in [x < 16 ? 255 : 0] })
        let hair = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 16, height: 16))
        let depth = CIImage(cvPixelBuffer: CITest.floatBuffer(16, 16, half: false) { x, _ in 1 + Float(x) / 10 })
        let url = directory.appendingPathComponent("portrait.heic")
        try CIContext().writeHEIFRepresentation(
            of: image, to: url, format: .RGBA8, colorSpace: CITest.sRGB,
            options: [.portraitEffectsMatteImage: matte, .semanticSegmentationHairMatteImage: hair, .depthImage: depth])

        let reader = try HEICReader(contentsOf: url)
        #expect(Set(reader.auxiliaryImages.map(\.type)).isSuperset(of: [.portraitEffectsMatte, .hairMatte, .depth]))

        let readMatte = try #require(CIImage(contentsOf: url, options: [.auxiliaryPortraitEffectsMatte: true]))
        #expect(readMatte.extent == CGRect(x: 0, y: 0, width: 32, height: 32))
        let m = CITest.rgba(readMatte)
        #expect(m[10][4][0] > 240 && m[10][28][0] < 15 && m[10][4][3] == 255)
        let readHair = try #require(CIImage(contentsOf: url, options: [.auxiliarySemanticSegmentationHairMatte: true]))
        #expect(abs(Int(CITest.rgba(readHair)[8][8][0]) - 128) <= 3)
        #expect(CIImage(contentsOf: url, options: [.auxiliarySemanticSegmentationTeethMatte: true]) == nil)

        let readDepth = try #require(CIImage(contentsOf: url, options: [.auxiliaryDepth: true]))
        let d = CITest.rgbaFloat(readDepth, readDepth.extent)
        #expect(abs(d[3][0][0] - 1) < 0.01 && abs(d[3][15][0] - 2.5) < 0.01)
        let disparity = try #require(CIImage(contentsOf: url, options: [.auxiliaryDisparity: true]))
        #expect(abs(CITest.rgbaFloat(disparity, disparity.extent)[3][15][0] - 0.4) < 0.01)

        // A plain JPEG has no auxiliary images.
        let jpeg = try #require(CIContext().jpegRepresentation(of: image, colorSpace: CITest.sRGB))
        #expect(CIImage(data: jpeg, options: [.auxiliaryPortraitEffectsMatte: true]) == nil)
        #expect(CIImage(data: jpeg) != nil)
    }

    @Test("exports refuse infinite or empty extents, mismatched colour spaces and unsupported options")
    func exportErrors() throws {
        let directory = try CITest.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = CIContext()
        let url = directory.appendingPathComponent("x.png")
        #expect(throws: NSError.self) {
            try context.writePNGRepresentation(of: CIImage(color: .red), to: url, format: .RGBA8, colorSpace: CITest.sRGB)
        }
        #expect(context.pngRepresentation(of: CIImage(color: .red), format: .RGBA8, colorSpace: CITest.sRGB) == nil)
        #expect(context.pngRepresentation(of: .empty(), format: .RGBA8, colorSpace: CITest.sRGB) == nil)
        let image = CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(context.pngRepresentation(of: image, format: .L8, colorSpace: CITest.sRGB) == nil)
        #expect(context.pngRepresentation(of: image, format: .RGBA8, colorSpace: CITest.gray) == nil)
        #expect(context.jpegRepresentation(of: image, colorSpace: CITest.sRGB, options: [kCGImageDestinationLossyCompressionQuality: 2]) == nil)
        #expect(context.heifRepresentation(of: image, format: .RGBA8, colorSpace: CITest.sRGB, options: [.avDepthData: 1]) == nil)
        #expect(context.jpegRepresentation(of: image, colorSpace: CITest.sRGB, options: [.portraitEffectsMatteImage: image]) == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("an unwritable destination throws a CocoaError and leaves no partial or temporary file")
    func unwritableDestination() throws {
        let directory = try CITest.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = CIContext()
        let image = CIImage(color: .green).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 8))
        let missing = directory.appendingPathComponent("no/such/dir/out.png")
        #expect(throws: CocoaError.self) {
            try context.writePNGRepresentation(of: image, to: missing, format: .RGBA8, colorSpace: CITest.sRGB)
        }
        // The destination is a non-empty directory: the final rename fails after the data was written.
        let occupied = directory.appendingPathComponent("occupied.png")
        try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: false)
        try Data([1]).write(to: occupied.appendingPathComponent("keep"))
        #expect(throws: CocoaError.self) {
            try context.writeHEIFRepresentation(of: image, to: occupied, format: .RGBA8, colorSpace: CITest.sRGB)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["occupied.png"])
        // An existing file survives a failed export untouched.
        let existing = directory.appendingPathComponent("existing.png")
        try Data([42]).write(to: existing)
        #expect(throws: NSError.self) {
            try context.writePNGRepresentation(of: CIImage(color: .red), to: existing, format: .RGBA8, colorSpace: CITest.sRGB)
        }
        #expect(try Data(contentsOf: existing) == Data([42]))
    }

    @Test("CIImage(contentsOf:) leaves EXIF orientation to the caller unless asked, as Apple does")
    func fileOrientation() throws {
        let directory = try CITest.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(CIImage(contentsOf: directory.appendingPathComponent("missing.png")) == nil)
        #expect(CIImage(data: Data([1, 2, 3])) == nil)
        let png = try #require(CIContext().pngRepresentation(of: gradient(), format: .RGBA8, colorSpace: CITest.sRGB))
        let image = try #require(CIImage(data: png))
        #expect(image.extent == CGRect(x: 0, y: 0, width: 6, height: 4))
        #expect(image.properties["PixelWidth"] as? Int == 6)
        #expect(image.properties["Orientation"] == nil)

        // A JPEG stored 16 × 8 with EXIF orientation 6 (rotate 90° clockwise to view).
        let stored = CIImage(cvPixelBuffer: CITest.buffer(16, 8, kCVPixelFormatType_32RGBA) { x, y in
            [x < 8 ? 255 : 0, y < 4 ? 255 : 0, 0, 255]
        })
        let jpeg = CITest.jpegWithOrientation(
            try #require(CIContext().jpegRepresentation(
                of: stored, colorSpace: CITest.sRGB, options: [kCGImageDestinationLossyCompressionQuality: 1.0])), 6)
        let raw = try #require(CIImage(data: jpeg))
        #expect(raw.extent == CGRect(x: 0, y: 0, width: 16, height: 8))
        #expect(raw.properties["Orientation"] as? Int == 6)
        let upright = try #require(CIImage(data: jpeg, options: [.applyOrientationProperty: true]))
        #expect(upright.extent == CGRect(x: 0, y: 0, width: 8, height: 16))
        #expect(CITest.rgba(raw.oriented(forExifOrientation: 6)) == CITest.rgba(upright))
        // Stored top-left (red + green) is shown at the top-right.
        let corner = CITest.rgba(upright)[1][6]
        #expect(corner[0] > 200 && corner[1] > 200)
    }

    @Test("render(_:to:) into a 4:2:0 buffer converts like PVImaging")
    func renderToYUV() throws {
        var out: CVPixelBuffer?
        CVPixelBufferCreate(nil, 8, 6, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &out)
        let yuv = try #require(out)
        let image = CIImage(color: CIColor(red: 0.8, green: 0.4, blue: 0.2)).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 6))
        CIContext().render(image, to: yuv)
        let back = try yuv.pixelBuffer.converted(to: .rgba32)
        back.withUnsafeBytes { bytes in
            let p = SIMD4(bytes[4 * 3], bytes[4 * 3 + 1], bytes[4 * 3 + 2], bytes[4 * 3 + 3])
            #expect(CITest.maxDifference(p, SIMD4(204, 102, 51, 255)) <= 3, "\(p)")
        }
    }

    @Test("transformed(by:highQualityDownsample:) and the context option filter before shrinking")
    func highQualityDownsample() {
        // A 1-pixel checkerboard shrunk to 0.3: bilinear samples alias, Lanczos averages to grey.
        let checker = CIImage(cvPixelBuffer: CITest.buffer(64, 64, kCVPixelFormatType_OneComponent8) { x, y in [(x + y) % 2 == 0 ? 255 : 0] })
        let shrink = CGAffineTransform(scaleX: 0.3, y: 0.3)
        let inner = CGRect(x: 2, y: 2, width: 12, height: 12)
        func spread(_ image: CIImage, _ context: CIContext = CIContext()) -> Int {
            let values = CITest.rgba(image, inner, context: context).flatMap { $0.map { Int($0[0]) } }
            return values.max()! - values.min()!
        }
        let fast = checker.transformed(by: shrink)
        let good = checker.transformed(by: shrink, highQualityDownsample: true)
        #expect(good.extent == fast.extent)
        #expect(spread(good) <= 2)
        #expect(CITest.rgba(good, inner).allSatisfy { $0.allSatisfy { abs(Int($0[0]) - 128) <= 2 } })
        #expect(spread(fast) > 100)
        #expect(spread(fast, CIContext(options: [.highQualityDownsample: true])) <= 2)
    }

    @Test("a rotation samples bilinearly around the centre; the extent is the rotated bounding box")
    func rotation() {
        let image = CIImage(cvPixelBuffer: CITest.buffer(21, 21, kCVPixelFormatType_32RGBA) { x, y in
            [UInt8(10 * x), UInt8(10 * y), 0, 255]
        })
        let t = CGAffineTransform(translationX: -10.5, y: -10.5).concatenating(CGAffineTransform(rotationAngle: .pi / 6))
            .concatenating(CGAffineTransform(translationX: 10.5, y: 10.5))
        let rotated = image.transformed(by: t)
        let side = 21 * (cos(CGFloat.pi / 6) + sin(CGFloat.pi / 6))
        #expect(abs(rotated.extent.width - side) < 1e-9 && abs(rotated.extent.midX - 10.5) < 1e-9)
        // The centre pixel maps onto itself.
        #expect(CITest.rgba(rotated, CGRect(x: 10, y: 10, width: 1, height: 1))[0][0] == SIMD4(100, 100, 0, 255))
        // Rotating back restores the interior within bilinear smoothing.
        let back = CITest.rgba(rotated.transformed(by: t.inverted()), CGRect(x: 5, y: 5, width: 11, height: 11))
        let original = CITest.rgba(image, CGRect(x: 5, y: 5, width: 11, height: 11))
        for y in 0..<11 { for x in 0..<11 { #expect(CITest.maxDifference(back[y][x], original[y][x]) <= 6) } }
    }
}

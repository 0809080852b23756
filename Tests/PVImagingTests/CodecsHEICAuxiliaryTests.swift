import Foundation
import Testing

@testable import PVImaging

/// HEIC auxiliary images: written by libheif + our ISOBMFF merge, read back through libheif.
@Suite struct CodecsHEICAuxiliaryTests {
    @Test func appleURNs() {
        let expected: [(AuxiliaryImageType, String)] = [
            (.depth, "urn:mpeg:hevc:2015:auxid:2"),
            (.alpha, "urn:mpeg:hevc:2015:auxid:1"),
            (.mpegDepth, "urn:mpeg:mpegB:cicp:systems:auxiliary:depth"),
            (.portraitEffectsMatte, "urn:com:apple:photo:2018:aux:portraiteffectsmatte"),
            (.skinMatte, "urn:com:apple:photo:2019:aux:semanticskinmatte"),
            (.hairMatte, "urn:com:apple:photo:2019:aux:semantichairmatte"),
            (.teethMatte, "urn:com:apple:photo:2019:aux:semanticteethmatte"),
            (.glassesMatte, "urn:com:apple:photo:2020:aux:semanticglassesmatte"),
            (.skyMatte, "urn:com:apple:photo:2020:aux:semanticskymatte"),
            (.hdrGainMap, "urn:com:apple:photo:2020:aux:hdrgainmap"),
        ]
        for (type, urn) in expected { #expect(type.rawValue == urn) }
        #expect(AuxiliaryImageType.appleMattes.count == 6)
    }

    /// Each matte a different size and pattern, so a mix-up shows.
    static func mattes() throws -> [HEICAuxiliaryImage] {
        let sizes = [(48, 32), (96, 64), (37, 23), (64, 64), (20, 50), (48, 32)]
        return try AuxiliaryImageType.appleMattes.enumerated().map { index, type in
            HEICAuxiliaryImage(
                type: type, pixels: try CodecFixtures.gray(width: sizes[index].0, height: sizes[index].1, seed: index))
        }
    }

    static func depthValues(width: Int = 40, height: Int = 30) throws -> PixelBuffer {
        var depth = try PixelBuffer(width: width, height: height, format: .oneComponent32Float)
        let row = depth.bytesPerRow()
        depth.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let value = 0.5 + 3.5 * Float(x) / Float(width - 1) * (0.6 + 0.4 * Float(y) / Float(height - 1))
                    bytes.storeBytes(of: value, toByteOffset: y * row + 4 * x, as: Float.self)
                }
            }
        }
        return depth
    }

    @Test("every matte and a depth map survive", arguments: [false, true])
    func everyMatteAndDepth(primaryAlpha: Bool) throws {
        let primary = try CodecFixtures.color(width: 96, height: 64, alpha: primaryAlpha)
        let mattes = try Self.mattes()
        let depth = HEICDepthMap(values: try Self.depthValues())
        let data = try ImageEncoder.encodeHEIC(primary, quality: 90, auxiliaryImages: mattes, depth: depth)

        // The primary image is intact.
        let decoded = try ImageDecoder.decode(data: data)
        #expect(decoded.pixels.width == 96 && decoded.pixels.height == 64 && decoded.hasAlpha == primaryAlpha)
        #expect(CodecFixtures.psnr(decoded.pixels, primary) > 32)

        // libheif lists every auxiliary image with its type and size.
        let reader = try HEICReader(data: data)
        var expectedTypes = mattes.map(\.type) + [.depth]
        if primaryAlpha { expectedTypes.insert(.alpha, at: 0) }
        #expect(Set(reader.auxiliaryImages.map(\.type)) == Set(expectedTypes))
        #expect(reader.auxiliaryImages.count == expectedTypes.count)
        for matte in mattes {
            let info = try #require(reader.auxiliaryImages.first { $0.type == matte.type })
            #expect(info.width == matte.pixels.width && info.height == matte.pixels.height, "\(matte.type)")
            #expect(info.bitDepth == 8)
            let pixels = try #require(try reader.auxiliaryImage(matte.type))
            #expect(pixels.format == .oneComponent8)
            #expect(CodecFixtures.psnr(pixels, matte.pixels) > 35, "\(matte.type)")
        }
        let depthInfo = try #require(reader.auxiliaryImages.first { $0.type == .depth })
        #expect(depthInfo.width == 40 && depthInfo.height == 30 && depthInfo.bitDepth == 12)

        // Depth comes back through libheif's depth API, in its original units.
        let read = try #require(try reader.depthMap())
        #expect(read.kind == .depth)
        let range = try #require(read.range)
        #expect(abs(range.lowerBound - 0.5) < 1e-6 && abs(range.upperBound - 4.0) < 1e-5)
        #expect(read.values.width == 40 && read.values.height == 30 && read.values.format == .oneComponent32Float)
        let original = try Self.depthValues()
        var worst: Float = 0
        read.values.withUnsafeBytes { a in
            original.withUnsafeBytes { b in
                for y in 0..<30 {
                    for x in 0..<40 {
                        let got = a.load(fromByteOffset: y * read.values.bytesPerRow() + 4 * x, as: Float.self)
                        let want = b.load(fromByteOffset: y * original.bytesPerRow() + 4 * x, as: Float.self)
                        worst = max(worst, abs(got - want))
                    }
                }
            }
        }
        // Lossless 12-bit codes over 0.5…4 m: at most half a step, 3.5 / 8190 m (plus float rounding).
        #expect(worst <= 3.5 / 8190 + 1e-5, "depth error \(worst) m over a 3.5 m range")
    }

    @Test func mergedContainerIsWellFormed() throws {
        let data = try ImageEncoder.encodeHEIC(
            try CodecFixtures.color(width: 64, height: 48), auxiliaryImages: [
                HEICAuxiliaryImage(type: .hairMatte, pixels: try CodecFixtures.gray(width: 32, height: 24)),
                HEICAuxiliaryImage(type: .skinMatte, pixels: try CodecFixtures.gray(width: 32, height: 24)),
            ])
        try [UInt8](data).withUnsafeBytes { bytes in
            let meta = try HEIFFile(bytes).meta
            let auxl = meta.references.filter { $0.type == "auxl" }
            #expect(auxl.count == 2)
            #expect(auxl.allSatisfy { $0.to == [meta.primaryItemID] })
            for reference in auxl {
                let types = meta.properties(of: reference.from).filter { $0[4...7].elementsEqual(Array("auxC".utf8)) }
                #expect(types.count == 1)
                #expect(meta.channelCount(of: reference.from) == 1)
            }
            let ids = meta.items.map(\.id)
            #expect(Set(ids).count == ids.count)
            // Every item's data is inside the file.
            for id in meta.locations.keys { _ = try meta.data(of: id, in: bytes) }
            #expect(!HEICCodec.looksTruncated(bytes))
        }
    }

    @Test func depthOptionsKindRangeAndFlatMaps() throws {
        let primary = try CodecFixtures.color(width: 32, height: 32)
        let values = try Self.depthValues(width: 16, height: 12)
        let disparity = try ImageEncoder.encodeHEIC(
            primary, depth: HEICDepthMap(values: values, kind: .disparity, range: 0...5))
        let read = try #require(try HEICReader(data: disparity).depthMap())
        #expect(read.kind == .disparity && read.range == 0...5)

        var flat = try PixelBuffer(width: 8, height: 8, format: .oneComponent32Float)
        let row = flat.bytesPerRow()
        flat.withUnsafeMutableBytes { bytes in
            for y in 0..<8 { for x in 0..<8 { bytes.storeBytes(of: Float(2.25), toByteOffset: y * row + 4 * x, as: Float.self) } }
        }
        let flatRead = try #require(try HEICReader(data: try ImageEncoder.encodeHEIC(primary, depth: HEICDepthMap(values: flat))).depthMap())
        #expect(flatRead.range == 2.25...2.25)
        #expect(CodecFixtures.pixel(flatRead.values, 3, 3)[0] == Int((2.25 * 65535 as Float).rounded()))
    }

    @Test func filesWithoutAuxiliaryImages() throws {
        let data = try ImageEncoder.encode(try CodecFixtures.color(width: 32, height: 32), as: .heic())
        let reader = try HEICReader(data: data)
        #expect(reader.auxiliaryImages.isEmpty)
        #expect(try reader.auxiliaryImage(.hairMatte) == nil)
        #expect(try reader.depthMap() == nil)
        #expect(try reader.primaryImage().pixels.width == 32)
        CodecFixtures.expectError(.unsupportedFormat) {
            try HEICReader(data: try ImageEncoder.encode(try CodecFixtures.gray(width: 8, height: 8), as: .png))
        }
    }

    @Test func invalidAuxiliaryInput() throws {
        let primary = try CodecFixtures.color(width: 16, height: 16)
        let matte = try CodecFixtures.gray(width: 16, height: 16)
        CodecFixtures.expectError(.invalidArgument) {
            try ImageEncoder.encodeHEIC(primary, auxiliaryImages: [HEICAuxiliaryImage(type: .alpha, pixels: matte)])
        }
        CodecFixtures.expectError(.invalidArgument) {
            try ImageEncoder.encodeHEIC(primary, auxiliaryImages: [HEICAuxiliaryImage(type: AuxiliaryImageType(rawValue: ""), pixels: matte)])
        }
        var depth = try Self.depthValues(width: 8, height: 8)
        let row = depth.bytesPerRow()
        depth.withUnsafeMutableBytes { $0.storeBytes(of: Float.nan, toByteOffset: 3 * row + 8, as: Float.self) }
        CodecFixtures.expectError(.invalidArgument, "NaN depth") {
            try ImageEncoder.encodeHEIC(primary, depth: HEICDepthMap(values: depth))
        }
        CodecFixtures.expectError(.invalidArgument, "depth outside its range") {
            try ImageEncoder.encodeHEIC(primary, depth: HEICDepthMap(values: try Self.depthValues(), range: 0...1))
        }
        CodecFixtures.expectError(.unsupportedPixelFormat) {
            try ImageEncoder.encodeHEIC(primary, depth: HEICDepthMap(values: matte))
        }
        CodecFixtures.expectError(.unsupportedPixelFormat) {
            try ImageEncoder.encodeHEIC(primary, auxiliaryImages: [HEICAuxiliaryImage(type: .hairMatte, pixels: primary)])
        }
    }

    @Test func customTypesAndHalfFloatMattes() throws {
        var half = try PixelBuffer(width: 10, height: 10, format: .oneComponent16Half)
        let row = half.bytesPerRow()
        half.withUnsafeMutableBytes { bytes in
            for y in 0..<10 { for x in 0..<10 { bytes.storeBytes(of: UInt16(x < 5 ? 0x3C00 : 0), toByteOffset: y * row + 2 * x, as: UInt16.self) } }
        }
        let custom = AuxiliaryImageType(rawValue: "urn:example:aux:test")
        let data = try ImageEncoder.encodeHEIC(
            try CodecFixtures.color(width: 20, height: 20), quality: 95,
            auxiliaryImages: [HEICAuxiliaryImage(type: custom, pixels: half)])
        let matte = try #require(try HEICReader(data: data).auxiliaryImage(custom))
        #expect(CodecFixtures.pixel(matte, 1, 5)[0] > 240 && CodecFixtures.pixel(matte, 8, 5)[0] < 15)
    }

    /// A file whose items already use the largest 32-bit item ID leaves none for an auxiliary image's items: the merge
    /// throws instead of overflowing. The file is an input the image-decoder fuzz target found.
    @Test func mergeRefusesFilesWithoutFreeItemIDs() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = [UInt8](
            try Data(contentsOf: root.appendingPathComponent("Fuzz/ImageDecoders/Regressions/heic/merge-item-id-overflow.heic")))
        let meta = try file.withUnsafeBytes { try HEIFFile($0).meta }
        #expect(meta.items.contains { $0.id == UInt32.max })
        #expect(throws: ImagingError.self) {
            try HEIFAuxiliaryWriter.merge(primary: file, auxiliaries: [.init(file: file, type: "urn:test")])
        }
    }

    /// A grid that is also the alpha plane of its own tile (`dimg` 4 → 2, `auxl` 4 → 2, with a corrupt size on the
    /// `auxl` box that libheif reads past) is refused before libheif sees it: libheif followed the cycle, starting
    /// threads within threads until memory ran out, so without the check this test does not end. Both the reference
    /// check and a whole decode are asked; files whose references form no cycle are unaffected (the other HEIC tests).
    /// The files are fuzzing finds; in the second, an `mdat` declared far longer than the file follows `meta`, which
    /// once hid the references from the check (libheif reads them all the same).
    @Test(arguments: ["reference-cycle.heic", "reference-cycle-past-a-long-mdat.heic"])
    func referenceCyclesAreRefused(name: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try Data(contentsOf: root.appendingPathComponent("Fuzz/ImageDecoders/Regressions/heic/\(name)"))
        _ = file.withUnsafeBytes { raw in
            #expect(throws: ImagingError.self) { try HEICCodec.checkReferenceCycles(raw) }
        }
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(data: file) }
    }

    /// A fuzzing find that once ran past libFuzzer's time limit inside libheif: a grid whose three alpha planes are
    /// grids too, one of them made of a tile that does not exist. It ends at once with the decoder's error.
    @Test func alphaGridsWithAMissingTileEnd() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try Data(contentsOf: root.appendingPathComponent(
            "Fuzz/ImageDecoders/Regressions/heic/three-alpha-grids-one-missing-tile.heic"))
        #expect(throws: ImagingError.self) { try ImageDecoder.decode(data: file) }
    }
}

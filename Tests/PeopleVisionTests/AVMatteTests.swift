import Foundation
import PVImaging
@testable import PeopleVision
import Testing

@Suite("AVFoundation mattes: dictionaries, Core Image and HEIC read-back")
struct AVMatteTests {
    /// An auxiliary-data dictionary of `width × height` 8-bit rows padded to `rowBytes`, pixel (x, y) = `value(x, y)`.
    static func dictionary(
        _ width: Int, _ height: Int, rowBytes: Int? = nil, format: Any = Int(kCVPixelFormatType_OneComponent8),
        _ value: (Int, Int) -> UInt8
    ) -> [AnyHashable: Any] {
        let row = rowBytes ?? width
        var data = Data(repeating: 0xEE, count: row * height)
        for y in 0..<height { for x in 0..<width { data[y * row + x] = value(x, y) } }
        return [
            kCGImageAuxiliaryDataInfoData: data,
            kCGImageAuxiliaryDataInfoDataDescription: ["Width": width, "Height": height, "BytesPerRow": row, "PixelFormat": format]
                as [String: Any],
        ]
    }

    /// The matte's pixels, row by row.
    static func values(_ buffer: CVPixelBuffer) -> [[UInt8]] {
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let base = CVPixelBufferGetBaseAddress(buffer)!, row = CVPixelBufferGetBytesPerRow(buffer)
        return (0..<CVPixelBufferGetHeight(buffer)).map { y in
            (0..<CVPixelBufferGetWidth(buffer)).map { x in base.load(fromByteOffset: y * row + x, as: UInt8.self) }
        }
    }

    static func isMatteError(_ error: any Error) -> Bool {
        let ns = error as NSError
        return ns.domain == "AVFoundationErrorDomain" && ns.code == -11800
    }

    @Test("a semantic matte reads its dictionary (padded rows) and writes it back tight, with its type")
    func dictionaryRoundTrip() throws {
        let source = Self.dictionary(5, 3, rowBytes: 8) { x, y in UInt8(x * 40 + y) }
        let matte = try AVSemanticSegmentationMatte(
            fromImageSourceAuxiliaryDataType: kCGImageAuxiliaryDataTypeSemanticSegmentationTeethMatte, dictionaryRepresentation: source)
        #expect(matte.matteType == .teeth)
        #expect(matte.pixelFormatType == kCVPixelFormatType_OneComponent8)
        #expect(Self.values(matte.mattingImage) == (0..<3).map { y in (0..<5).map { x in UInt8(x * 40 + y) } })
        var type: NSString?
        let back = try #require(matte.dictionaryRepresentation(forAuxiliaryDataType: &type))
        #expect(type.map(String.init) == kCGImageAuxiliaryDataTypeSemanticSegmentationTeethMatte)
        let again = try AVSemanticSegmentationMatte(fromImageSourceAuxiliaryDataType: String(type!), dictionaryRepresentation: back)
        #expect(Self.values(again.mattingImage) == Self.values(matte.mattingImage))
        let description = try #require(back[kCGImageAuxiliaryDataInfoDataDescription] as? [String: Any])
        #expect(description["BytesPerRow"] as? Int == 5)

        let portrait = try AVPortraitEffectsMatte(fromDictionaryRepresentation: source)
        var portraitType: NSString?
        let portraitBack = try #require(portrait.dictionaryRepresentation(forAuxiliaryDataType: &portraitType))
        #expect(portraitType.map(String.init) == kCGImageAuxiliaryDataTypePortraitEffectsMatte)
        #expect(Self.values(try AVPortraitEffectsMatte(fromDictionaryRepresentation: portraitBack).mattingImage) == Self.values(matte.mattingImage))
    }

    @Test("malformed dictionaries and buffers give AVFoundationErrorDomain errors, never a crash")
    func malformed() throws {
        let good = Self.dictionary(4, 4) { _, _ in 9 }
        let skin = kCGImageAuxiliaryDataTypeSemanticSegmentationSkinMatte
        var cases: [(String, CFString, [AnyHashable: Any])] = [
            ("not a matte type", kCGImageAuxiliaryDataTypeDepth, good),
            ("no data", skin, good.filter { ($0.key as? String) != kCGImageAuxiliaryDataInfoData }),
            ("no description", skin, good.filter { ($0.key as? String) != kCGImageAuxiliaryDataInfoDataDescription }),
            ("data of the wrong type", skin, good.merging([kCGImageAuxiliaryDataInfoData: "bytes"]) { $1 }),
            ("float pixels", skin, Self.dictionary(4, 4, format: Int(kCVPixelFormatType_OneComponent32Float)) { _, _ in 0 }),
            ("non-integer format", skin, Self.dictionary(4, 4, format: "L008") { _, _ in 0 }),
            ("empty", skin, Self.dictionary(0, 4) { _, _ in 0 }),
        ]
        var short = good
        short[kCGImageAuxiliaryDataInfoData] = Data(count: 15)
        cases.append(("too few bytes", skin, short))
        var narrow = good
        narrow[kCGImageAuxiliaryDataInfoDataDescription] = ["Width": 4, "Height": 4, "BytesPerRow": 3, "PixelFormat": Int(kCVPixelFormatType_OneComponent8)]
        cases.append(("rows shorter than the width", skin, narrow))
        var huge = good
        huge[kCGImageAuxiliaryDataInfoDataDescription] = [
            "Width": Int.max / 2, "Height": 3, "BytesPerRow": Int.max / 2, "PixelFormat": Int(kCVPixelFormatType_OneComponent8),
        ]
        cases.append(("oversized", skin, huge))
        for (name, type, dictionary) in cases {
            #expect(throws: (any Error).self, "\(name)") {
                try AVSemanticSegmentationMatte(fromImageSourceAuxiliaryDataType: type, dictionaryRepresentation: dictionary)
            }
            do {
                _ = try AVSemanticSegmentationMatte(fromImageSourceAuxiliaryDataType: type, dictionaryRepresentation: dictionary)
            } catch {
                #expect(Self.isMatteError(error), "\(name): \(error)")
            }
            if type == skin {
                do {
                    _ = try AVPortraitEffectsMatte(fromDictionaryRepresentation: dictionary)
                    Issue.record("\(name): the portrait matte accepted it")
                } catch {
                    #expect(Self.isMatteError(error), "\(name): \(error)")
                }
            }
        }
        let matte = try AVSemanticSegmentationMatte(fromImageSourceAuxiliaryDataType: skin, dictionaryRepresentation: good)
        let colour = CITest.buffer(4, 4, kCVPixelFormatType_32BGRA) { _, _ in [1, 2, 3, 255] }
        do {
            _ = try matte.replacingSemanticSegmentationMatte(with: colour)
            Issue.record("a BGRA buffer replaced the matte")
        } catch {
            #expect(Self.isMatteError(error))
        }
    }

    @Test("replacing keeps the type; an EXIF orientation turns the matte as the photo is turned upright")
    func replaceAndOrient() throws {
        let matte = try AVSemanticSegmentationMatte(
            fromImageSourceAuxiliaryDataType: kCGImageAuxiliaryDataTypeSemanticSegmentationGlassesMatte,
            dictionaryRepresentation: Self.dictionary(2, 2) { _, _ in 0 })
        // Stored rows [1 2 3] [4 5 6]; EXIF 6 (.right) shows them turned a quarter clockwise: [4 1] [5 2] [6 3].
        let stored = CITest.buffer(3, 2, kCVPixelFormatType_OneComponent8) { x, y in [UInt8(1 + x + 3 * y)] }
        let replaced = try matte.replacingSemanticSegmentationMatte(with: stored)
        #expect(replaced.matteType == .glasses)
        #expect(Self.values(replaced.mattingImage) == [[1, 2, 3], [4, 5, 6]])
        #expect(Self.values(replaced.applyingExifOrientation(.right).mattingImage) == [[4, 1], [5, 2], [6, 3]])
        #expect(Self.values(replaced.applyingExifOrientation(.down).mattingImage) == [[6, 5, 4], [3, 2, 1]])
        #expect(Self.values(replaced.applyingExifOrientation(.upMirrored).mattingImage) == [[3, 2, 1], [6, 5, 4]])
        let portrait = try AVPortraitEffectsMatte(fromDictionaryRepresentation: Self.dictionary(2, 2) { _, _ in 0 })
        #expect(Self.values(try portrait.replacingPortraitEffectsMatte(with: stored).applyingExifOrientation(.left).mattingImage)
            == [[3, 6], [2, 5], [1, 4]])
    }

    @Test("a HEIC written with every matte type and a depth map reads back with the same types, sizes and values")
    func heicReadBack() throws {
        let directory = try CITest.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Each matte a different size, with blocks of distinct levels (HEVC is lossy: values are compared within 12).
        let kinds: [(AVSemanticSegmentationMatte.MatteType, CIImageOption, Int, Int)] = [
            (.skin, .auxiliarySemanticSegmentationSkinMatte, 64, 48), (.hair, .auxiliarySemanticSegmentationHairMatte, 48, 64),
            (.teeth, .auxiliarySemanticSegmentationTeethMatte, 32, 32), (.glasses, .auxiliarySemanticSegmentationGlassesMatte, 80, 40),
            (.sky, .auxiliarySemanticSegmentationSkyMatte, 40, 24),
        ]
        func level(_ x: Int, _ y: Int, _ salt: Int) -> UInt8 { UInt8(((x / 8 + y / 8 + salt) % 4) * 85) }
        let mattes = try kinds.enumerated().map { k, kind in
            let type = try #require(AVSemanticSegmentationMatte.matteTypes.first { $0.0 == kind.0 }?.1)
            return try AVSemanticSegmentationMatte(
                fromImageSourceAuxiliaryDataType: type, dictionaryRepresentation: Self.dictionary(kind.2, kind.3) { level($0, $1, k) })
        }
        let portrait = try AVPortraitEffectsMatte(fromDictionaryRepresentation: Self.dictionary(56, 72) { level($0, $1, 7) })
        let depth = CIImage(cvPixelBuffer: CITest.floatBuffer(16, 16, half: false) { x, _ in 1 + Float(x) / 10 })
        let photo = CIImage(color: CIColor(red: 0.3, green: 0.5, blue: 0.7)).cropped(to: CGRect(x: 0, y: 0, width: 96, height: 96))
        let url = directory.appendingPathComponent("mattes.heic")
        try CIContext().writeHEIFRepresentation(
            of: photo, to: url, format: .RGBA8, colorSpace: CITest.sRGB,
            options: [.avSemanticSegmentationMattes: mattes, .avPortraitEffectsMatte: portrait, .depthImage: depth])

        for (k, kind) in kinds.enumerated() {
            let image = try #require(CIImage(contentsOf: url, options: [kind.1: true]), "\(kind.0.rawValue)")
            let read = try #require(image.semanticSegmentationMatte, "\(kind.0.rawValue)")
            #expect(read.matteType == kind.0)
            #expect(image.portraitEffectsMatte == nil)
            let values = Self.values(read.mattingImage)
            #expect(values.count == kind.3 && values.first?.count == kind.2, "\(kind.0.rawValue)")
            var worst = 0
            for y in 0..<kind.3 { for x in 0..<kind.2 { worst = max(worst, abs(Int(values[y][x]) - Int(level(x, y, k)))) } }
            #expect(worst <= 12, "\(kind.0.rawValue): \(worst)")
        }
        let image = try #require(CIImage(contentsOf: url, options: [.auxiliaryPortraitEffectsMatte: true]))
        let read = try #require(image.portraitEffectsMatte)
        #expect(image.semanticSegmentationMatte == nil)
        let values = Self.values(read.mattingImage)
        #expect(values.count == 72 && values.first?.count == 56)
        var worst = 0
        for y in 0..<72 { for x in 0..<56 { worst = max(worst, abs(Int(values[y][x]) - Int(level(x, y, 7)))) } }
        #expect(worst <= 12, "portrait: \(worst)")
        let depthBack = try #require(CIImage(contentsOf: url, options: [.auxiliaryDepth: true]))
        #expect(depthBack.extent.size == CGSize(width: 16, height: 16))
        // The image of a matte renders the matte's values.
        let rendered = CITest.rgba(try #require(CIImage(portaitEffectsMatte: read)))
        #expect(rendered[3][3][0] == values[3][3] && rendered[60][50][0] == values[60][50])
    }

    @Test("a file without mattes gives nil, not an error; plain images have no matte")
    func noMattes() throws {
        let directory = try CITest.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("plain.heic")
        let photo = CIImage(color: CIColor(red: 0.3, green: 0.5, blue: 0.7)).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 32))
        try CIContext().writeHEIFRepresentation(of: photo, to: url, format: .RGBA8, colorSpace: CITest.sRGB)
        for option in [CIImageOption.auxiliaryPortraitEffectsMatte, .auxiliarySemanticSegmentationSkinMatte, .auxiliarySemanticSegmentationHairMatte,
            .auxiliarySemanticSegmentationTeethMatte, .auxiliarySemanticSegmentationGlassesMatte, .auxiliarySemanticSegmentationSkyMatte]
        {
            #expect(CIImage(contentsOf: url, options: [option: true]) == nil, "\(option.rawValue)")
        }
        let plain = try #require(CIImage(contentsOf: url))
        #expect(plain.semanticSegmentationMatte == nil && plain.portraitEffectsMatte == nil)
    }

    @Test("matte objects cannot be given twice or as the wrong type at export")
    func exportValidation() throws {
        let photo = CIImage(color: CIColor(red: 0.3, green: 0.5, blue: 0.7)).cropped(to: CGRect(x: 0, y: 0, width: 16, height: 16))
        let hair = try AVSemanticSegmentationMatte(
            fromImageSourceAuxiliaryDataType: kCGImageAuxiliaryDataTypeSemanticSegmentationHairMatte,
            dictionaryRepresentation: Self.dictionary(8, 8) { _, _ in 200 })
        let context = CIContext()
        #expect(context.heifRepresentation(of: photo, format: .RGBA8, colorSpace: CITest.sRGB, options: [.avSemanticSegmentationMattes: [hair]]) != nil)
        #expect(context.heifRepresentation(of: photo, format: .RGBA8, colorSpace: CITest.sRGB, options: [.avSemanticSegmentationMattes: [hair, hair]]) == nil)
        #expect(context.heifRepresentation(of: photo, format: .RGBA8, colorSpace: CITest.sRGB, options: [.avSemanticSegmentationMattes: hair]) == nil)
        #expect(context.heifRepresentation(of: photo, format: .RGBA8, colorSpace: CITest.sRGB, options: [.avPortraitEffectsMatte: hair]) == nil)
    }
}

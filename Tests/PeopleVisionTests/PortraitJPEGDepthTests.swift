import Foundation
import PVImaging
import PVTestSupport
@testable import PeopleVision
import Testing

/// Depth in JPEG files laid out as Apple's portrait photos are: a multi-picture JPEG whose second image is a grey
/// JPEG with Apple's `apdi` and `depthData` XMP. The files are built here from the samples, byte by byte.
@Suite struct PortraitJPEGDepthTests {
    /// A grey JPEG of `codes` (width × height) with an XMP packet.
    static func auxiliaryJPEG(_ codes: [UInt8], width: Int, height: Int, xmp: String) throws -> [UInt8] {
        var grey = try PixelBuffer(width: width, height: height, format: .oneComponent8)
        let row = grey.bytesPerRow()
        grey.withUnsafeMutableBytes { out in for y in 0..<height { for x in 0..<width { out[y * row + x] = codes[y * width + x] } } }
        let jpeg = [UInt8](try ImageEncoder.encode(grey, as: .jpeg(quality: 100)))
        return [0xFF, 0xD8] + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)) + jpeg.dropFirst(2)
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// The photo with `auxiliary` as its second image, indexed by an `MPF` segment (little-endian); `shift` moves
    /// the second image's recorded offset (to make a broken index).
    static func portrait(_ photo: [UInt8], _ auxiliary: [UInt8], shift: Int = 0) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        // TIFF header, one IFD of three entries, then the two 16-byte image entries.
        let ifdSize = 2 + 3 * 12 + 4, entriesAt = 8 + ifdSize
        func index(primarySize: Int, auxiliaryOffset: Int) -> [UInt8] {
            var t: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8) + le16(3)
            t += le16(0xB000) + le16(7) + le32(4) + Array("0100".utf8)
            t += le16(0xB001) + le16(4) + le32(1) + le32(2)
            t += le16(0xB002) + le16(7) + le32(32) + le32(entriesAt)
            t += le32(0)
            t += le32(0x030000) + le32(primarySize) + le32(0) + le16(0) + le16(0)
            t += le32(0) + le32(auxiliary.count) + le32(auxiliaryOffset + shift) + le16(0) + le16(0)
            return segment(0xE2, Array("MPF\0".utf8) + t)
        }
        let headerLength = index(primarySize: 0, auxiliaryOffset: 0).count
        let primarySize = photo.count + headerLength
        // The TIFF header starts after SOI, the segment's marker and length, and "MPF\0".
        let tiffStart = 2 + 4 + 4
        return [0xFF, 0xD8] + index(primarySize: primarySize, auxiliaryOffset: primarySize - tiffStart) + photo.dropFirst(2) + auxiliary
    }

    static func xmp(floatMin: Double, floatMax: Double, native: OSType = kCVPixelFormatType_DisparityFloat16, type: String = "disparity") -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/" xmlns:depthData="http://ns.apple.com/depthData/1.0/">
        <apdi:IntMaxValue>255</apdi:IntMaxValue><apdi:StoredFormat>1278226488</apdi:StoredFormat>
        <apdi:NativeFormat>\(native)</apdi:NativeFormat><apdi:IntMinValue>0</apdi:IntMinValue>
        <apdi:FloatMaxValue>\(floatMax)</apdi:FloatMaxValue><apdi:FloatMinValue>\(floatMin)</apdi:FloatMinValue>
        <apdi:AuxiliaryImageType>\(type)</apdi:AuxiliaryImageType>
        <depthData:IntrinsicMatrixReferenceWidth>1024</depthData:IntrinsicMatrixReferenceWidth>
        <depthData:IntrinsicMatrixReferenceHeight>1024</depthData:IntrinsicMatrixReferenceHeight>
        <depthData:IntrinsicMatrix><rdf:Seq><rdf:li>1200</rdf:li><rdf:li>0</rdf:li><rdf:li>0</rdf:li><rdf:li>0</rdf:li>
        <rdf:li>1200</rdf:li><rdf:li>0</rdf:li><rdf:li>512</rdf:li><rdf:li>512</rdf:li><rdf:li>1</rdf:li></rdf:Seq></depthData:IntrinsicMatrix>
        <depthData:Accuracy>absolute</depthData:Accuracy><depthData:Filtered>True</depthData:Filtered>
        <depthData:Quality>high</depthData:Quality><depthData:PixelSize>0.0014</depthData:PixelSize>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    static func photo() throws -> [UInt8] {
        [UInt8](try ImageEncoder.encode(try ImageDecoder.decode(contentsOf: try TestFiles.installed("astronaut.png")).pixels, as: .jpeg(quality: 92)))
    }

    static func write(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pv-portrait-\(UUID().uuidString).jpg")
        try Data(bytes).write(to: url)
        return url
    }

    @Test("a portrait JPEG's disparity reads back with its range, kind, description and calibration")
    func readsTheDisparityImage() throws {
        // A left-to-right ramp of codes; disparity 0.5…1.5 per metre.
        let codes = (0..<(64 * 48)).map { UInt8(($0 % 64) * 4) }
        let url = try Self.write(Self.portrait(try Self.photo(), try Self.auxiliaryJPEG(codes, width: 64, height: 48, xmp: Self.xmp(floatMin: 0.5, floatMax: 1.5))))
        defer { try? FileManager.default.removeItem(at: url) }
        let depth = try #require(try AVDepthData.read(fromFile: Data(contentsOf: url)))
        #expect(depth.depthDataType == kCVPixelFormatType_DisparityFloat16)
        #expect(depth.depthDataAccuracy == .absolute && depth.isDepthDataFiltered && depth.depthDataQuality == .high)
        let map = depth.converting(toDepthDataType: kCVPixelFormatType_DisparityFloat32).depthDataMap.pixelBuffer
        #expect(map.width == 64 && map.height == 48)
        var worst: Float = 0
        map.withUnsafeBytes { raw in
            for y in 0..<48 {
                for x in 0..<64 {
                    let v = raw.load(fromByteOffset: y * map.bytesPerRow() + 4 * x, as: Float.self)
                    worst = max(worst, abs(v - (0.5 + Float(x * 4) / 255)))
                }
            }
        }
        // JPEG at quality 100 and half floats: within two codes.
        #expect(worst < 2.0 / 255 + 1e-3, "worst \(worst)")
        let calibration = try #require(depth.cameraCalibrationData)
        #expect(calibration.intrinsicMatrix.columns.0.x == 1200 && calibration.intrinsicMatrix.columns.2.x == 512)
        #expect(calibration.intrinsicMatrixReferenceDimensions == CGSize(width: 1024, height: 1024))
        #expect(abs(calibration.pixelSize - 0.0014) < 1e-7)

        // ImageIO and Core Image read it too: as depth (1/disparity) through the auxiliary dictionary.
        let source = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        let info = try #require(CGImageSourceCopyAuxiliaryDataInfoAtIndex(source, 0, kCGImageAuxiliaryDataTypeDepth))
        let fromDictionary = try AVDepthData(fromDictionaryRepresentation: info)
        #expect(fromDictionary.depthDataType == kCVPixelFormatType_DepthFloat32)
        let metres = fromDictionary.depthDataMap.pixelBuffer.withUnsafeBytes { $0.load(fromByteOffset: 0, as: Float.self) }
        #expect(abs(metres - 2) < 0.02, "\(metres) m at the left edge (disparity 0.5)")
        let image = try #require(CIImage(contentsOf: url, options: [.auxiliaryDisparity: true]))
        #expect(image.depthData?.depthDataType == kCVPixelFormatType_DisparityFloat16)
        // The photo itself still decodes as the first image.
        #expect(try ImageDecoder.decode(contentsOf: url).pixels.width == 512)
    }

    @Test("the 3D body pose measures with the depth of a portrait JPEG; files without depth or with a broken index")
    func bodyPoseMeasuresAndBadFilesFail() throws {
        // A plane 1.2 m away: disparity 1/1.2 everywhere.
        let codes = [UInt8](repeating: 128, count: 32 * 32), d = 1 / 1.2
        let good = try Self.write(Self.portrait(try Self.photo(), try Self.auxiliaryJPEG(codes, width: 32, height: 32, xmp: Self.xmp(floatMin: d, floatMax: d))))
        defer { try? FileManager.default.removeItem(at: good) }
        let request = VNDetectHumanBodyPose3DRequest()
        try VNImageRequestHandler(url: good).perform([request])
        let body = try #require(request.results?.first)
        #expect(body.heightEstimation == .measured)
        let shoulders = try body.cameraRelativePosition(.centerShoulder).columns.3
        #expect(abs(-shoulders.z - 1.2) < 0.06 * 1.2, "\(shoulders)")

        // A JPEG without an index, or whose index holds no depth image: no depth, no error.
        let plain = try Self.photo()
        #expect(try AVDepthData.read(fromFile: Data(plain)) == nil)
        let matte = try Self.auxiliaryJPEG(codes, width: 32, height: 32, xmp: Self.xmp(floatMin: 0, floatMax: 1).replacingOccurrences(
            of: "<apdi:AuxiliaryImageType>", with: "<apdi:AuxiliaryImageSubType>portraiteffectsmatte</apdi:AuxiliaryImageSubType><apdi:AuxiliaryImageType>"))
        #expect(try AVDepthData.read(fromFile: Data(Self.portrait(plain, matte))) == nil)
        // An index pointing past the file, a depth image that is no JPEG, or a format of the wrong kind: typed errors,
        // and the readers built on them find no depth.
        let aux = try Self.auxiliaryJPEG(codes, width: 32, height: 32, xmp: Self.xmp(floatMin: d, floatMax: d))
        let wrongKind = try Self.auxiliaryJPEG(codes, width: 32, height: 32, xmp: Self.xmp(floatMin: d, floatMax: d, native: kCVPixelFormatType_DepthFloat16))
        for broken in [Self.portrait(plain, aux, shift: 1_000_000), Self.portrait(plain, aux, shift: 7), Self.portrait(plain, wrongKind)] {
            #expect(throws: AVError.self) { try AVDepthData.read(fromFile: Data(broken)) }
            let url = try Self.write(broken)
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(CIImage(contentsOf: url, options: [.auxiliaryDepth: true]) == nil)
            let handler = VNImageRequestHandler(url: url)
            let again = VNDetectHumanBodyPose3DRequest()
            try handler.perform([again])
            #expect(again.results?.first?.heightEstimation == .reference)
        }
    }

    /// Bytes changed at random in the index and the depth image's header and XMP: each read gives depth, nil or an
    /// `AVError`, never a crash or another error.
    @Test func mutatedFilesFailCleanly() throws {
        let codes = (0..<(16 * 16)).map { UInt8($0) }
        let photo = [UInt8](try ImageEncoder.encode(try PixelBuffer(width: 16, height: 16, format: .rgba32), as: .jpeg(quality: 80)))
        let auxiliary = try Self.auxiliaryJPEG(codes, width: 16, height: 16, xmp: Self.xmp(floatMin: 0.5, floatMax: 2))
        let file = Self.portrait(photo, auxiliary), auxiliaryStart = file.count - auxiliary.count
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        var outcomes = [0, 0, 0]
        for _ in 0..<400 {
            var bytes = file
            for _ in 0..<(1 + next() % 4) {
                // Half the changes in the index (the first 120 bytes), half in the depth image's first 1,500.
                let at = next() % 2 == 0 ? next() % 120 : min(bytes.count - 1, auxiliaryStart + next() % 1500)
                bytes[at] = UInt8(truncatingIfNeeded: next())
            }
            do {
                outcomes[try AVDepthData.read(fromFile: Data(bytes)) == nil ? 1 : 0] += 1
            } catch is AVError {
                outcomes[2] += 1
            }
        }
        #expect(outcomes.reduce(0, +) == 400 && outcomes[2] > 0, "depth, nil, errors: \(outcomes)")
    }

}

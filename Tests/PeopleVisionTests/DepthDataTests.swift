import Foundation
import PeopleVision
import Testing

/// AVDepthData and AVCameraCalibrationData, their dictionaries and metadata, and depth in HEIC files.
@Suite("Depth data")
struct DepthDataTests {
    static let width = 24, height = 18

    /// Depth from 1 to 3 m across the map, slanted down the rows, as half floats (what an iPhone's map holds).
    static func depthValues() -> [Float] {
        (0..<(width * height)).map { i in
            let x = Float(i % width), y = Float(i / width)
            return Float(Float16(1 + 2 * x / Float(width - 1) * (0.5 + 0.5 * y / Float(height - 1))))
        }
    }

    static func calibration() -> AVCameraCalibrationData {
        AVCameraCalibrationData(
            intrinsicMatrix: matrix_float3x3(SIMD3(2800.5, 0, 0), SIMD3(0, 2801.25, 0), SIMD3(2016.75, 1511.5, 1)),
            intrinsicMatrixReferenceDimensions: CGSize(width: 4032, height: 3024),
            extrinsicMatrix: matrix_float4x3(SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1), SIMD3(-10.5, 0.25, 0)),
            pixelSize: 0.00122, lensDistortionCenter: CGPoint(x: 2010, y: 1500),
            lensDistortionLookupTable: Data([0, 0, 128, 63, 205, 204, 140, 63]))
    }

    /// A depth map as a dictionary built by hand, as Apple's "creating auxiliary depth data manually" does.
    static func dictionary(
        _ values: [Float], type: OSType = kCVPixelFormatType_DepthFloat16, metadata: CGImageMetadata? = nil,
        description: [CFString: Any]? = nil
    ) -> [AnyHashable: Any] {
        let half = type == kCVPixelFormatType_DepthFloat16 || type == kCVPixelFormatType_DisparityFloat16
        var data = Data()
        for v in values {
            if half {
                withUnsafeBytes(of: Float16(v).bitPattern) { data.append(contentsOf: $0) }
            } else {
                withUnsafeBytes(of: v) { data.append(contentsOf: $0) }
            }
        }
        var info: [AnyHashable: Any] = [
            kCGImageAuxiliaryDataInfoData: data,
            kCGImageAuxiliaryDataInfoDataDescription: description ?? [
                kCGImagePropertyPixelFormat: type, kCGImagePropertyWidth: width, kCGImagePropertyHeight: height,
                kCGImagePropertyBytesPerRow: width * (half ? 2 : 4),
            ],
        ]
        if let metadata { info[kCGImageAuxiliaryDataInfoMetadata] = metadata }
        return info
    }

    static func describedMetadata() -> CGMutableImageMetadata {
        let metadata = CGImageMetadataCreateMutable()
        #expect(CGImageMetadataRegisterNamespaceForPrefix(metadata, "http://ns.apple.com/depthData/1.0/", "depthData", nil))
        CGImageMetadataSetValueWithPath(metadata, nil, "depthData:Accuracy", "absolute" as CFTypeRef)
        CGImageMetadataSetValueWithPath(metadata, nil, "depthData:Filtered", "true" as CFTypeRef)
        CGImageMetadataSetValueWithPath(metadata, nil, "depthData:Quality", "high" as CFTypeRef)
        return metadata
    }

    static func values(_ depth: AVDepthData) -> [Float] {
        let map = depth.depthDataMap
        CVPixelBufferLockBaseAddress(map, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(map, .readOnly) }
        let base = CVPixelBufferGetBaseAddress(map)!, row = CVPixelBufferGetBytesPerRow(map)
        let half = CVPixelBufferGetPixelFormatType(map) == kCVPixelFormatType_DepthFloat16
            || CVPixelBufferGetPixelFormatType(map) == kCVPixelFormatType_DisparityFloat16
        return (0..<(CVPixelBufferGetWidth(map) * CVPixelBufferGetHeight(map))).map { i in
            let x = i % CVPixelBufferGetWidth(map), y = i / CVPixelBufferGetWidth(map)
            return half
                ? Float(Float16(bitPattern: base.load(fromByteOffset: y * row + 2 * x, as: UInt16.self)))
                : base.load(fromByteOffset: y * row + 4 * x, as: Float.self)
        }
    }

    /// Half a half-float step at `v`: the rounding a half-float map carries.
    static func halfTolerance(_ v: Float) -> Float { Float(Float16(v).ulp) / 2 }

    @Test func dictionaryRoundTripKeepsValuesDescriptionAndType() throws {
        let depth = try AVDepthData(fromDictionaryRepresentation: Self.dictionary(Self.depthValues(), metadata: Self.describedMetadata()))
        #expect(depth.depthDataType == kCVPixelFormatType_DepthFloat16)
        #expect(depth.depthDataAccuracy == .absolute && depth.isDepthDataFiltered && depth.depthDataQuality == .high)
        #expect(depth.cameraCalibrationData == nil)
        #expect(Self.values(depth) == Self.depthValues())  // half floats in, the same half floats out

        var type: NSString?
        let info = try #require(depth.dictionaryRepresentation(forAuxiliaryDataType: &type))
        #expect(type as String? == kCGImageAuxiliaryDataTypeDepth)
        let again = try AVDepthData(fromDictionaryRepresentation: info)
        #expect(Self.values(again) == Self.depthValues() && again.depthDataAccuracy == .absolute && again.depthDataQuality == .high)
        let disparity = depth.converting(toDepthDataType: kCVPixelFormatType_DisparityFloat32)
        _ = disparity.dictionaryRepresentation(forAuxiliaryDataType: &type)
        #expect(type as String? == kCGImageAuxiliaryDataTypeDisparity)
    }

    @Test func depthAndDisparityConvertBothWays() throws {
        let depth = try AVDepthData(fromDictionaryRepresentation: Self.dictionary([2, 0.5, 4, 0, .nan, -1] + Array(repeating: 1, count: Self.width * Self.height - 6), type: kCVPixelFormatType_DepthFloat32))
        let disparity = depth.converting(toDepthDataType: kCVPixelFormatType_DisparityFloat32)
        #expect(disparity.depthDataType == kCVPixelFormatType_DisparityFloat32)
        let d = Self.values(disparity)
        #expect(d[0] == 0.5 && d[1] == 2 && d[2] == 0.25 && d[6] == 1)
        #expect(d[3].isNaN && d[4].isNaN && d[5].isNaN, "holes stay holes")
        let back = Self.values(disparity.converting(toDepthDataType: kCVPixelFormatType_DepthFloat32))
        #expect(back[0] == 2 && back[1] == 0.5 && back[2] == 4)

        // Half-float disparity of the 1…3 m ramp, and back to depth: within half-float rounding of each step.
        let ramp = try AVDepthData(fromDictionaryRepresentation: Self.dictionary(Self.depthValues(), type: kCVPixelFormatType_DepthFloat32))
        let halfDisparity = ramp.converting(toDepthDataType: kCVPixelFormatType_DisparityFloat16)
        #expect(halfDisparity.depthDataType == kCVPixelFormatType_DisparityFloat16)
        for (got, want) in zip(Self.values(halfDisparity), Self.depthValues()) {
            #expect(abs(got - 1 / want) <= Self.halfTolerance(1 / want))
        }
        let halfDepth = halfDisparity.converting(toDepthDataType: kCVPixelFormatType_DepthFloat16)
        for (got, want) in zip(Self.values(halfDepth), Self.depthValues()) {
            // Two roundings to half floats: the disparity's (relative ≤ 2⁻¹¹) carried through 1/x, then the depth's.
            #expect(abs(got - want) <= want * 0x1p-11 + Self.halfTolerance(want) + 1e-6)
        }
        #expect(ramp.availableDepthDataTypes.count == 4)
        #expect(ramp.converting(toDepthDataType: kCVPixelFormatType_OneComponent8).depthDataType == kCVPixelFormatType_DepthFloat32)
    }

    @Test func heicRoundTripThroughCoreImageKeepsValuesAndCalibration() throws {
        let made = try AVDepthData(fromDictionaryRepresentation: Self.dictionary(Self.depthValues(), metadata: Self.describedMetadata()))
        let depth = try AVDepthData(
            depthDataMap: made.depthDataMap, depthDataAccuracy: .absolute, depthDataQuality: .high, isDepthDataFiltered: true,
            cameraCalibrationData: Self.calibration())

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("depth-\(UUID().uuidString).heic")
        defer { try? FileManager.default.removeItem(at: url) }
        let photo = CIImage(color: CIColor(red: 0.2, green: 0.5, blue: 0.8)).cropped(to: CGRect(x: 0, y: 0, width: 64, height: 48))
        try CIContext().writeHEIFRepresentation(
            of: photo, to: url, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!, options: [.avDepthData: depth])

        let image = try #require(CIImage(contentsOf: url, options: [.auxiliaryDepth: true]))
        let read = try #require(image.depthData)
        #expect(read.depthDataType == kCVPixelFormatType_DepthFloat16)
        #expect(read.depthDataAccuracy == .absolute && read.isDepthDataFiltered && read.depthDataQuality == .high)
        for (got, want) in zip(Self.values(read), Self.depthValues()) { #expect(abs(got - want) <= Self.halfTolerance(want)) }
        let calibration = try #require(read.cameraCalibrationData), truth = Self.calibration()
        #expect(calibration.intrinsicMatrix == truth.intrinsicMatrix)
        #expect(calibration.intrinsicMatrixReferenceDimensions == truth.intrinsicMatrixReferenceDimensions)
        #expect(calibration.extrinsicMatrix == truth.extrinsicMatrix && calibration.pixelSize == truth.pixelSize)
        #expect(calibration.lensDistortionCenter == truth.lensDistortionCenter)
        #expect(calibration.lensDistortionLookupTable == truth.lensDistortionLookupTable)
        #expect(calibration.inverseLensDistortionLookupTable == nil)

        // The same file through ImageIO, as disparity.
        let source = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        let info = try #require(CGImageSourceCopyAuxiliaryDataInfoAtIndex(source, 0, kCGImageAuxiliaryDataTypeDisparity))
        let disparity = try AVDepthData(fromDictionaryRepresentation: info)
        #expect(disparity.depthDataType == kCVPixelFormatType_DisparityFloat32)
        #expect(disparity.cameraCalibrationData?.intrinsicMatrix == truth.intrinsicMatrix)
        for (got, want) in zip(Self.values(disparity), Self.depthValues()) { #expect(abs(1 / got - want) <= Self.halfTolerance(want) + 1e-5) }
    }

    @Test func imageDestinationWritesDepthDictionaries() throws {
        let depth = try AVDepthData(fromDictionaryRepresentation: Self.dictionary(Self.depthValues(), metadata: Self.describedMetadata()))
        var type: NSString?
        let info = try #require(depth.converting(toDepthDataType: kCVPixelFormatType_DisparityFloat32).dictionaryRepresentation(forAuxiliaryDataType: &type))
        let data = NSMutableData()
        let destination = try #require(CGImageDestinationCreateWithData(data, "public.heic", 1, nil))
        let photo = try #require(CIContext().createCGImage(
            CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 32)), from: CGRect(x: 0, y: 0, width: 32, height: 32)))
        CGImageDestinationAddImage(destination, photo, nil)
        CGImageDestinationAddAuxiliaryDataInfo(destination, try #require(type) as String, info)
        #expect(CGImageDestinationFinalize(destination))

        let source = try #require(CGImageSourceCreateWithData(data as Data, nil))
        let read = try AVDepthData(fromDictionaryRepresentation: try #require(CGImageSourceCopyAuxiliaryDataInfoAtIndex(source, 0, kCGImageAuxiliaryDataTypeDepth)))
        #expect(read.depthDataAccuracy == .absolute)
        for (got, want) in zip(Self.values(read), Self.depthValues()) { #expect(abs(got - want) <= Self.halfTolerance(want) + 1e-5) }

        // Auxiliary data in a JPEG is not written here, and malformed dictionaries fail the file.
        let jpeg = try #require(CGImageDestinationCreateWithData(NSMutableData(), "public.jpeg", 1, nil))
        CGImageDestinationAddImage(jpeg, photo, nil)
        CGImageDestinationAddAuxiliaryDataInfo(jpeg, kCGImageAuxiliaryDataTypeDepth, info)
        #expect(!CGImageDestinationFinalize(jpeg))
        let broken = try #require(CGImageDestinationCreateWithData(NSMutableData(), "public.heic", 1, nil))
        CGImageDestinationAddImage(broken, photo, nil)
        CGImageDestinationAddAuxiliaryDataInfo(broken, kCGImageAuxiliaryDataTypeDepth, [kCGImageAuxiliaryDataInfoData: Data([1, 2])])
        #expect(!CGImageDestinationFinalize(broken))
        let matte = try #require(CGImageDestinationCreateWithData(NSMutableData(), "public.heic", 1, nil))
        CGImageDestinationAddImage(matte, photo, nil)
        CGImageDestinationAddAuxiliaryDataInfo(matte, kCGImageAuxiliaryDataTypePortraitEffectsMatte, [
            kCGImageAuxiliaryDataInfoData: Data(count: 64),
            kCGImageAuxiliaryDataInfoDataDescription: [
                kCGImagePropertyPixelFormat: kCVPixelFormatType_OneComponent8, kCGImagePropertyWidth: 8,
                kCGImagePropertyHeight: 8, kCGImagePropertyBytesPerRow: Int.max / 2,
            ] as [CFString: Any],
        ])
        #expect(!CGImageDestinationFinalize(matte))
    }

    @Test func malformedDictionariesThrowDecodeFailed() throws {
        let good = Self.dictionary(Self.depthValues())
        var cases: [(String, [AnyHashable: Any])] = []
        cases.append(("no data", good.filter { ($0.key as? String) != kCGImageAuxiliaryDataInfoData }))
        cases.append(("no description", good.filter { ($0.key as? String) != kCGImageAuxiliaryDataInfoDataDescription }))
        cases.append(("colour format", Self.dictionary(Self.depthValues(), description: [
            kCGImagePropertyPixelFormat: kCVPixelFormatType_32BGRA, kCGImagePropertyWidth: Self.width,
            kCGImagePropertyHeight: Self.height, kCGImagePropertyBytesPerRow: Self.width * 4,
        ])))
        cases.append(("short data", Self.dictionary(Array(Self.depthValues().prefix(10)))))
        cases.append(("rows overlap", Self.dictionary(Self.depthValues(), description: [
            kCGImagePropertyPixelFormat: kCVPixelFormatType_DepthFloat16, kCGImagePropertyWidth: Self.width,
            kCGImagePropertyHeight: Self.height, kCGImagePropertyBytesPerRow: 4,
        ])))
        cases.append(("zero size", Self.dictionary([], description: [
            kCGImagePropertyPixelFormat: kCVPixelFormatType_DepthFloat16, kCGImagePropertyWidth: 0,
            kCGImagePropertyHeight: 0, kCGImagePropertyBytesPerRow: 0,
        ])))
        cases.append(("rows too far apart", Self.dictionary(Self.depthValues(), description: [
            kCGImagePropertyPixelFormat: kCVPixelFormatType_DepthFloat16, kCGImagePropertyWidth: Self.width,
            kCGImagePropertyHeight: Self.height, kCGImagePropertyBytesPerRow: Int.max / 4,
        ])))
        var metadata = good
        metadata[kCGImageAuxiliaryDataInfoMetadata] = "not metadata"
        cases.append(("metadata of another type", metadata))
        let accuracy = Self.describedMetadata()
        CGImageMetadataSetValueWithPath(accuracy, nil, "depthData:Accuracy", "sometimes" as CFTypeRef)
        cases.append(("unknown accuracy", Self.dictionary(Self.depthValues(), metadata: accuracy)))
        let calibration = CGImageMetadataCreateMutable()
        CGImageMetadataRegisterNamespaceForPrefix(calibration, "http://peoplevision.dev/ns/cameraCalibration/1.0/", "pvcal", nil)
        CGImageMetadataSetValueWithPath(calibration, nil, "pvcal:IntrinsicMatrix", ["1", "0", "x"] as NSArray)
        cases.append(("malformed calibration", Self.dictionary(Self.depthValues(), metadata: calibration)))
        for (name, dictionary) in cases {
            let error = #expect(throws: AVError.self, "\(name)") { try AVDepthData(fromDictionaryRepresentation: dictionary) }
            #expect(error?.code == .decodeFailed, "\(name)")
            #expect((error as NSError?)?.domain == AVFoundationErrorDomain, "\(name)")
        }
    }

    @Test func metadataWritesAndReadsXMP() throws {
        let metadata = Self.describedMetadata()
        CGImageMetadataSetValueWithPath(metadata, nil, "depthData:Note", "a < b & \"c\"" as CFTypeRef)
        #expect(!CGImageMetadataSetValueWithPath(metadata, nil, "unknown:Tag", "x" as CFTypeRef), "unregistered prefix")
        #expect(!CGImageMetadataSetValueWithPath(metadata, nil, "depthData:A.b:c", "x" as CFTypeRef), "nested paths")
        let tag = try #require(CGImageMetadataTagCreate("http://example.com/ns/", "ex", "List", .arrayOrdered, ["1", "2"] as NSArray))
        #expect(CGImageMetadataSetTagWithPath(metadata, nil, "ex:List", tag))
        let xmp = try #require(CGImageMetadataCreateXMPData(metadata, nil))
        let read = try #require(CGImageMetadataCreateFromXMPData(xmp))
        #expect(CGImageMetadataCopyStringValueWithPath(read, nil, "depthData:Accuracy") == "absolute")
        #expect(CGImageMetadataCopyStringValueWithPath(read, nil, "depthData:Note") == "a < b & \"c\"")
        let list = try #require(CGImageMetadataCopyTagWithPath(read, nil, "ex:List"))
        #expect(CGImageMetadataTagGetType(list) == .arrayOrdered && CGImageMetadataTagCopyNamespace(list) == "http://example.com/ns/")
        #expect((CGImageMetadataTagCopyValue(list) as? NSArray)?.count == 2)
        #expect(CGImageMetadataCopyTags(read)?.count == 5)

        // Properties written as attributes, as other writers do.
        let attributes = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:depthData="http://ns.apple.com/depthData/1.0/" depthData:Quality='low'/>
            </rdf:RDF></x:xmpmeta>
            """
        let parsed = try #require(CGImageMetadataCreateFromXMPData(Data(attributes.utf8)))
        #expect(CGImageMetadataCopyStringValueWithPath(parsed, nil, "depthData:Quality") == "low")
        #expect(CGImageMetadataCreateFromXMPData(Data("<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><a:b".utf8)) == nil)
        #expect(CGImageMetadataCreateFromXMPData(Data([0xFF, 0xFE, 0x00])) == nil)
    }
}

// Depth patterns as apps write them: auxiliary depth data built by hand (Apple's "Creating auxiliary depth data
// manually"), stored in a HEIC beside the photo, read back as AVDepthData, and handed to Vision with a camera frame.
import AVFoundation
import CoreImage
import ImageIO
import Testing
import Vision

@Suite struct DepthPatterns {
    /// A `width × height` half-float depth map holding `metres` everywhere.
    static func depthMap(width: Int, height: Int, metres: Float) throws -> CVPixelBuffer {
        var buffer: CVPixelBuffer?
        let status = CVPixelBufferCreate(kCFAllocatorDefault, width, height, kCVPixelFormatType_DepthFloat16, nil, &buffer)
        guard status == kCVReturnSuccess, let buffer else { throw FrameError.noPixelBuffer }
        CVPixelBufferLockBaseAddress(buffer, [])
        let base = CVPixelBufferGetBaseAddress(buffer)!, row = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0..<height {
            let line = (base + y * row).assumingMemoryBound(to: Float16.self)
            for x in 0..<width { line[x] = Float16(metres) }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])
        return buffer
    }

    /// The auxiliary-data dictionary of a depth map: its bytes, their layout, and a description in XMP.
    static func auxiliaryDataInfo(_ map: CVPixelBuffer) -> [AnyHashable: Any] {
        CVPixelBufferLockBaseAddress(map, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(map, .readOnly) }
        let height = CVPixelBufferGetHeight(map), bytesPerRow = CVPixelBufferGetBytesPerRow(map)
        let data = Data(bytes: CVPixelBufferGetBaseAddress(map)!, count: height * bytesPerRow)
        let description: [AnyHashable: Any] = [
            kCGImagePropertyPixelFormat: CVPixelBufferGetPixelFormatType(map), kCGImagePropertyWidth: CVPixelBufferGetWidth(map),
            kCGImagePropertyHeight: height, kCGImagePropertyBytesPerRow: bytesPerRow,
        ]
        let metadata = CGImageMetadataCreateMutable()
        CGImageMetadataRegisterNamespaceForPrefix(metadata, "http://ns.apple.com/depthData/1.0/" as CFString, "depthData" as CFString, nil)
        CGImageMetadataSetValueWithPath(metadata, nil, "depthData:Accuracy" as CFString, "absolute" as CFTypeRef)
        CGImageMetadataSetValueWithPath(metadata, nil, "depthData:Quality" as CFString, "high" as CFTypeRef)
        return [
            kCGImageAuxiliaryDataInfoData: data, kCGImageAuxiliaryDataInfoDataDescription: description,
            kCGImageAuxiliaryDataInfoMetadata: metadata,
        ]
    }

    @Test func depthBuiltByHandGoesThroughAFileAndIntoVision() throws {
        let frame = try Frames.pixelBuffer(try Frames.picture("astronaut.png"))
        let made = try AVDepthData(fromDictionaryRepresentation: Self.auxiliaryDataInfo(try Self.depthMap(width: 128, height: 128, metres: 1.2)))
        #expect(made.depthDataAccuracy == .absolute && made.depthDataQuality == .high)

        // Photo and depth into one HEIC.
        let file = NSMutableData()
        let destination = try #require(CGImageDestinationCreateWithData(file as CFMutableData, "public.heic" as CFString, 1, nil))
        let photo = try #require(Frames.context.createCGImage(CIImage(cvPixelBuffer: frame), from: CGRect(x: 0, y: 0, width: 512, height: 512)))
        CGImageDestinationAddImage(destination, photo, nil)
        var type: NSString?
        let info = try #require(made.dictionaryRepresentation(forAuxiliaryDataType: &type))
        CGImageDestinationAddAuxiliaryDataInfo(destination, try #require(type) as CFString, info as CFDictionary)
        #expect(CGImageDestinationFinalize(destination))

        // Read back as disparity, converted to depth, and measured with.
        let source = try #require(CGImageSourceCreateWithData(file as Data as CFData, nil))
        let stored = try #require(CGImageSourceCopyAuxiliaryDataInfoAtIndex(source, 0, kCGImageAuxiliaryDataTypeDisparity) as? [String: Any])
        var depth = try AVDepthData(fromDictionaryRepresentation: stored)
        if depth.depthDataType != kCVPixelFormatType_DepthFloat32 { depth = depth.converting(toDepthDataType: kCVPixelFormatType_DepthFloat32) }
        #expect(depth.depthDataAccuracy == .absolute)

        let request = VNDetectHumanBodyPose3DRequest()
        try VNImageRequestHandler(cvPixelBuffer: frame, depthData: depth, orientation: .up, options: [:]).perform([request])
        let body = try #require(request.results?.first)
        #expect(body.heightEstimation == .measured)
        let shoulders = try body.cameraRelativePosition(.centerShoulder).columns.3
        #expect(abs(-shoulders.z - 1.2) < 0.06, "shoulders \(-shoulders.z) m from the camera")
    }
}

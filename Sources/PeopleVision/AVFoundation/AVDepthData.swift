import Foundation
import PVImaging

/// A depth or disparity map with its description, as AVFoundation's `AVDepthData`.
///
/// Depth is in metres, disparity in 1/metres (the inverse of depth, as AVFoundation's normalized disparity), each
/// as half floats or floats: ``depthDataType`` is one of `kCVPixelFormatType_DepthFloat16`, `…DepthFloat32`,
/// `…DisparityFloat16` and `…DisparityFloat32`. A map is read from a file's auxiliary data
/// (``CGImageSourceCopyAuxiliaryDataInfoAtIndex(_:_:_:)`` then ``init(fromDictionaryRepresentation:)``), taken
/// from a `CIImage` (``CIImage/depthData``), or made from a dictionary an app builds itself, as Apple's
/// "Creating auxiliary depth data manually" shows.
///
/// ```swift
/// guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
///       let info = CGImageSourceCopyAuxiliaryDataInfoAtIndex(source, 0, kCGImageAuxiliaryDataTypeDisparity) as? [AnyHashable: Any]
/// else { return }
/// let depth = try AVDepthData(fromDictionaryRepresentation: info).converting(toDepthDataType: kCVPixelFormatType_DepthFloat32)
/// ```
///
/// Immutable: every change returns a new object.
public final class AVDepthData: @unchecked Sendable {
    /// How trustworthy the values are, as AVFoundation's `AVDepthData.Quality`.
    public enum Quality: Int, Sendable {
        /// Unfit for anything but rough effects.
        case low = 0
        /// Fit for effects such as a synthetic depth of field.
        case high = 1
    }

    /// Whether the values are metric, as AVFoundation's `AVDepthData.Accuracy`.
    public enum Accuracy: Int, Sendable {
        /// Correct in order but not in metres (dual-camera disparity).
        case relative = 0
        /// In metres (or 1/metres) of the real scene.
        case absolute = 1
    }

    /// The map: one half or float per pixel, in the format ``depthDataType`` names.
    public let depthDataMap: CVPixelBuffer
    /// How trustworthy the values are.
    public let depthDataQuality: Quality
    /// Whether the values are metric.
    public let depthDataAccuracy: Accuracy
    /// Whether holes were filled and edges smoothed.
    public let isDepthDataFiltered: Bool
    /// The camera's calibration, when the map came with one.
    public let cameraCalibrationData: AVCameraCalibrationData?

    init(
        map: CVPixelBuffer, quality: Quality, accuracy: Accuracy, filtered: Bool, calibration: AVCameraCalibrationData?
    ) {
        depthDataMap = map
        depthDataQuality = quality
        depthDataAccuracy = accuracy
        isDepthDataFiltered = filtered
        cameraCalibrationData = calibration
    }

    /// Depth data from a map and its description (a PeopleVision addition: AVFoundation makes depth data only from
    /// captures and dictionaries), for maps from other sensors or made up for tests.
    /// - Throws: ``AVError`` `.decodeFailed` when the buffer's format is not a depth or disparity format.
    public convenience init(
        depthDataMap: CVPixelBuffer, depthDataAccuracy: Accuracy = .absolute, depthDataQuality: Quality = .high,
        isDepthDataFiltered: Bool = false, cameraCalibrationData: AVCameraCalibrationData? = nil
    ) throws {
        guard Self.types.contains(depthDataMap.pixelFormatType) else {
            throw AVError.decode("pixel format \(depthDataMap.pixelFormatType) is not a depth or disparity format")
        }
        self.init(
            map: depthDataMap, quality: depthDataQuality, accuracy: depthDataAccuracy, filtered: isDepthDataFiltered,
            calibration: cameraCalibrationData)
    }

    /// The map's format: depth or disparity, 16- or 32-bit.
    public var depthDataType: OSType { depthDataMap.pixelFormatType }

    /// The formats ``converting(toDepthDataType:)`` produces: all four depth and disparity types.
    public var availableDepthDataTypes: [NSNumber] { Self.types.map { NSNumber(value: $0) } }

    static var types: [OSType] {
        [kCVPixelFormatType_DisparityFloat16, kCVPixelFormatType_DisparityFloat32, kCVPixelFormatType_DepthFloat16,
         kCVPixelFormatType_DepthFloat32]
    }

    static func isDepth(_ type: OSType) -> Bool { type == kCVPixelFormatType_DepthFloat16 || type == kCVPixelFormatType_DepthFloat32 }
    static func isHalf(_ type: OSType) -> Bool {
        type == kCVPixelFormatType_DepthFloat16 || type == kCVPixelFormatType_DisparityFloat16
    }

    /// Depth data from an auxiliary-data dictionary, as AVFoundation's `init(fromDictionaryRepresentation:)`:
    /// ``kCGImageAuxiliaryDataInfoData`` (the pixels), ``kCGImageAuxiliaryDataInfoDataDescription`` (`Width`,
    /// `Height`, `BytesPerRow`, `PixelFormat`: a depth or disparity type) and, optionally,
    /// ``kCGImageAuxiliaryDataInfoMetadata`` (a ``CGImageMetadata`` with `depthData:Accuracy`, `…:Filtered`,
    /// `…:Quality` in Apple's namespace `http://ns.apple.com/depthData/1.0/`, and the camera calibration this
    /// package writes). Without metadata (or a tag), the data is taken as relative, unfiltered and of low quality,
    /// the cautious reading (Apple does not document its defaults).
    ///
    /// - Throws: ``AVError`` `.decodeFailed` for a missing or malformed key, a format that is not depth or
    ///   disparity, data shorter than the description says, or malformed metadata.
    public convenience init(fromDictionaryRepresentation imageSourceAuxDataInfoDictionary: [AnyHashable: Any]) throws {
        let info = cfStringKeyed(imageSourceAuxDataInfoDictionary)
        guard let data = info[kCGImageAuxiliaryDataInfoData] as? Data ?? (info[kCGImageAuxiliaryDataInfoData] as? NSData).map({ Data($0) })
        else { throw AVError.decode("the dictionary has no kCGImageAuxiliaryDataInfoData") }
        guard let described = info[kCGImageAuxiliaryDataInfoDataDescription] as? [AnyHashable: Any] else {
            throw AVError.decode("the dictionary has no kCGImageAuxiliaryDataInfoDataDescription")
        }
        let description = cfStringKeyed(described)
        func number(_ key: String) throws -> Int {
            guard let raw = description[key], let value = integerValue(raw) else {
                throw AVError.decode("the data description has no integer \(key)")
            }
            return value
        }
        let width = try number(kCGImagePropertyWidth), height = try number(kCGImagePropertyHeight)
        let rowBytes = try number(kCGImagePropertyBytesPerRow), format = try number(kCGImagePropertyPixelFormat)
        guard let mapType = OSType(exactly: format), Self.types.contains(mapType) else {
            throw AVError.decode("pixel format \(format) is not a depth or disparity format")
        }
        let size = Self.isHalf(mapType) ? 2 : 4
        guard width > 0, height > 0, width <= 65_535, height <= 65_535, width * height <= 100_000_000 else {
            throw AVError.decode("a depth map of \(width) × \(height) pixels is empty or too large")
        }
        let (rows, overflow) = rowBytes.multipliedReportingOverflow(by: height - 1)
        guard rowBytes >= width * size, !overflow, rows <= data.count - width * size else {
            throw AVError.decode(
                "\(data.count) bytes cannot hold \(height) rows of \(width) values \(rowBytes) bytes apart")
        }
        var pixels: PixelBuffer
        do {
            pixels = try PixelBuffer(width: width, height: height, format: size == 2 ? .oneComponent16Half : .oneComponent32Float)
        } catch {
            throw AVError.decode("cannot hold a depth map of \(width) × \(height) pixels: \(error)")
        }
        let stride = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { source in
                for y in 0..<height {
                    (out.baseAddress! + y * stride).copyMemory(from: source.baseAddress! + y * rowBytes, byteCount: width * size)
                }
            }
        }
        var quality = Quality.low, accuracy = Accuracy.relative, filtered = false
        var calibration: AVCameraCalibrationData?
        if let raw = info[kCGImageAuxiliaryDataInfoMetadata] {
            guard let metadata = raw as? CGImageMetadata else {
                throw AVError.decode("kCGImageAuxiliaryDataInfoMetadata must be a CGImageMetadata, not \(type(of: raw))")
            }
            (quality, accuracy, filtered) = try Self.description(metadata)
            calibration = try AVCameraCalibrationData.read(from: metadata)
        }
        self.init(
            map: CVPixelBuffer(pixels, formatType: mapType), quality: quality, accuracy: accuracy, filtered: filtered,
            calibration: calibration)
    }

    /// The auxiliary-data dictionary of this depth data, as AVFoundation's
    /// `dictionaryRepresentation(forAuxiliaryDataType:)`, with the auxiliary data type it is stored as
    /// (``kCGImageAuxiliaryDataTypeDepth`` or ``kCGImageAuxiliaryDataTypeDisparity``) in `outAuxDataType`.
    /// Give the dictionary to ``CGImageDestinationAddAuxiliaryDataInfo(_:_:_:)``.
    public func dictionaryRepresentation(forAuxiliaryDataType outAuxDataType: UnsafeMutablePointer<NSString?>?)
        -> [AnyHashable: Any]?
    {
        let pixels = depthDataMap.pixelBuffer
        let size = pixels.format.bytesPerPixel, rowLength = pixels.width * size, stride = pixels.bytesPerRow()
        var bytes = Data(count: rowLength * pixels.height)
        bytes.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes { source in
                for y in 0..<pixels.height {
                    (out.baseAddress! + y * rowLength).copyMemory(from: source.baseAddress! + y * stride, byteCount: rowLength)
                }
            }
        }
        let description: [AnyHashable: Any] = [
            kCGImagePropertyWidth: NSNumber(value: pixels.width), kCGImagePropertyHeight: NSNumber(value: pixels.height),
            kCGImagePropertyBytesPerRow: NSNumber(value: rowLength), kCGImagePropertyPixelFormat: NSNumber(value: depthDataType),
        ]
        outAuxDataType?.pointee = NSString(
            string: Self.isDepth(depthDataType) ? kCGImageAuxiliaryDataTypeDepth : kCGImageAuxiliaryDataTypeDisparity)
        return [
            kCGImageAuxiliaryDataInfoData: bytes, kCGImageAuxiliaryDataInfoDataDescription: description,
            kCGImageAuxiliaryDataInfoMetadata: metadata(),
        ]
    }

    /// The description as XMP metadata: Apple's `depthData` tags and, with a calibration, this package's.
    func metadata() -> CGMutableImageMetadata {
        let metadata = CGImageMetadataCreateMutable()
        CGImageMetadataRegisterNamespaceForPrefix(metadata, XMPNamespaces.depthData, "depthData", nil)
        let tags: [(String, String)] = [
            ("depthData:PixelFormat", String(depthDataType)),
            ("depthData:Accuracy", depthDataAccuracy == .absolute ? "absolute" : "relative"),
            ("depthData:Filtered", isDepthDataFiltered ? "true" : "false"),
            ("depthData:Quality", depthDataQuality == .high ? "high" : "low"),
        ]
        for (path, value) in tags { CGImageMetadataSetValueWithPath(metadata, nil, path, NSString(string: value)) }
        cameraCalibrationData?.write(to: metadata)
        return metadata
    }

    /// Quality, accuracy and filtering from `metadata`'s `depthData` tags (each optional).
    static func description(_ metadata: CGImageMetadata) throws -> (Quality, Accuracy, Bool) {
        func text(_ name: String) throws -> String? {
            guard let tag = metadata.tag(at: "depthData:\(name)") else { return nil }
            guard tag.namespace == XMPNamespaces.depthData, let value = tag.value as? String else {
                throw AVError.decode("depthData:\(name) must be text in \(XMPNamespaces.depthData)")
            }
            return value.lowercased()
        }
        var result: (Quality, Accuracy, Bool) = (.low, .relative, false)
        switch try text("Quality") {
        case nil, "low": break
        case "high": result.0 = .high
        case let other?: throw AVError.decode("depthData:Quality must be high or low, not \(other)")
        }
        switch try text("Accuracy") {
        case nil, "relative": break
        case "absolute": result.1 = .absolute
        case let other?: throw AVError.decode("depthData:Accuracy must be absolute or relative, not \(other)")
        }
        switch try text("Filtered") {
        case nil, "false", "0": break
        case "true", "1": result.2 = true
        case let other?: throw AVError.decode("depthData:Filtered must be true or false, not \(other)")
        }
        return result
    }
}

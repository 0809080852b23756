import Foundation
import PVImaging

/// The storage and ImageIO dictionary form shared by ``AVSemanticSegmentationMatte`` and ``AVPortraitEffectsMatte``.
///
/// A matte's auxiliary-data dictionary, as ImageIO's `CGImageSourceCopyAuxiliaryDataInfoAtIndex` returns it and
/// `CGImageDestinationAddAuxiliaryDataInfo` takes it, holds the raw rows under ``kCGImageAuxiliaryDataInfoData`` and
/// their layout under ``kCGImageAuxiliaryDataInfoDataDescription`` (`Width`, `Height`, `BytesPerRow`, `PixelFormat`);
/// a metadata entry (`kCGImageAuxiliaryDataInfoMetadata`) is kept as given and written back unchanged.
enum AuxiliaryMatte {
    /// The metadata key of ImageIO's auxiliary-data dictionaries (its value is kept, not interpreted).
    static let metadataKey = "kCGImageAuxiliaryDataInfoMetadata"

    /// The error Apple's matte initializers report: domain `AVFoundationErrorDomain`, code −11800
    /// (`AVError.Code.unknown`; Apple does not document which code a malformed dictionary gets).
    static func failure(_ message: String) -> NSError {
        NSError(
            domain: "AVFoundationErrorDomain", code: -11800,
            userInfo: [NSLocalizedDescriptionKey: "The matte could not be created", NSLocalizedFailureReasonErrorKey: message])
    }

    /// The matte's pixels from an auxiliary-data dictionary: one-component 8-bit rows, validated against their data.
    static func pixels(from dictionary: [AnyHashable: Any]) throws -> PixelBuffer {
        guard let data = value(dictionary, kCGImageAuxiliaryDataInfoData).flatMap(bytes) else {
            throw failure("the dictionary has no \(kCGImageAuxiliaryDataInfoData) bytes")
        }
        guard let description = value(dictionary, kCGImageAuxiliaryDataInfoDataDescription).flatMap(stringKeyed) else {
            throw failure("the dictionary has no \(kCGImageAuxiliaryDataInfoDataDescription) dictionary")
        }
        func field(_ name: String) throws -> Int {
            guard let raw = description[name], let number = integer(raw) else {
                throw failure("the data description has no integer \(name)")
            }
            return number
        }
        let width = try field("Width"), height = try field("Height"), rowBytes = try field("BytesPerRow")
        let format = try field("PixelFormat")
        guard format == Int(kCVPixelFormatType_OneComponent8) else {
            throw failure("mattes are OneComponent8 ('L008'), not pixel format \(format)")
        }
        var pixels: PixelBuffer
        do {
            try ImageLimits.default.check(width: width, height: height)
            pixels = try PixelBuffer(width: width, height: height, format: .oneComponent8)
        } catch let error as ImagingError {
            throw failure("matte size \(width)×\(height): \(error.message)")
        }
        guard rowBytes >= width else { throw failure("BytesPerRow \(rowBytes) is less than the width \(width)") }
        let (needed, overflow) = rowBytes.multipliedReportingOverflow(by: height - 1)
        guard !overflow, needed <= data.count - width else {
            throw failure("\(data.count) bytes cannot hold \(height) rows of \(rowBytes) bytes")
        }
        let row = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { source in
                for y in 0..<height {
                    let from = source.baseAddress! + y * rowBytes
                    (out.baseAddress! + y * row).copyMemory(from: from, byteCount: width)
                }
            }
        }
        return pixels
    }

    /// The auxiliary-data dictionary of `buffer` (tight rows), with `metadata` when there is one.
    static func dictionary(of buffer: CVPixelBuffer, metadata: Any?) -> [AnyHashable: Any] {
        let pixels = buffer.pixelBuffer
        let width = pixels.width, height = pixels.height, row = pixels.bytesPerRow()
        var data = Data(count: width * height)
        data.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes { source in
                for y in 0..<height {
                    (out.baseAddress! + y * width).copyMemory(from: source.baseAddress! + y * row, byteCount: width)
                }
            }
        }
        var result: [AnyHashable: Any] = [
            kCGImageAuxiliaryDataInfoData: data,
            kCGImageAuxiliaryDataInfoDataDescription: [
                "Width": width, "Height": height, "BytesPerRow": width,
                "PixelFormat": Int(kCVPixelFormatType_OneComponent8),
            ] as [String: Any],
        ]
        if let metadata { result[metadataKey] = metadata }
        return result
    }

    /// A one-component 8-bit copy of `buffer`, or a typed error for any other format.
    static func checked(_ buffer: CVPixelBuffer) throws -> CVPixelBuffer {
        guard buffer.pixelFormatType == kCVPixelFormatType_OneComponent8 else {
            throw failure("a matte's pixel buffer must be OneComponent8 ('L008'), not \(fourCC(buffer.pixelFormatType))")
        }
        return CVPixelBuffer(buffer.pixelBuffer)
    }

    /// `buffer` turned by an EXIF orientation (width and height swap for 5–8).
    static func oriented(_ buffer: CVPixelBuffer, _ orientation: CGImagePropertyOrientation) -> CVPixelBuffer {
        guard let turn = Orientation(rawValue: orientation.rawValue),
            let turned = try? buffer.pixelBuffer.applying(turn)
        else { return buffer }
        return CVPixelBuffer(turned)
    }

    // MARK: Reading loosely typed dictionaries

    private static func value(_ dictionary: [AnyHashable: Any], _ key: String) -> Any? {
        dictionary[AnyHashable(key)] ?? dictionary[AnyHashable(NSString(string: key))]
    }

    private static func bytes(_ value: Any) -> Data? {
        if let data = value as? Data { return data }
        if let data = value as? NSData { return Data(referencing: data) }
        return nil
    }

    private static func stringKeyed(_ value: Any) -> [String: Any]? {
        if let d = value as? [String: Any] { return d }
        if let d = value as? [AnyHashable: Any] {
            var result: [String: Any] = [:]
            for (key, entry) in d {
                if let k = key.base as? String { result[k] = entry } else if let k = key.base as? NSString { result[String(k)] = entry }
            }
            return result
        }
        if let d = value as? NSDictionary { return stringKeyed(d as? [AnyHashable: Any] ?? [:]) }
        return nil
    }

    private static func integer(_ value: Any) -> Int? {
        switch value {
        case let v as Int: return v
        case let v as UInt32: return Int(v)
        case let v as Int32: return Int(v)
        case let v as UInt: return Int(exactly: v)
        case let v as Int64: return Int(exactly: v)
        case let v as NSNumber:
            let d = v.doubleValue
            return d.rounded() == d && abs(d) < 1e15 ? Int(d) : nil
        default: return nil
        }
    }
}

import Foundation
import PVImaging

extension AVDepthData {
    /// The depth data of an image file: a HEIC's depth image, or the depth or disparity image of a multi-picture
    /// JPEG as Apple's portrait photos carry it (``JPEGDepth``); nil for another format or a file without depth.
    /// - Throws: ``AVError`` `.decodeFailed` when the file's depth image or its description is malformed.
    static func read(fromFile data: Data) throws -> AVDepthData? {
        switch try? ImageFormat(sniffing: data) {
        case .heic?:
            guard let reader = try? HEICReader(data: data) else { return nil }
            return try read(from: reader)
        case .jpeg?:
            return try JPEGDepth.read(data)
        default:
            return nil
        }
    }

    /// The depth data of a HEIC file, or nil when it has none.
    ///
    /// The map comes back in the format its description records (`depthData:PixelFormat`, as written by
    /// ``heicDepthMap()``), else as 32-bit floats of the kind the file stores. A depth image without the range
    /// record this package writes (another writer's) holds its codes scaled to 0…1, with relative accuracy.
    /// - Throws: ``AVError`` `.decodeFailed` when the depth image or its description is malformed.
    static func read(from reader: HEICReader) throws -> AVDepthData? {
        let stored: HEICDepthMap
        do {
            guard let map = try reader.depthMap() else { return nil }
            stored = map
        } catch {
            throw AVError.decode("the file's depth image cannot be read: \(error)")
        }
        let metadata = CGImageMetadataCreateMutable()
        for packet in stored.metadata {
            guard let parsed = CGImageMetadataCreateFromXMPData(Data(packet.utf8)) else { continue }
            let (namespaces, tags) = parsed.snapshot
            for tag in tags where metadata.register(prefix: tag.prefix, namespace: namespaces[tag.prefix] ?? tag.namespace) {
                _ = metadata.set(tag, at: tag.path)
            }
        }
        var (quality, accuracy, filtered) = try description(metadata)
        // Without the range this package records, the values are the stored codes scaled to 0…1 (another writer's
        // encoding): in order, but in no known unit.
        if stored.range == nil { accuracy = .relative }
        let calibration = try AVCameraCalibrationData.read(from: metadata)
        let values = try? stored.values.converted(to: .oneComponent32Float)
        guard let values else { throw AVError.decode("the file's depth image has no float values") }
        let kindType = stored.kind == .depth ? kCVPixelFormatType_DepthFloat32 : kCVPixelFormatType_DisparityFloat32
        let data = AVDepthData(
            map: CVPixelBuffer(values, formatType: kindType), quality: quality, accuracy: accuracy, filtered: filtered,
            calibration: calibration)
        let recorded = CGImageMetadataCopyStringValueWithPath(metadata, nil, "depthData:PixelFormat").flatMap { OSType($0) }
        guard let recorded, types.contains(recorded), isDepth(recorded) == (stored.kind == .depth) else { return data }
        return data.converting(toDepthDataType: recorded)
    }

    /// The map and description as a HEIC depth image: 32-bit values of the map's own kind (holes, NaN or
    /// infinite, stored as 0, which Vision reads as a hole too) and the description as an XMP packet.
    func heicDepthMap() throws -> HEICDepthMap {
        var (width, height, values) = floatValues()
        for i in values.indices where !values[i].isFinite { values[i] = 0 }
        let pixels = try Self.map(values, width: width, height: height, type: kCVPixelFormatType_DepthFloat32).pixelBuffer
        let packet = CGImageMetadataCreateXMPData(metadata(), nil).flatMap { String(data: $0, encoding: .utf8) }
        return HEICDepthMap(
            values: pixels, kind: Self.isDepth(depthDataType) ? .depth : .disparity, metadata: packet.map { [$0] } ?? [])
    }
}

import Foundation
import PVImaging

/// The depth of a JPEG photo as Apple's cameras store it: the photo is the first image of a Multi-Picture Format file
/// (CIPA DC-007: an `APP2` segment `MPF` whose index lists every image's size and offset), and the depth or disparity
/// map is a further image of it, a grey JPEG whose XMP describes it in Apple's namespaces:
/// - `http://ns.apple.com/pixeldatainfo/1.0/`: `AuxiliaryImageType` (`depth` or `disparity`; a matte carries an
///   `AuxiliaryImageSubType` too), `NativeFormat` (the map's pixel format, such as `hdis`), `StoredFormat` (`L008`),
///   and `IntMinValue` … `IntMaxValue` standing for `FloatMinValue` … `FloatMaxValue`, linearly;
/// - `http://ns.apple.com/depthData/1.0/`: `Accuracy`, `Filtered`, `Quality`, and the camera calibration
///   (`IntrinsicMatrix` as nine numbers column by column, `IntrinsicMatrixReferenceWidth` and `…Height`,
///   `ExtrinsicMatrix`, `PixelSize`, `LensDistortionCenterOffsetX` and `…Y`).
enum JPEGDepth {
    static let pixelDataInfo = "http://ns.apple.com/pixeldatainfo/1.0/"

    /// The depth data of a JPEG file, or nil when the file is not a JPEG or holds no depth or disparity image.
    /// - Throws: ``AVError`` `.decodeFailed` when the file's multi-picture index, or the depth image or its
    ///   description, is malformed.
    static func read(_ data: Data) throws -> AVDepthData? {
        let bytes = [UInt8](data)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        for image in try images(bytes) {
            for (_, packet) in segments(image, app: 0xE1, prefix: Array("http://ns.adobe.com/xap/1.0/\0".utf8)) {
                guard let metadata = CGImageMetadataCreateFromXMPData(Data(packet) as CFData),
                    let kind = (metadata.tag(namespace: pixelDataInfo, name: "AuxiliaryImageType")?.value as? String)?.lowercased(),
                    kind == "depth" || kind == "disparity", metadata.tag(namespace: pixelDataInfo, name: "AuxiliaryImageSubType")?.value as? String == nil
                else { continue }
                return try depth(Data(image), kind: kind, metadata: metadata)
            }
        }
        return nil
    }

    /// The depth data of one auxiliary JPEG described by `metadata`.
    static func depth(_ jpeg: Data, kind: String, metadata: CGImageMetadata) throws -> AVDepthData {
        func number(_ name: String) throws -> Double? {
            guard let raw = metadata.tag(namespace: pixelDataInfo, name: name)?.value as? String else { return nil }
            guard let value = Double(raw.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                throw AVError.decode("apdi:\(name) must be a finite number, not \(raw)")
            }
            return value
        }
        let native = try number("NativeFormat").flatMap { OSType(exactly: $0) }
        let type: OSType
        if let native {
            guard AVDepthData.types.contains(native), AVDepthData.isDepth(native) == (kind == "depth") else {
                throw AVError.decode("apdi:NativeFormat \(native) is not a \(kind) format")
            }
            type = native
        } else {
            type = kind == "depth" ? kCVPixelFormatType_DepthFloat32 : kCVPixelFormatType_DisparityFloat32
        }
        let codes: PixelBuffer
        do {
            codes = try ImageDecoder.decode(data: jpeg, options: ImageDecoder.Options(applyOrientation: false, keepsGrayscale: true)).pixels
                .converted(to: .oneComponent8)
        } catch {
            throw AVError.decode("the file's \(kind) image cannot be decoded: \(error)")
        }
        let intMin = try number("IntMinValue") ?? 0, intMax = try number("IntMaxValue") ?? 255
        let floatMin = try number("FloatMinValue"), floatMax = try number("FloatMaxValue")
        guard intMax > intMin else { throw AVError.decode("apdi:IntMaxValue \(intMax) must exceed apdi:IntMinValue \(intMin)") }
        // Without a float range the codes are in order but in no known unit: 0…1, relative.
        let low = floatMin ?? 0, high = floatMax ?? 1
        var values = try PixelBuffer(width: codes.width, height: codes.height, format: .oneComponent32Float)
        let inRow = codes.bytesPerRow(), outRow = values.bytesPerRow(), scale = (high - low) / (intMax - intMin)
        values.withUnsafeMutableBytes { out in
            codes.withUnsafeBytes { source in
                for y in 0..<codes.height {
                    for x in 0..<codes.width {
                        let code = Double(source[y * inRow + x])
                        out.storeBytes(of: Float(low + (code - intMin) * scale), toByteOffset: y * outRow + 4 * x, as: Float.self)
                    }
                }
            }
        }
        var (quality, accuracy, filtered) = try AVDepthData.description(metadata)
        if floatMin == nil || floatMax == nil { accuracy = .relative }
        let floatType = AVDepthData.isDepth(type) ? kCVPixelFormatType_DepthFloat32 : kCVPixelFormatType_DisparityFloat32
        let data = AVDepthData(
            map: CVPixelBuffer(values, formatType: floatType), quality: quality, accuracy: accuracy, filtered: filtered,
            calibration: try AVCameraCalibrationData.read(from: metadata))
        return type == floatType ? data : data.converting(toDepthDataType: type)
    }

    /// The images after the first of a multi-picture JPEG, as their bytes (empty without an `MPF` index). The index is
    /// a TIFF structure (read with the codecs' TIFF reader): its first IFD's `MPEntry` (0xB002) lists 16 bytes per
    /// image (attributes, size, offset from the index's TIFF header, two dependent-image entries).
    static func images(_ bytes: [UInt8]) throws -> [ArraySlice<UInt8>] {
        guard let index = segments(bytes[...], app: 0xE2, prefix: Array("MPF\0".utf8)).first else { return [] }
        func malformed(_ what: String) -> AVError { AVError.decode("the JPEG's multi-picture index \(what)") }
        let places: [(size: Int, offset: Int)] = try Array(index.payload).withUnsafeBytes { raw in
            guard let tiff = EXIF.TIFF(raw) else { throw malformed("has no TIFF header") }
            guard let ifd = tiff.firstIFD, let list = tiff.entry(0xB002, inIFD: ifd) else {
                throw malformed("has no image list (MPEntry)")
            }
            let length = Int(list.count)
            guard length % 16 == 0, length / 16 <= 64, let first = tiff.u32(list.value).map(Int.init) else {
                throw malformed("lists \(length) bytes of images")
            }
            return try (1..<max(1, length / 16)).map { k in
                guard let size = tiff.u32(first + 16 * k + 4), let offset = tiff.u32(first + 16 * k + 8) else {
                    throw malformed("points outside itself")
                }
                return (Int(size), Int(offset))
            }
        }
        return try places.enumerated().map { k, place in
            let start = index.start + place.offset
            guard place.offset > 0, place.size > 4, start <= bytes.count, place.size <= bytes.count - start else {
                throw malformed("places image \(k + 2) (\(place.size) bytes at \(place.offset)) outside the file")
            }
            let image = bytes[start..<(start + place.size)]
            guard image[start] == 0xFF, image[start + 1] == 0xD8 else { throw malformed("places image \(k + 2) where no JPEG starts") }
            return image
        }
    }

    /// The `APPn` segments `app` of a JPEG's header (before its first scan) whose payload begins with `prefix`: where
    /// the rest of each payload begins in `bytes`, and that rest.
    static func segments(_ bytes: ArraySlice<UInt8>, app: UInt8, prefix: [UInt8]) -> [(start: Int, payload: ArraySlice<UInt8>)] {
        var out: [(Int, ArraySlice<UInt8>)] = []
        var i = bytes.startIndex + 2
        while i + 4 <= bytes.endIndex, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }
            if marker == 0xDA || marker == 0xD9 { break }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                i += 2
                continue
            }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 2, i + 2 + length <= bytes.endIndex else { break }
            let body = bytes[(i + 4)..<(i + 2 + length)]
            if marker == app, body.count >= prefix.count, body.prefix(prefix.count).elementsEqual(prefix) {
                out.append((i + 4 + prefix.count, body.dropFirst(prefix.count)))
            }
            i += 2 + length
        }
        return out
    }
}

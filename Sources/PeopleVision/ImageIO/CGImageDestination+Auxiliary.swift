import Foundation
import PVImaging

extension AuxiliaryData {
    /// The HEIC auxiliary images of ``CGImageDestinationAddAuxiliaryDataInfo(_:_:_:)``'s dictionaries.
    /// - Throws: ``ImagingError`` `.invalidArgument` for an unknown type or a malformed dictionary.
    static func heicImages(_ auxiliary: [(type: String, info: [AnyHashable: Any])]) throws
        -> (mattes: [HEICAuxiliaryImage], depth: HEICDepthMap?)
    {
        var images: [HEICAuxiliaryImage] = [], depth: HEICDepthMap?
        for (type, info) in auxiliary {
            if type == kCGImageAuxiliaryDataTypeDepth || type == kCGImageAuxiliaryDataTypeDisparity {
                guard depth == nil else { throw ImagingError(.invalidArgument, "a file holds one depth or disparity map") }
                let data: AVDepthData
                do {
                    data = try AVDepthData(fromDictionaryRepresentation: info)
                } catch let error as AVError {
                    throw ImagingError(.invalidArgument, "the \(type) dictionary is malformed: \(error.reason)")
                }
                let wantsDepth = type == kCGImageAuxiliaryDataTypeDepth
                depth = try data.converting(
                    toDepthDataType: wantsDepth ? kCVPixelFormatType_DepthFloat32 : kCVPixelFormatType_DisparityFloat32
                ).heicDepthMap()
            } else if let matte = mattes[type] {
                images.append(HEICAuxiliaryImage(type: matte, pixels: try mattePixels(info, type)))
            } else {
                throw ImagingError(.invalidArgument, "\(type) is not an auxiliary data type written here")
            }
        }
        return (images, depth)
    }

    /// A matte's pixels from its `kCVPixelFormatType_OneComponent8` data and description.
    private static func mattePixels(_ info: [AnyHashable: Any], _ type: String) throws -> PixelBuffer {
        let keyed = cfStringKeyed(info)
        guard let data = keyed[kCGImageAuxiliaryDataInfoData] as? Data,
            let described = keyed[kCGImageAuxiliaryDataInfoDataDescription] as? [AnyHashable: Any]
        else { throw ImagingError(.invalidArgument, "the \(type) dictionary needs data and a data description") }
        let description = cfStringKeyed(described)
        func number(_ key: String) -> Int? { description[key].flatMap(integerValue) }
        guard let width = number(kCGImagePropertyWidth), let height = number(kCGImagePropertyHeight),
            let rowBytes = number(kCGImagePropertyBytesPerRow), number(kCGImagePropertyPixelFormat) == Int(kCVPixelFormatType_OneComponent8),
            width > 0, height > 0, width <= 65_535, height <= 65_535, rowBytes >= width,
            case let (rows, overflow) = rowBytes.multipliedReportingOverflow(by: height - 1), !overflow,
            rows <= data.count - width
        else { throw ImagingError(.invalidArgument, "the \(type) data description is not one-component 8-bit pixels the data holds") }
        var pixels = try PixelBuffer(width: width, height: height, format: .oneComponent8)
        let stride = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { source in
                for y in 0..<height {
                    (out.baseAddress! + y * stride).copyMemory(from: source.baseAddress! + y * rowBytes, byteCount: width)
                }
            }
        }
        return pixels
    }
}

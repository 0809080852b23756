import Foundation

/// A semantic segmentation matte of a photo (skin, hair, teeth, glasses or sky), as AVFoundation's
/// `AVSemanticSegmentationMatte` (iOS 13; glasses iOS 14.1, sky iOS 14.3).
///
/// The matte is a one-component 8-bit image (`kCVPixelFormatType_OneComponent8`), 255 where the photo shows the
/// matte's class, usually smaller than the photo. A HEIC photo stores it as an auxiliary image; read it with
/// ImageIO's auxiliary-data dictionary, or from the `CIImage` Core Image reads with the matching option:
///
/// ```swift
/// let hair = CIImage(contentsOf: url, options: [.auxiliarySemanticSegmentationHairMatte: true])
/// if let matte = hair?.semanticSegmentationMatte { print(matte.matteType, CVPixelBufferGetWidth(matte.mattingImage)) }
/// ```
///
/// iPhones make these mattes when they take a photo; ``PVGenerateMattesRequest`` (this package's own
/// request) makes them for any photo.
///
/// Differences from Apple: ``dictionaryRepresentation(forAuxiliaryDataType:)`` takes an `UnsafeMutablePointer`
/// (Swift has no `AutoreleasingUnsafeMutablePointer` off Apple platforms; `&name` and `nil` work as there), and the
/// type strings are the constants' own names (Apple's values are not documented).
public final class AVSemanticSegmentationMatte: NSObject, Sendable {
    /// The kind of a semantic segmentation matte, as `AVSemanticSegmentationMatte.MatteType`.
    public struct MatteType: RawRepresentable, Hashable, Sendable {
        /// The type's string.
        public let rawValue: String
        /// A type from its string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A type from its string.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// Skin (`AVSemanticSegmentationMatteTypeSkin`, iOS 13).
        public static let skin = MatteType("AVSemanticSegmentationMatteTypeSkin")
        /// Hair (`AVSemanticSegmentationMatteTypeHair`, iOS 13).
        public static let hair = MatteType("AVSemanticSegmentationMatteTypeHair")
        /// Teeth (`AVSemanticSegmentationMatteTypeTeeth`, iOS 13).
        public static let teeth = MatteType("AVSemanticSegmentationMatteTypeTeeth")
        /// Glasses (`AVSemanticSegmentationMatteTypeGlasses`, iOS 14.1).
        public static let glasses = MatteType("AVSemanticSegmentationMatteTypeGlasses")
        /// Sky (`AVSemanticSegmentationMatteTypeSky`, iOS 14.3).
        public static let sky = MatteType("AVSemanticSegmentationMatteTypeSky")
    }

    /// The matte's kind.
    public let matteType: MatteType
    /// The matte: a `kCVPixelFormatType_OneComponent8` buffer, 0 (not the class) to 255 (the class).
    public let mattingImage: CVPixelBuffer
    /// The matte's pixel format: always `kCVPixelFormatType_OneComponent8`.
    public var pixelFormatType: OSType { mattingImage.pixelFormatType }
    /// The metadata entry of the dictionary the matte was read from, written back unchanged.
    private let metadata: MetadataBox?

    init(type: MatteType, image: CVPixelBuffer, metadata: MetadataBox? = nil) {
        matteType = type
        mattingImage = image
        self.metadata = metadata
    }

    /// A matte from ImageIO's auxiliary-data dictionary, as Apple's
    /// `init(fromImageSourceAuxiliaryDataType:dictionaryRepresentation:)`.
    ///
    /// - Parameters:
    ///   - imageSourceAuxiliaryDataType: One of the `kCGImageAuxiliaryDataTypeSemanticSegmentation…Matte` types.
    ///   - imageSourceAuxiliaryDataInfoDictionary: The dictionary: the rows under ``kCGImageAuxiliaryDataInfoData``,
    ///     their layout under ``kCGImageAuxiliaryDataInfoDataDescription``.
    /// - Throws: an `NSError` in `AVFoundationErrorDomain` (code −11800) for another data type, missing or
    ///   non-integer fields, a pixel format other than OneComponent8, an empty or oversized matte, or too few bytes.
    public convenience init(
        fromImageSourceAuxiliaryDataType imageSourceAuxiliaryDataType: CFString,
        dictionaryRepresentation imageSourceAuxiliaryDataInfoDictionary: [AnyHashable: Any]
    ) throws {
        guard let type = Self.matteTypes.first(where: { $0.1 == imageSourceAuxiliaryDataType })?.0 else {
            throw AuxiliaryMatte.failure("\(imageSourceAuxiliaryDataType) is not a semantic segmentation matte type")
        }
        let pixels = try AuxiliaryMatte.pixels(from: imageSourceAuxiliaryDataInfoDictionary)
        let metadata = imageSourceAuxiliaryDataInfoDictionary[AnyHashable(AuxiliaryMatte.metadataKey)].map(MetadataBox.init)
        self.init(type: type, image: CVPixelBuffer(pixels), metadata: metadata)
    }

    /// The matte turned by an EXIF orientation (the photo's), as Apple's `applyingExifOrientation(_:)`.
    public func applyingExifOrientation(_ exifOrientation: CGImagePropertyOrientation) -> Self {
        Self(type: matteType, image: AuxiliaryMatte.oriented(mattingImage, exifOrientation), metadata: metadata)
    }

    /// A matte of the same type holding `pixelBuffer`, as Apple's `replacingSemanticSegmentationMatte(with:)`.
    ///
    /// - Throws: an `NSError` in `AVFoundationErrorDomain` (code −11800) unless the buffer is OneComponent8.
    public func replacingSemanticSegmentationMatte(with pixelBuffer: CVPixelBuffer) throws -> Self {
        Self(type: matteType, image: try AuxiliaryMatte.checked(pixelBuffer), metadata: metadata)
    }

    /// The matte as ImageIO's auxiliary-data dictionary, as Apple's `dictionaryRepresentation(forAuxiliaryDataType:)`.
    ///
    /// - Parameter outAuxDataType: Receives the matte's `kCGImageAuxiliaryDataTypeSemanticSegmentation…Matte` type.
    /// - Returns: The rows (tight, `BytesPerRow` = width), their layout and any metadata the matte was read with.
    public func dictionaryRepresentation(forAuxiliaryDataType outAuxDataType: UnsafeMutablePointer<NSString?>?)
        -> [AnyHashable: Any]?
    {
        guard let type = Self.matteTypes.first(where: { $0.0 == matteType })?.1 else { return nil }
        outAuxDataType?.pointee = NSString(string: type)
        return AuxiliaryMatte.dictionary(of: mattingImage, metadata: metadata?.value)
    }

    /// Apple's matte types and ImageIO's auxiliary-data types, one to one.
    static let matteTypes: [(MatteType, CFString)] = [
        (.skin, kCGImageAuxiliaryDataTypeSemanticSegmentationSkinMatte),
        (.hair, kCGImageAuxiliaryDataTypeSemanticSegmentationHairMatte),
        (.teeth, kCGImageAuxiliaryDataTypeSemanticSegmentationTeethMatte),
        (.glasses, kCGImageAuxiliaryDataTypeSemanticSegmentationGlassesMatte),
        (.sky, kCGImageAuxiliaryDataTypeSemanticSegmentationSkyMatte),
    ]

    public override var description: String {
        "AVSemanticSegmentationMatte(\(matteType.rawValue), \(mattingImage.width)×\(mattingImage.height))"
    }
}

/// A dictionary value kept as given; never mutated after creation.
final class MetadataBox: @unchecked Sendable {
    let value: Any
    init(_ value: Any) { self.value = value }
}

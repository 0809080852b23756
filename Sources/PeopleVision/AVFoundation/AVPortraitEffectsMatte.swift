import Foundation

/// The portrait effects matte of a photo, as AVFoundation's `AVPortraitEffectsMatte` (iOS 12).
///
/// A one-component 8-bit image (`kCVPixelFormatType_OneComponent8`), 255 on the people of the photo and soft at
/// their edges, which Portrait mode uses for its background blur and lighting. A HEIC photo stores it as an
/// auxiliary image of type ``kCGImageAuxiliaryDataTypePortraitEffectsMatte``:
///
/// ```swift
/// let image = CIImage(contentsOf: url, options: [.auxiliaryPortraitEffectsMatte: true])
/// let matte = image?.portraitEffectsMatte   // AVPortraitEffectsMatte?
/// ```
///
/// ``PVGenerateMattesRequest`` (this package's own request) makes one for any photo from the accurate person
/// mask. Differences from Apple as for ``AVSemanticSegmentationMatte``.
public final class AVPortraitEffectsMatte: NSObject, Sendable {
    /// The matte: a `kCVPixelFormatType_OneComponent8` buffer.
    public let mattingImage: CVPixelBuffer
    /// The matte's pixel format: always `kCVPixelFormatType_OneComponent8`.
    public var pixelFormatType: OSType { mattingImage.pixelFormatType }
    private let metadata: MetadataBox?

    init(image: CVPixelBuffer, metadata: MetadataBox? = nil) {
        mattingImage = image
        self.metadata = metadata
    }

    /// A matte from ImageIO's auxiliary-data dictionary of type ``kCGImageAuxiliaryDataTypePortraitEffectsMatte``,
    /// as Apple's `init(fromDictionaryRepresentation:)`.
    ///
    /// - Throws: an `NSError` in `AVFoundationErrorDomain` (code −11800) for missing or non-integer fields, a pixel
    ///   format other than OneComponent8, an empty or oversized matte, or too few bytes.
    public convenience init(fromDictionaryRepresentation imageSourceAuxDataInfoDictionary: [AnyHashable: Any]) throws {
        let pixels = try AuxiliaryMatte.pixels(from: imageSourceAuxDataInfoDictionary)
        let metadata = imageSourceAuxDataInfoDictionary[AnyHashable(AuxiliaryMatte.metadataKey)].map(MetadataBox.init)
        self.init(image: CVPixelBuffer(pixels), metadata: metadata)
    }

    /// The matte turned by an EXIF orientation, as Apple's `applyingExifOrientation(_:)`.
    public func applyingExifOrientation(_ exifOrientation: CGImagePropertyOrientation) -> Self {
        Self(image: AuxiliaryMatte.oriented(mattingImage, exifOrientation), metadata: metadata)
    }

    /// A matte holding `pixelBuffer`, as Apple's `replacingPortraitEffectsMatte(with:)`.
    ///
    /// - Throws: an `NSError` in `AVFoundationErrorDomain` (code −11800) unless the buffer is OneComponent8.
    public func replacingPortraitEffectsMatte(with pixelBuffer: CVPixelBuffer) throws -> Self {
        Self(image: try AuxiliaryMatte.checked(pixelBuffer), metadata: metadata)
    }

    /// The matte as ImageIO's auxiliary-data dictionary, as Apple's `dictionaryRepresentation(forAuxiliaryDataType:)`.
    ///
    /// - Parameter outAuxDataType: Receives ``kCGImageAuxiliaryDataTypePortraitEffectsMatte``.
    public func dictionaryRepresentation(forAuxiliaryDataType outAuxDataType: UnsafeMutablePointer<NSString?>?)
        -> [AnyHashable: Any]?
    {
        outAuxDataType?.pointee = NSString(string: kCGImageAuxiliaryDataTypePortraitEffectsMatte)
        return AuxiliaryMatte.dictionary(of: mattingImage, metadata: metadata?.value)
    }

    public override var description: String {
        "AVPortraitEffectsMatte(\(mattingImage.width)×\(mattingImage.height))"
    }
}

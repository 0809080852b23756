/// The kind of a HEIF auxiliary image: the type URN in its `auxC` property.
///
/// iPhone Portrait photos store their mattes and depth as auxiliary images of the primary
/// image. The URNs are Apple's (see `spec/VISION-API.md` §6.6); the year in each is fixed per
/// kind. Depth and disparity share ``depth``; metadata tells them apart.
///
/// ```swift
/// let reader = try HEICReader(data: heic)
/// if let hair = try reader.auxiliaryImage(.hairMatte) { … }
/// ```
public struct AuxiliaryImageType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The URN.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// HEVC depth (and disparity): `urn:mpeg:hevc:2015:auxid:2`. ImageIO's
    /// `kCGImageAuxiliaryDataTypeDepth` and `…Disparity`.
    public static let depth = AuxiliaryImageType(rawValue: "urn:mpeg:hevc:2015:auxid:2")
    /// Depth as other encoders write it: `urn:mpeg:mpegB:cicp:systems:auxiliary:depth`.
    public static let mpegDepth = AuxiliaryImageType(rawValue: "urn:mpeg:mpegB:cicp:systems:auxiliary:depth")
    /// HEVC alpha: `urn:mpeg:hevc:2015:auxid:1` (libheif writes this for RGBA images).
    public static let alpha = AuxiliaryImageType(rawValue: "urn:mpeg:hevc:2015:auxid:1")
    /// Alpha as other encoders write it: `urn:mpeg:mpegB:cicp:systems:auxiliary:alpha`.
    public static let mpegAlpha = AuxiliaryImageType(rawValue: "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha")
    /// Portrait effects matte (`kCGImageAuxiliaryDataTypePortraitEffectsMatte`).
    public static let portraitEffectsMatte = AuxiliaryImageType(
        rawValue: "urn:com:apple:photo:2018:aux:portraiteffectsmatte")
    /// Semantic skin matte (`…SemanticSegmentationSkinMatte`).
    public static let skinMatte = AuxiliaryImageType(rawValue: "urn:com:apple:photo:2019:aux:semanticskinmatte")
    /// Semantic hair matte (`…SemanticSegmentationHairMatte`).
    public static let hairMatte = AuxiliaryImageType(rawValue: "urn:com:apple:photo:2019:aux:semantichairmatte")
    /// Semantic teeth matte (`…SemanticSegmentationTeethMatte`).
    public static let teethMatte = AuxiliaryImageType(rawValue: "urn:com:apple:photo:2019:aux:semanticteethmatte")
    /// Semantic glasses matte (`…SemanticSegmentationGlassesMatte`, iOS 14.1).
    public static let glassesMatte = AuxiliaryImageType(rawValue: "urn:com:apple:photo:2020:aux:semanticglassesmatte")
    /// Semantic sky matte (`…SemanticSegmentationSkyMatte`, iOS 14.1).
    public static let skyMatte = AuxiliaryImageType(rawValue: "urn:com:apple:photo:2020:aux:semanticskymatte")
    /// HDR gain map (not a person matte).
    public static let hdrGainMap = AuxiliaryImageType(rawValue: "urn:com:apple:photo:2020:aux:hdrgainmap")

    /// The six person/scene mattes Apple writes, portrait matte first.
    public static let appleMattes: [AuxiliaryImageType] = [
        .portraitEffectsMatte, .skinMatte, .hairMatte, .teethMatte, .glassesMatte, .skyMatte,
    ]

    /// Whether this is a depth/disparity type (either URN).
    public var isDepth: Bool { self == .depth || self == .mpegDepth }
    /// Whether this is an alpha type (either URN).
    public var isAlpha: Bool { self == .alpha || self == .mpegAlpha }

    public var description: String { rawValue }
}

/// One auxiliary image as listed by ``HEICReader``.
public struct HEICAuxiliaryImageInfo: Sendable, Equatable {
    /// The HEIF item ID.
    public var itemID: UInt32
    /// Its `auxC` type.
    public var type: AuxiliaryImageType
    /// Width after the item's own transforms.
    public var width: Int
    /// Height after the item's own transforms.
    public var height: Int
    /// Bits per sample of the coded image (8 for Apple's mattes, 12 for our depth maps), or −1 if unknown.
    public var bitDepth: Int
}

/// A matte (or any grey image) to store as an auxiliary image of a HEIC.
public struct HEICAuxiliaryImage: Sendable {
    /// The URN written in `auxC`. Alpha types are refused: give the primary image alpha instead.
    public var type: AuxiliaryImageType
    /// `.oneComponent8`, or one-component half/float in 0…1 (quantized to 8 bits).
    public var pixels: PixelBuffer

    public init(type: AuxiliaryImageType, pixels: PixelBuffer) {
        self.type = type
        self.pixels = pixels
    }
}

/// A depth (or disparity) map stored in a HEIC as a 12-bit auxiliary image of type ``AuxiliaryImageType/depth``.
///
/// HEVC stores integers, so the values are mapped linearly from ``range`` onto 0…4095 and coded losslessly: a
/// value comes back within 1/8190 of the range (over 1…3 m, 0.25 mm: finer than half-float rounding). The
/// range and kind are recorded in an XMP packet attached to the depth item
/// (namespace `http://peoplevision.dev/ns/depth/1.0/`, attributes `Minimum`, `Maximum`, `Kind`),
/// which ``HEICReader/depthMap()`` reads back to restore the original units.
public struct HEICDepthMap: Sendable {
    /// Whether the values are depth (distance) or disparity (inverse distance).
    public enum Kind: String, Sendable {
        case depth
        case disparity
    }

    /// The values, `.oneComponent32Float` (writing also takes `.oneComponent16Half`).
    public var values: PixelBuffer
    /// Depth or disparity.
    public var kind: Kind
    /// Writing: the value range mapped onto the 12-bit codes; `nil` uses the data's min…max.
    /// Reading: the range recorded in the file, or `nil` when it has none (then ``values`` are
    /// the normalized codes in 0…1).
    public var range: ClosedRange<Float>?
    /// Further XMP packets stored with the depth image (its metadata: accuracy, calibration, …), written as given;
    /// reading returns every packet attached to the depth image but the range record.
    public var metadata: [String]

    /// The bits per code of the stored image.
    static let bits = 12

    public init(values: PixelBuffer, kind: Kind = .depth, range: ClosedRange<Float>? = nil, metadata: [String] = []) {
        self.values = values
        self.kind = kind
        self.range = range
        self.metadata = metadata
    }
}

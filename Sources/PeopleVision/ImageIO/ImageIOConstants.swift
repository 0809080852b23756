import PVImaging

// ImageIO's property keys and type constants. Each string is the one ImageIO uses, so dictionaries
// read and written here use the same keys as on Apple platforms.

/// The EXIF/TIFF orientation (1–8, a ``CGImagePropertyOrientation`` raw value).
public let kCGImagePropertyOrientation: CFString = "Orientation"
/// Width in pixels, as stored.
public let kCGImagePropertyPixelWidth: CFString = "PixelWidth"
/// Height in pixels, as stored.
public let kCGImagePropertyPixelHeight: CFString = "PixelHeight"
/// Whether the image has an alpha channel.
public let kCGImagePropertyHasAlpha: CFString = "HasAlpha"
/// Bits per component.
public let kCGImagePropertyDepth: CFString = "Depth"
/// The colour model (``kCGImagePropertyColorModelRGB`` or ``kCGImagePropertyColorModelGray``).
public let kCGImagePropertyColorModel: CFString = "ColorModel"
/// An RGB colour model.
public let kCGImagePropertyColorModelRGB: CFString = "RGB"
/// A grey colour model.
public let kCGImagePropertyColorModelGray: CFString = "Gray"
/// The file's size in bytes (a container property).
public let kCGImagePropertyFileSize: CFString = "FileSize"
/// The TIFF tags dictionary.
public let kCGImagePropertyTIFFDictionary: CFString = "{TIFF}"
/// The TIFF orientation tag, inside ``kCGImagePropertyTIFFDictionary``.
public let kCGImagePropertyTIFFOrientation: CFString = "Orientation"

/// A depth map (metres).
public let kCGImageAuxiliaryDataTypeDepth: CFString = "kCGImageAuxiliaryDataTypeDepth"
/// A disparity map (1/metres).
public let kCGImageAuxiliaryDataTypeDisparity: CFString = "kCGImageAuxiliaryDataTypeDisparity"
/// The portrait-effects matte (people against their background).
public let kCGImageAuxiliaryDataTypePortraitEffectsMatte: CFString = "kCGImageAuxiliaryDataTypePortraitEffectsMatte"
/// The skin matte.
public let kCGImageAuxiliaryDataTypeSemanticSegmentationSkinMatte: CFString =
    "kCGImageAuxiliaryDataTypeSemanticSegmentationSkinMatte"
/// The hair matte.
public let kCGImageAuxiliaryDataTypeSemanticSegmentationHairMatte: CFString =
    "kCGImageAuxiliaryDataTypeSemanticSegmentationHairMatte"
/// The teeth matte.
public let kCGImageAuxiliaryDataTypeSemanticSegmentationTeethMatte: CFString =
    "kCGImageAuxiliaryDataTypeSemanticSegmentationTeethMatte"
/// The glasses matte.
public let kCGImageAuxiliaryDataTypeSemanticSegmentationGlassesMatte: CFString =
    "kCGImageAuxiliaryDataTypeSemanticSegmentationGlassesMatte"
/// The sky matte.
public let kCGImageAuxiliaryDataTypeSemanticSegmentationSkyMatte: CFString =
    "kCGImageAuxiliaryDataTypeSemanticSegmentationSkyMatte"
/// An auxiliary image's pixels (`Data`).
public let kCGImageAuxiliaryDataInfoData: CFString = "kCGImageAuxiliaryDataInfoData"
/// An auxiliary image's layout (`Width`, `Height`, `BytesPerRow`, `PixelFormat`).
public let kCGImageAuxiliaryDataInfoDataDescription: CFString = "kCGImageAuxiliaryDataInfoDataDescription"
/// An auxiliary image's description (a ``CGImageMetadata``): for depth, its accuracy, filtering, quality and
/// camera calibration.
public let kCGImageAuxiliaryDataInfoMetadata: CFString = "kCGImageAuxiliaryDataInfoMetadata"
/// An auxiliary image's pixel format (a Core Video `OSType`), in a data description.
public let kCGImagePropertyPixelFormat: CFString = "PixelFormat"
/// An auxiliary image's width in pixels, in a data description.
public let kCGImagePropertyWidth: CFString = "Width"
/// An auxiliary image's height in pixels, in a data description.
public let kCGImagePropertyHeight: CFString = "Height"
/// An auxiliary image's row length in bytes, in a data description.
public let kCGImagePropertyBytesPerRow: CFString = "BytesPerRow"

/// The file formats ImageIO names by uniform type identifier that this library reads and writes.
struct ImageIOType {
    let format: ImageFormat

    init(_ format: ImageFormat) { self.format = format }

    /// The format a type identifier names, or nil.
    init?(identifier: String) {
        switch identifier {
        case "public.jpeg": format = .jpeg
        case "public.png": format = .png
        case "public.heic": format = .heic
        case "org.webmproject.webp": format = .webp
        default: return nil
        }
    }

    var identifier: String {
        switch format {
        case .jpeg: "public.jpeg"
        case .png: "public.png"
        case .heic: "public.heic"
        case .webp: "org.webmproject.webp"
        }
    }
}

import Foundation

/// Keys for the options of `CIImage`'s initializers, as Core Image's `CIImageOption`.
///
/// Raw values are the Objective-C symbol names (Apple's raw strings are not documented).
/// Auxiliary keys take `true` (`Bool` or `NSNumber`) and make the initializer return that
/// auxiliary image of a HEIC file instead of the main image, or nil when the file has none.
public struct CIImageOption: RawRepresentable, Hashable, Sendable {
    /// The key's string (the Objective-C symbol's name).
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// `kCIImageApplyOrientationProperty`: `true` rotates a file's pixels upright by its EXIF
    /// orientation (default false, as on Apple: the orientation is left in ``CIImage/properties``).
    public static let applyOrientationProperty = CIImageOption("kCIImageApplyOrientationProperty")
    /// `kCIImageColorSpace`: accepted and ignored (no colour management; `NSNull` is Apple's "none").
    public static let colorSpace = CIImageOption("kCIImageColorSpace")
    /// `kCIImageProperties`: a `[String: Any]` dictionary returned by ``CIImage/properties``.
    public static let properties = CIImageOption("kCIImageProperties")
    /// `kCIImageNearestSampling` (ignored: call ``CIImage/samplingNearest()`` on the image instead).
    public static let nearestSampling = CIImageOption("kCIImageNearestSampling")
    /// `kCIImageAuxiliaryDepth`: the depth map as a half-float monochrome image (iOS 11).
    public static let auxiliaryDepth = CIImageOption("kCIImageAuxiliaryDepth")
    /// `kCIImageAuxiliaryDisparity`: the disparity map as a half-float monochrome image (iOS 11).
    public static let auxiliaryDisparity = CIImageOption("kCIImageAuxiliaryDisparity")
    /// `kCIImageAuxiliaryPortraitEffectsMatte` (iOS 12).
    public static let auxiliaryPortraitEffectsMatte = CIImageOption("kCIImageAuxiliaryPortraitEffectsMatte")
    /// `kCIImageAuxiliarySemanticSegmentationSkinMatte` (iOS 13).
    public static let auxiliarySemanticSegmentationSkinMatte = CIImageOption("kCIImageAuxiliarySemanticSegmentationSkinMatte")
    /// `kCIImageAuxiliarySemanticSegmentationHairMatte` (iOS 13).
    public static let auxiliarySemanticSegmentationHairMatte = CIImageOption("kCIImageAuxiliarySemanticSegmentationHairMatte")
    /// `kCIImageAuxiliarySemanticSegmentationTeethMatte` (iOS 13).
    public static let auxiliarySemanticSegmentationTeethMatte = CIImageOption("kCIImageAuxiliarySemanticSegmentationTeethMatte")
    /// `kCIImageAuxiliarySemanticSegmentationGlassesMatte` (iOS 14.1).
    public static let auxiliarySemanticSegmentationGlassesMatte = CIImageOption(
        "kCIImageAuxiliarySemanticSegmentationGlassesMatte")
    /// `kCIImageAuxiliarySemanticSegmentationSkyMatte` (iOS 14.3).
    public static let auxiliarySemanticSegmentationSkyMatte = CIImageOption("kCIImageAuxiliarySemanticSegmentationSkyMatte")
    /// `kCIImageAuxiliaryHDRGainMap` (iOS 14.1; not a person matte).
    public static let auxiliaryHDRGainMap = CIImageOption("kCIImageAuxiliaryHDRGainMap")
}

/// Keys for the `options` of `CIContext`'s export methods, as Core Image's `CIImageRepresentationOption`.
///
/// Raw values are the Objective-C symbol names. The `…Image` keys take a ``CIImage`` that is
/// rendered (its own extent, as one-component 8-bit; depth and disparity as float) and stored
/// as a HEIC auxiliary image. The `av…` matte keys take AVFoundation matte objects and ``avDepthData`` an
/// ``AVDepthData``; the HDR keys are declared so code compiles but are refused at export.
public struct CIImageRepresentationOption: RawRepresentable, Hashable, Sendable {
    /// The key's string (the Objective-C symbol's name).
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// `kCIImageRepresentationAVDepthData`: an ``AVDepthData`` stored as the file's depth (HEIF only).
    public static let avDepthData = CIImageRepresentationOption("kCIImageRepresentationAVDepthData")
    /// `kCIImageRepresentationDepthImage`: a depth `CIImage` (its red channel, in meters).
    public static let depthImage = CIImageRepresentationOption("kCIImageRepresentationDepthImage")
    /// `kCIImageRepresentationDisparityImage`: a disparity `CIImage` (its red channel, in 1/meters).
    public static let disparityImage = CIImageRepresentationOption("kCIImageRepresentationDisparityImage")
    /// `kCIImageRepresentationAVPortraitEffectsMatte`: an ``AVPortraitEffectsMatte`` stored as the HEIF's matte.
    public static let avPortraitEffectsMatte = CIImageRepresentationOption("kCIImageRepresentationAVPortraitEffectsMatte")
    /// `kCIImageRepresentationPortraitEffectsMatteImage`: a matte `CIImage`.
    public static let portraitEffectsMatteImage = CIImageRepresentationOption(
        "kCIImageRepresentationPortraitEffectsMatteImage")
    /// `kCIImageRepresentationAVSemanticSegmentationMattes`: an array of ``AVSemanticSegmentationMatte`` stored as the
    /// HEIF's mattes.
    public static let avSemanticSegmentationMattes = CIImageRepresentationOption(
        "kCIImageRepresentationAVSemanticSegmentationMattes")
    /// `kCIImageRepresentationSemanticSegmentationSkinMatteImage`.
    public static let semanticSegmentationSkinMatteImage = CIImageRepresentationOption(
        "kCIImageRepresentationSemanticSegmentationSkinMatteImage")
    /// `kCIImageRepresentationSemanticSegmentationHairMatteImage`.
    public static let semanticSegmentationHairMatteImage = CIImageRepresentationOption(
        "kCIImageRepresentationSemanticSegmentationHairMatteImage")
    /// `kCIImageRepresentationSemanticSegmentationTeethMatteImage`.
    public static let semanticSegmentationTeethMatteImage = CIImageRepresentationOption(
        "kCIImageRepresentationSemanticSegmentationTeethMatteImage")
    /// `kCIImageRepresentationSemanticSegmentationGlassesMatteImage`.
    public static let semanticSegmentationGlassesMatteImage = CIImageRepresentationOption(
        "kCIImageRepresentationSemanticSegmentationGlassesMatteImage")
    /// `kCIImageRepresentationSemanticSegmentationSkyMatteImage`.
    public static let semanticSegmentationSkyMatteImage = CIImageRepresentationOption(
        "kCIImageRepresentationSemanticSegmentationSkyMatteImage")
    /// `kCIImageRepresentationHDRImage` (not supported: throws at export).
    public static let hdrImage = CIImageRepresentationOption("kCIImageRepresentationHDRImage")
    /// `kCIImageRepresentationHDRGainMapImage`: stored as a grey auxiliary image.
    public static let hdrGainMapImage = CIImageRepresentationOption("kCIImageRepresentationHDRGainMapImage")
}

/// ImageIO's lossy-compression quality key (a number in 0…1), used as Apple code does:
/// `[kCGImageDestinationLossyCompressionQuality as CIImageRepresentationOption: 0.8]`.
///
/// Apple's constant is a `CFString`; here it is already a ``CIImageRepresentationOption`` with
/// the same text, so that cast compiles unchanged.
public let kCGImageDestinationLossyCompressionQuality = CIImageRepresentationOption(
    "kCGImageDestinationLossyCompressionQuality")

/// Keys for `CIContext(options:)`, as Core Image's `CIContextOption`.
///
/// All are accepted; rendering is always on the CPU in 32-bit float, without colour management.
/// ``workingColorSpace`` set to `NSNull()` (Apple's "no colour management") describes exactly
/// what this library does; any other value is accepted and ignored.
public struct CIContextOption: RawRepresentable, Hashable, Sendable {
    /// The key's string (the Objective-C symbol's name).
    public let rawValue: String
    /// A key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// `kCIContextWorkingColorSpace` (see the type's notes).
    public static let workingColorSpace = CIContextOption("kCIContextWorkingColorSpace")
    /// `kCIContextOutputColorSpace` (ignored).
    public static let outputColorSpace = CIContextOption("kCIContextOutputColorSpace")
    /// `kCIContextWorkingFormat` (ignored: the working format is always 32-bit float RGBA).
    public static let workingFormat = CIContextOption("kCIContextWorkingFormat")
    /// `kCIContextUseSoftwareRenderer` (ignored: always the CPU).
    public static let useSoftwareRenderer = CIContextOption("kCIContextUseSoftwareRenderer")
    /// `kCIContextCacheIntermediates` (ignored: nothing is cached between renders).
    public static let cacheIntermediates = CIContextOption("kCIContextCacheIntermediates")
    /// `kCIContextHighQualityDownsample`: `true` makes every downscaling transform use Lanczos.
    public static let highQualityDownsample = CIContextOption("kCIContextHighQualityDownsample")
    /// `kCIContextPriorityRequestLow` (ignored).
    public static let priorityRequestLow = CIContextOption("kCIContextPriorityRequestLow")
    /// `kCIContextName` (kept for debugging only).
    public static let name = CIContextOption("kCIContextName")
    /// `kCIContextOutputPremultiplied` (ignored: renders to bitmaps and buffers are premultiplied, as Apple's
    /// default, and file exports straight).
    public static let outputPremultiplied = CIContextOption("kCIContextOutputPremultiplied")
}

/// Standard filter parameter keys, as Core Image's `kCI…Key` string constants.
public let kCIInputImageKey = "inputImage"
/// The output image key; `filter.value(forKey: kCIOutputImageKey)` is `outputImage`.
public let kCIOutputImageKey = "outputImage"
/// A filter's background image.
public let kCIInputBackgroundImageKey = "inputBackgroundImage"
/// A filter's mask image.
public let kCIInputMaskImageKey = "inputMaskImage"
/// A blur's radius.
public let kCIInputRadiusKey = "inputRadius"
/// A scale factor.
public let kCIInputScaleKey = "inputScale"
/// An aspect ratio.
public let kCIInputAspectRatioKey = "inputAspectRatio"
/// An affine transform.
public let kCIInputTransformKey = "inputTransform"
/// The `"inputAmount"` key.
public let kCIInputAmountKey = "inputAmount"
/// The `"inputAngle"` key (radians).
public let kCIInputAngleKey = "inputAngle"
/// The `"inputBrightness"` key (`CIColorControls`).
public let kCIInputBrightnessKey = "inputBrightness"
/// The `"inputCenter"` key (a `CIVector` point).
public let kCIInputCenterKey = "inputCenter"
/// The `"inputColor"` key (a `CIColor`).
public let kCIInputColorKey = "inputColor"
/// The `"inputContrast"` key (`CIColorControls`).
public let kCIInputContrastKey = "inputContrast"
/// The `"inputEV"` key (`CIExposureAdjust`).
public let kCIInputEVKey = "inputEV"
/// The `"inputExtent"` key (a `CIVector` rectangle).
public let kCIInputExtentKey = "inputExtent"
/// The `"inputIntensity"` key.
public let kCIInputIntensityKey = "inputIntensity"
/// The `"inputSaturation"` key (`CIColorControls`).
public let kCIInputSaturationKey = "inputSaturation"

/// Reads a number option given as `Bool`, `NSNumber`, `Int`, `Float`, `Double` or `CGFloat`.
func numberValue(_ value: Any?) -> Double? {
    switch value {
    case let v as Double: return v
    case let v as Float: return Double(v)
    case let v as CGFloat: return Double(v)
    case let v as Int: return Double(v)
    case let v as UInt: return Double(v)
    case let v as Int32: return Double(v)
    case let v as Bool: return v ? 1 : 0
    case let v as NSNumber: return v.doubleValue
    default: return nil
    }
}

/// Reads a Boolean option (`true`, a non-zero number).
func boolOption(_ value: Any?) -> Bool {
    if let b = value as? Bool { return b }
    return (numberValue(value) ?? 0) != 0
}

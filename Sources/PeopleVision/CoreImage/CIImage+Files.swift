import Foundation
import PVImaging
import PVRender

extension CIImage {
    /// An image decoded from a JPEG, PNG, HEIC or WebP file, or nil when it cannot be read, as
    /// Core Image's `CIImage(contentsOf:)`.
    public convenience init?(contentsOf url: URL) {
        self.init(contentsOf: url, options: nil)
    }

    /// As ``init(contentsOf:)`` with options, as Core Image's `CIImage(contentsOf:options:)`.
    ///
    /// - An auxiliary option (``CIImageOption/auxiliaryPortraitEffectsMatte``, the semantic
    ///   matte keys, ``CIImageOption/auxiliaryDepth``, ``CIImageOption/auxiliaryDisparity``,
    ///   ``CIImageOption/auxiliaryHDRGainMap``) set to `true` returns that auxiliary image of a
    ///   HEIC file instead of the main image — mattes as grey images of their own size, depth and
    ///   disparity as half-float grey images (converted between the two, `1/x`, when the file
    ///   stores the other) whose ``CIImage/depthData`` holds the map with its description and
    ///   camera calibration — or nil when the file has none. Auxiliary images in JPEG files are
    ///   not read (nil).
    /// - ``CIImageOption/applyOrientationProperty`` `true` turns the pixels upright by the file's
    ///   EXIF orientation; by default they are left as stored, as on Apple platforms (HEIC
    ///   pixels are always upright: libheif applies the file's rotation).
    /// - ``CIImageOption/properties`` replaces ``properties``.
    ///
    /// Decoding is eager (the pixels are decoded now, not at render time).
    public convenience init?(contentsOf url: URL, options: [CIImageOption: Any]?) {
        guard url.isFileURL, let data = try? Data(contentsOf: url, options: .mappedIfSafe),
            let (pixels, loadedInfo) = ImageLoader.load(data, options: options ?? [:])
        else { return nil }
        var info = loadedInfo
        info.url = url
        self.init(
            node: .source(ImageSource(storage: .pixels(pixels), premultiplied: false)),
            extent: CGRect(x: 0, y: 0, width: pixels.width, height: pixels.height), info: info)
    }

    /// An image decoded from file data, or nil, as Core Image's `CIImage(data:)`.
    public convenience init?(data: Data) {
        self.init(data: data, options: nil)
    }

    /// As ``init(contentsOf:options:)`` for data in memory (Core Image's `CIImage(data:options:)`).
    public convenience init?(data: Data, options: [CIImageOption: Any]?) {
        guard let loaded = ImageLoader.load(data, options: options ?? [:]) else { return nil }
        let (pixels, info) = loaded
        self.init(
            node: .source(ImageSource(storage: .pixels(pixels), premultiplied: false)),
            extent: CGRect(x: 0, y: 0, width: pixels.width, height: pixels.height), info: info)
    }
}

/// Decoding through PVImaging for the file and data initializers.
enum ImageLoader {
    /// Each grey auxiliary image with Apple's option that reads it (`CIImage(contentsOf:options:)`) and the one that
    /// writes it (`CIContext`'s HEIF writer), in the order they are honoured when several are set.
    static let auxiliaryKeys: [(read: CIImageOption, write: CIImageRepresentationOption, type: AuxiliaryImageType)] = [
        (.auxiliaryPortraitEffectsMatte, .portraitEffectsMatteImage, .portraitEffectsMatte),
        (.auxiliarySemanticSegmentationSkinMatte, .semanticSegmentationSkinMatteImage, .skinMatte),
        (.auxiliarySemanticSegmentationHairMatte, .semanticSegmentationHairMatteImage, .hairMatte),
        (.auxiliarySemanticSegmentationTeethMatte, .semanticSegmentationTeethMatteImage, .teethMatte),
        (.auxiliarySemanticSegmentationGlassesMatte, .semanticSegmentationGlassesMatteImage, .glassesMatte),
        (.auxiliarySemanticSegmentationSkyMatte, .semanticSegmentationSkyMatteImage, .skyMatte),
        (.auxiliaryHDRGainMap, .hdrGainMapImage, .hdrGainMap),
    ]

    static func load(_ data: Data, options: [CIImageOption: Any]) -> (PixelBuffer, ImageFileInfo)? {
        let given = options[.properties] as? [String: Any]
        for (option, _, type) in auxiliaryKeys where boolOption(options[option]) {
            guard let reader = try? HEICReader(data: data), let matte = try? reader.auxiliaryImage(type) else { return nil }
            return (matte, matteInfo(matte, type: type, properties: given ?? dimensions(matte)))
        }
        let wantsDepth = boolOption(options[.auxiliaryDepth]), wantsDisparity = boolOption(options[.auxiliaryDisparity])
        if wantsDepth || wantsDisparity {
            guard let read = try? AVDepthData.read(fromFile: data) else { return nil }
            let depth = read.converting(
                toDepthDataType: wantsDepth ? kCVPixelFormatType_DepthFloat16 : kCVPixelFormatType_DisparityFloat16)
            let values = depth.depthDataMap.pixelBuffer
            var info = ImageFileInfo(properties: given ?? dimensions(values))
            info.depthData = depth
            return (values, info)
        }
        let orient = boolOption(options[.applyOrientationProperty])
        guard let decoded = try? ImageDecoder.decode(data: data, options: ImageDecoder.Options(applyOrientation: orient))
        else { return nil }
        var properties = dimensions(decoded.pixels)
        if decoded.exifOrientation != nil || decoded.orientation != .up {
            properties["Orientation"] = Int(decoded.orientation.rawValue)
        }
        return (decoded.pixels, ImageFileInfo(properties: given ?? properties))
    }

    private static func dimensions(_ pixels: PixelBuffer) -> [String: Any] {
        ["PixelWidth": pixels.width, "PixelHeight": pixels.height]
    }
}

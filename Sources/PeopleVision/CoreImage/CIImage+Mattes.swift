import Foundation
import PVImaging
import PVRender

extension CIImage {
    /// An image of a semantic segmentation matte, as Core Image's `CIImage(semanticSegmentationMatte:options:)`
    /// (iOS 13).
    ///
    /// The image is the matte's grey pixels at the matte's own size (scale it to the photo's extent before blending);
    /// ``semanticSegmentationMatte`` returns the matte. Only ``CIImageOption/properties`` is used among the options.
    /// Never nil here: every matte holds a OneComponent8 buffer.
    public convenience init?(semanticSegmentationMatte matte: AVSemanticSegmentationMatte, options: [CIImageOption: Any]? = nil) {
        var info = ImageFileInfo(options: options)
        info.semanticSegmentationMatte = matte
        self.init(matte: matte.mattingImage, info: info)
    }

    /// An image of a portrait effects matte, as Core Image's `CIImage(portaitEffectsMatte:options:)` (iOS 12; the
    /// label is Apple's spelling). ``portraitEffectsMatte`` returns the matte. As
    /// ``init(semanticSegmentationMatte:options:)``.
    public convenience init?(portaitEffectsMatte matte: AVPortraitEffectsMatte, options: [CIImageOption: Any]? = nil) {
        var info = ImageFileInfo(options: options)
        info.portraitEffectsMatte = matte
        self.init(matte: matte.mattingImage, info: info)
    }

    /// The semantic segmentation matte this image was made from, or read with (a HEIC file read with one of the
    /// `auxiliarySemanticSegmentation…Matte` options), as Core Image's `semanticSegmentationMatte`; nil otherwise,
    /// and for images derived from it by filters or transforms.
    public var semanticSegmentationMatte: AVSemanticSegmentationMatte? { info.semanticSegmentationMatte }

    /// The portrait effects matte this image was made from, or read with (``CIImageOption/auxiliaryPortraitEffectsMatte``),
    /// as Core Image's `portraitEffectsMatte`; nil otherwise.
    public var portraitEffectsMatte: AVPortraitEffectsMatte? { info.portraitEffectsMatte }

    private convenience init(matte: CVPixelBuffer, info: ImageFileInfo) {
        self.init(
            node: .source(ImageSource(storage: .cvPixelBuffer(matte), premultiplied: true)),
            extent: CGRect(x: 0, y: 0, width: matte.width, height: matte.height), info: info)
    }
}

extension ImageLoader {
    /// The file information of a matte read from a HEIC: the AVFoundation matte object of its type.
    static func matteInfo(_ pixels: PixelBuffer, type: AuxiliaryImageType, properties: [String: Any]) -> ImageFileInfo {
        var info = ImageFileInfo(properties: properties)
        guard pixels.format == .oneComponent8 else { return info }
        let buffer = CVPixelBuffer(pixels)
        if type == .portraitEffectsMatte {
            info.portraitEffectsMatte = AVPortraitEffectsMatte(image: buffer)
        } else if let matteType = semanticMatteTypes[type] {
            info.semanticSegmentationMatte = AVSemanticSegmentationMatte(type: matteType, image: buffer)
        }
        return info
    }

    /// The HEIF auxiliary types of the semantic mattes.
    static let semanticMatteTypes: [AuxiliaryImageType: AVSemanticSegmentationMatte.MatteType] = [
        .skinMatte: .skin, .hairMatte: .hair, .teethMatte: .teeth, .glassesMatte: .glasses, .skyMatte: .sky,
    ]
}

extension CIContext {
    /// The auxiliary images of the ``CIImageRepresentationOption/avPortraitEffectsMatte`` (an
    /// ``AVPortraitEffectsMatte``) and ``CIImageRepresentationOption/avSemanticSegmentationMattes`` (an array of
    /// ``AVSemanticSegmentationMatte``) export options; a type already given as a `…MatteImage` option is refused.
    static func matteObjects(_ options: [CIImageRepresentationOption: Any], besides given: [AuxiliaryImageType]) throws
        -> [HEICAuxiliaryImage]
    {
        var result: [HEICAuxiliaryImage] = []
        var seen = Set(given)
        func add(_ type: AuxiliaryImageType, _ buffer: CVPixelBuffer) throws {
            guard seen.insert(type).inserted else {
                throw CoreImageFailure.make(.invalidOption, "the \(type) matte is given twice")
            }
            result.append(HEICAuxiliaryImage(type: type, pixels: buffer.pixelBuffer))
        }
        if let value = options[.avPortraitEffectsMatte] {
            guard let matte = value as? AVPortraitEffectsMatte else {
                throw CoreImageFailure.make(
                    .invalidOption, "avPortraitEffectsMatte needs an AVPortraitEffectsMatte, not \(type(of: value))")
            }
            try add(.portraitEffectsMatte, matte.mattingImage)
        }
        if let value = options[.avSemanticSegmentationMattes] {
            guard let mattes = value as? [AVSemanticSegmentationMatte] else {
                throw CoreImageFailure.make(
                    .invalidOption, "avSemanticSegmentationMattes needs an array of AVSemanticSegmentationMatte, not \(type(of: value))")
            }
            for matte in mattes {
                guard let type = ImageLoader.semanticMatteTypes.first(where: { $0.value == matte.matteType })?.key else {
                    throw CoreImageFailure.make(.invalidOption, "matte type \(matte.matteType.rawValue) cannot be stored")
                }
                try add(type, matte.mattingImage)
            }
        }
        return result
    }
}

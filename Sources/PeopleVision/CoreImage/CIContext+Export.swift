import Foundation
import PVImaging
import PVRender

extension CIContext {
    /// Writes `image` (its extent) as a PNG file, atomically, as Core Image's
    /// `writePNGRepresentation(of:to:format:colorSpace:options:)` (iOS 11).
    ///
    /// Formats: `RGBA8`/`BGRA8`/`ARGB8`/`ABGR8` (and `RGBAh`/`RGBAf`, written as 8-bit) give an
    /// RGBA PNG with straight alpha; `L8`/`R8`/`A8` an 8-bit grey PNG; `Lh`/`Lf`/`Rh`/`Rf`/`Ah`/`Af`
    /// a 16-bit grey PNG (values clamped to 0…1). A one-channel format needs a grey colour space
    /// and a four-channel one an RGB space. Values are written as they are (no colour conversion).
    ///
    /// ```swift
    /// try context.writePNGRepresentation(of: composite, to: url, format: .RGBA8,
    ///                                     colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
    /// ```
    /// - Throws: an `NSError` (domain `"com.apple.CoreImage"`) for an infinite or empty extent,
    ///   a format/colour-space mismatch or a bad option; a `CocoaError` when the file cannot be
    ///   written — a temporary file is renamed into place, so no partial file is ever left.
    public func writePNGRepresentation(
        of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace,
        options: [CIImageRepresentationOption: Any] = [:]
    ) throws {
        try write(try encode(image, as: .png, format: format, colorSpace: colorSpace, options: options), to: url)
    }

    /// Writes `image` as a JPEG file, atomically, as Core Image's
    /// `writeJPEGRepresentation(of:to:colorSpace:options:)` (iOS 10).
    ///
    /// Quality comes from ``kCGImageDestinationLossyCompressionQuality`` (0…1, default 0.9 —
    /// Apple's default is unconfirmed). Alpha is dropped (premultiplied colour, i.e. over black);
    /// a grey colour space writes a grey JPEG. Auxiliary images cannot be embedded in JPEG here:
    /// use HEIF.
    /// - Throws: as ``writePNGRepresentation(of:to:format:colorSpace:options:)``.
    public func writeJPEGRepresentation(
        of image: CIImage, to url: URL, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) throws {
        try write(try encode(image, as: .jpeg, format: .RGBA8, colorSpace: colorSpace, options: options), to: url)
    }

    /// Writes `image` as a HEIF (HEVC) file, atomically, as Core Image's
    /// `writeHEIFRepresentation(of:to:format:colorSpace:options:)` (iOS 11).
    ///
    /// Quality as for JPEG (default 0.8). The matte options
    /// (``CIImageRepresentationOption/portraitEffectsMatteImage``, the semantic `…MatteImage`
    /// keys, ``CIImageRepresentationOption/hdrGainMapImage``) take a `CIImage` that is rendered
    /// over its own extent as 8-bit grey (its red channel) and stored as a HEIC auxiliary image
    /// with Apple's type URN; ``CIImageRepresentationOption/depthImage`` and
    /// ``CIImageRepresentationOption/disparityImage`` store the red channel as a depth map (whose
    /// values must be finite), with the description and calibration of the image's ``CIImage/depthData``
    /// when it has one; ``CIImageRepresentationOption/avDepthData`` stores an ``AVDepthData`` (holes stored as 0),
    /// losslessly as 12-bit codes over the map's range. ``CIImageRepresentationOption/avPortraitEffectsMatte`` and
    /// ``CIImageRepresentationOption/avSemanticSegmentationMattes`` store AVFoundation matte objects as they are;
    /// ``CIImageRepresentationOption/hdrImage`` is refused. The file reads back through
    /// `CIImage(contentsOf:options:)` with the matching
    /// auxiliary option.
    /// - Throws: as ``writePNGRepresentation(of:to:format:colorSpace:options:)``.
    public func writeHEIFRepresentation(
        of image: CIImage, to url: URL, format: CIFormat, colorSpace: CGColorSpace,
        options: [CIImageRepresentationOption: Any] = [:]
    ) throws {
        try write(try encode(image, as: .heif, format: format, colorSpace: colorSpace, options: options), to: url)
    }

    /// PNG data of `image`, or nil on any failure (see ``writePNGRepresentation(of:to:format:colorSpace:options:)``).
    public func pngRepresentation(
        of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) -> Data? {
        try? encode(image, as: .png, format: format, colorSpace: colorSpace, options: options)
    }

    /// JPEG data of `image`, or nil on any failure (see ``writeJPEGRepresentation(of:to:colorSpace:options:)``).
    public func jpegRepresentation(
        of image: CIImage, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) -> Data? {
        try? encode(image, as: .jpeg, format: .RGBA8, colorSpace: colorSpace, options: options)
    }

    /// HEIF data of `image`, or nil on any failure (see ``writeHEIFRepresentation(of:to:format:colorSpace:options:)``).
    public func heifRepresentation(
        of image: CIImage, format: CIFormat, colorSpace: CGColorSpace, options: [CIImageRepresentationOption: Any] = [:]
    ) -> Data? {
        try? encode(image, as: .heif, format: format, colorSpace: colorSpace, options: options)
    }

    // MARK: Internals

    enum ExportContainer { case png, jpeg, heif }

    private static let matteOptions = ImageLoader.auxiliaryKeys.map { ($0.write, $0.type) }
    private static let refusedOptions: [CIImageRepresentationOption] = [
        .hdrImage,
    ]

    func encode(
        _ image: CIImage, as container: ExportContainer, format: CIFormat, colorSpace: CGColorSpace,
        options: [CIImageRepresentationOption: Any]
    ) throws -> Data {
        let area = try exportRect(image)
        guard let layout = format.layout else {
            throw CoreImageFailure.make(.unsupportedFormat, "\(format) is not a format this library writes")
        }
        guard colorSpace.model == .rgb || colorSpace.model == .monochrome else {
            throw CoreImageFailure.make(.unsupportedFormat, "the colour space must be RGB or monochrome, not \(colorSpace.model)")
        }
        let grey = colorSpace.model == .monochrome
        if container != .jpeg, grey != format.isSingleChannel {
            throw CoreImageFailure.make(
                .unsupportedFormat,
                "format \(format) does not match colour space \(colorSpace): one-channel formats need a grey colour space, four-channel formats an RGB one"
            )
        }
        let quality = try Self.quality(options, default: container == .heif ? 0.8 : 0.9)
        let hasAuxiliary =
            Self.matteOptions.contains { options[$0.0] != nil } || options[.depthImage] != nil
            || options[.disparityImage] != nil || options[.avDepthData] != nil || options[.avPortraitEffectsMatte] != nil
            || options[.avSemanticSegmentationMattes] != nil
        if let refused = Self.refusedOptions.first(where: { options[$0] != nil }) {
            throw CoreImageFailure.make(.invalidOption, "option \(refused.rawValue) is not supported here")
        }
        if container == .jpeg, hasAuxiliary {
            throw CoreImageFailure.make(.invalidOption, "auxiliary images can only be embedded in HEIF here; use writeHEIFRepresentation")
        }

        // The primary pixels.
        let pixels: PixelBuffer
        switch (container, layout) {
        case (.jpeg, _):
            pixels = try renderPixels(image, rect: area, layout: grey ? .one(.luma, .uint8) : .rgba8(.rgba), unpremultiply: false)
        case (_, .one(let channel, .uint8)):
            pixels = try renderPixels(image, rect: area, layout: .one(channel, .uint8), unpremultiply: false)
        case (.png, .one(let channel, _)):
            pixels = try Self.clampedToUnit(renderPixels(image, rect: area, layout: .one(channel, .float), unpremultiply: false))
        case (.heif, .one(let channel, _)):
            pixels = try renderPixels(image, rect: area, layout: .one(channel, .uint8), unpremultiply: false)
        default:
            pixels = try renderPixels(image, rect: area, layout: .rgba8(.rgba), unpremultiply: true)
        }

        do {
            switch container {
            case .png:
                return try ImageEncoder.encode(pixels, as: .png)
            case .jpeg:
                return try ImageEncoder.encode(pixels, as: .jpeg(quality: max(1, Int((quality * 100).rounded()))))
            case .heif:
                var auxiliaries: [HEICAuxiliaryImage] = []
                for (option, type) in Self.matteOptions {
                    guard let value = options[option] else { continue }
                    let matte = try Self.auxiliaryImage(value, option)
                    let matteArea = try exportRect(matte)
                    let grey = try renderPixels(matte, rect: matteArea, layout: .one(.red, .uint8), unpremultiply: false)
                    auxiliaries.append(HEICAuxiliaryImage(type: type, pixels: grey))
                }
                auxiliaries += try Self.matteObjects(options, besides: auxiliaries.map(\.type))
                let depth = try Self.depthMap(options) { try renderPixels($0, rect: exportRect($0), layout: .one(.red, .float), unpremultiply: false) }
                return try ImageEncoder.encodeHEIC(
                    pixels, quality: Int((quality * 100).rounded()), auxiliaryImages: auxiliaries, depth: depth)
            }
        } catch let error as ImagingError {
            throw CoreImageFailure.make(.encodingFailed, "encoding failed: \(error.message)", underlying: error)
        }
    }

    /// The depth map the options give: ``CIImageRepresentationOption/avDepthData`` (an ``AVDepthData``, with its
    /// description and calibration), or a depth or disparity `CIImage` rendered by `render` (with the description
    /// of its ``CIImage/depthData`` when it has one). At most one of the three.
    private static func depthMap(
        _ options: [CIImageRepresentationOption: Any], render: (CIImage) throws -> PixelBuffer
    ) throws -> HEICDepthMap? {
        let given = [CIImageRepresentationOption.avDepthData, .depthImage, .disparityImage].filter { options[$0] != nil }
        guard let option = given.first else { return nil }
        guard given.count == 1 else {
            throw CoreImageFailure.make(.invalidOption, "give one of avDepthData, depthImage and disparityImage, not several")
        }
        if option == .avDepthData {
            guard let data = options[option] as? AVDepthData else {
                throw CoreImageFailure.make(.invalidOption, "option \(option.rawValue) needs an AVDepthData, not \(type(of: options[option]!))")
            }
            return try data.heicDepthMap()
        }
        let image = try auxiliaryImage(options[option]!, option)
        let kind: HEICDepthMap.Kind = option == .depthImage ? .depth : .disparity
        var map = HEICDepthMap(values: try render(image), kind: kind)
        if let described = image.depthData { map.metadata = try described.heicDepthMap().metadata }
        return map
    }

    /// Writes atomically, mapping failures to `CocoaError(.fileWriteUnknown)`.
    private func write(_ data: Data, to url: URL) throws {
        do {
            try writeAtomically(data, to: url)
        } catch let error as ImagingError {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: error.message, NSUnderlyingErrorKey: error])
        }
    }

    private static func quality(_ options: [CIImageRepresentationOption: Any], default fallback: Double) throws -> Double {
        guard let raw = options[kCGImageDestinationLossyCompressionQuality] else { return fallback }
        guard let value = numberValue(raw), value.isFinite, (0...1).contains(value) else {
            throw CoreImageFailure.make(
                .invalidOption, "kCGImageDestinationLossyCompressionQuality must be a number in 0…1, not \(raw)")
        }
        return value
    }

    private static func auxiliaryImage(_ value: Any, _ option: CIImageRepresentationOption) throws -> CIImage {
        guard let image = value as? CIImage else {
            throw CoreImageFailure.make(.invalidOption, "option \(option.rawValue) needs a CIImage, not \(type(of: value))")
        }
        return image
    }

    /// Float grey clamped to 0…1 (NaN → 0), as 16-bit PNG needs.
    private static func clampedToUnit(_ buffer: PixelBuffer) -> PixelBuffer {
        var result = buffer
        let row = result.bytesPerRow(), width = result.width, height = result.height
        result.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                let line = (bytes.baseAddress! + y * row).assumingMemoryBound(to: Float.self)
                for x in 0..<width {
                    let v = line[x]
                    line[x] = v > 0 ? min(v, 1) : 0
                }
            }
        }
        return result
    }
}

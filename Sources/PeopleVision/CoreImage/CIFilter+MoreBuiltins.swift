import Foundation
import PVRender

/// `CIMaskedVariableBlur` (iOS 8): a blur whose radius at each pixel is `radius` times the mask's value there (its
/// green channel; grey masks read the same in every channel): sharp where the mask is black, fully blurred where it
/// is white. Used to blur the background behind a person mask.
///
/// Evaluated as four Gaussian blurs of standard deviation `radius/4`, `radius/2`, `3·radius/4` and `radius` (the
/// image clamped at its edges first), blended per pixel between the two nearest the wanted radius. The extent is
/// the input's. Apple's exact kernel is not documented; its blurs are of the same size.
public protocol CIMaskedVariableBlur: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// How much to blur each pixel, 0…1 (`inputMask`).
    var mask: CIImage? { get set }
    /// The blur where the mask is 1 (`inputRadius`, default 5).
    var radius: Float { get set }
}

/// `CIAffineTransform`: the input transformed by `transform`, as ``CIImage/transformed(by:)``.
public protocol CIAffineTransform: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// The transform (`inputTransform`, default identity).
    var transform: CGAffineTransform { get set }
}

/// `CIColorControls`: on unpremultiplied colour, saturation mixes with the Rec. 709 luma (`luma + s·(c − luma)`),
/// then brightness is added and contrast scales about 0.5 (`(c + b − 0.5)·contrast + 0.5`); alpha is kept. Apple does
/// not document the order of the three steps; this is the one its default values are neutral for.
public protocol CIColorControls: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// 0 grey, 1 unchanged (`inputSaturation`, default 1).
    var saturation: Float { get set }
    /// Added to each channel (`inputBrightness`, default 0).
    var brightness: Float { get set }
    /// 1 unchanged (`inputContrast`, default 1).
    var contrast: Float { get set }
}

/// `CIExposureAdjust`: linear light multiplied by `2^ev`. The working space here is sRGB-encoded, so the colour
/// channels are multiplied by `2^(ev/2.2)`, which is exact for a 2.2 power-law encoding.
public protocol CIExposureAdjust: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// Exposure in stops (`inputEV`, default 0).
    var ev: Float { get set }
}

/// `CIColorClamp`: each unpremultiplied channel limited to `[minComponents, maxComponents]`.
public protocol CIColorClamp: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// Lower bounds for R, G, B, A (`inputMinComponents`, default 0, 0, 0, 0).
    var minComponents: CIVector { get set }
    /// Upper bounds for R, G, B, A (`inputMaxComponents`, default 1, 1, 1, 1).
    var maxComponents: CIVector { get set }
}

/// `CIPixellate`: the image as squares `scale` pixels wide on a grid through `center`, each the colour of the input
/// pixel at the square's centre, or the nearest edge pixel where that centre is outside the image (Apple does not
/// document how a square's colour is chosen). The extent is the input's.
public protocol CIPixellate: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// A corner of the grid (`inputCenter`, default (150, 150)).
    var center: CGPoint { get set }
    /// The width of a square in pixels (`inputScale`, default 8).
    var scale: Float { get set }
}

extension CIFilter {
    /// A `CIPixellate` filter.
    public static func pixellate() -> CIFilter & CIPixellate { PixellateFilter(builtin: .named("CIPixellate")!) }

    /// A `CIMaskedVariableBlur` filter.
    public static func maskedVariableBlur() -> CIFilter & CIMaskedVariableBlur {
        MaskedVariableBlurFilter(builtin: .named("CIMaskedVariableBlur")!)
    }
    /// A `CIAffineTransform` filter.
    public static func affineTransform() -> CIFilter & CIAffineTransform {
        AffineTransformFilter(builtin: .named("CIAffineTransform")!)
    }
    /// A `CIColorControls` filter.
    public static func colorControls() -> CIFilter & CIColorControls {
        ColorControlsFilter(builtin: .named("CIColorControls")!)
    }
    /// A `CIExposureAdjust` filter.
    public static func exposureAdjust() -> CIFilter & CIExposureAdjust {
        ExposureFilter(builtin: .named("CIExposureAdjust")!)
    }
    /// A `CIColorClamp` filter.
    public static func colorClamp() -> CIFilter & CIColorClamp { ColorClampFilter(builtin: .named("CIColorClamp")!) }
}

final class MaskedVariableBlurFilter: ImageInputFilter, CIMaskedVariableBlur {
    var mask: CIImage? {
        get { image("inputMask") }
        set { setValue(newValue, forKey: "inputMask") }
    }
    var radius: Float {
        get { number(kCIInputRadiusKey) }
        set { setNumber(newValue, kCIInputRadiusKey) }
    }
}

final class PixellateFilter: ImageInputFilter, CIPixellate {
    var center: CGPoint {
        get { vector(kCIInputCenterKey)?.cgPointValue ?? CGPoint(x: 150, y: 150) }
        set { setValue(CIVector(cgPoint: newValue), forKey: kCIInputCenterKey) }
    }
    var scale: Float {
        get { number(kCIInputScaleKey) }
        set { setNumber(newValue, kCIInputScaleKey) }
    }
}

final class AffineTransformFilter: ImageInputFilter, CIAffineTransform {
    var transform: CGAffineTransform {
        get { value(forKey: kCIInputTransformKey) as? CGAffineTransform ?? .identity }
        set { setValue(newValue, forKey: kCIInputTransformKey) }
    }
}

final class ColorControlsFilter: ImageInputFilter, CIColorControls {
    var saturation: Float {
        get { number(kCIInputSaturationKey) }
        set { setNumber(newValue, kCIInputSaturationKey) }
    }
    var brightness: Float {
        get { number(kCIInputBrightnessKey) }
        set { setNumber(newValue, kCIInputBrightnessKey) }
    }
    var contrast: Float {
        get { number(kCIInputContrastKey) }
        set { setNumber(newValue, kCIInputContrastKey) }
    }
}

final class ExposureFilter: ImageInputFilter, CIExposureAdjust {
    var ev: Float {
        get { number(kCIInputEVKey) }
        set { setNumber(newValue, kCIInputEVKey) }
    }
}

final class ColorClampFilter: ImageInputFilter, CIColorClamp {
    var minComponents: CIVector {
        get { vector("inputMinComponents") ?? CIVector(x: 0, y: 0, z: 0, w: 0) }
        set { setValue(newValue, forKey: "inputMinComponents") }
    }
    var maxComponents: CIVector {
        get { vector("inputMaxComponents") ?? CIVector(x: 1, y: 1, z: 1, w: 1) }
        set { setValue(newValue, forKey: "inputMaxComponents") }
    }
}

extension CIImage {
    /// `image` over `background` (clear when nil) through one channel of `mask`; see ``CIBlendWithMask``.
    static func blend(_ image: CIImage, over background: CIImage?, mask: CIImage, channel: Int) -> CIImage {
        let background = background ?? .empty()
        let extent = background.extent.union(image.extent.intersection(mask.extent))
        if extent.isNull || extent.isEmpty { return .empty() }
        return CIImage(
            node: .blend(image.recipe, background: background.recipe, mask: mask.recipe, channel: channel), extent: extent)
    }

    /// This image with each colour channel `c` replaced by `c·scale + offset` (unpremultiplied), alpha kept.
    func colorMatrix(_ m: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>), bias: SIMD4<Float>) -> CIImage {
        let operation = PointOperation.colorMatrix(r: m.0, g: m.1, b: m.2, a: SIMD4(0, 0, 0, 1), bias: bias)
        return CIImage(node: .point(recipe, operation), extent: extent)
    }

    /// See ``CIPixellate``: a nearest-neighbour shrink by `scale` about `center`, then a nearest-neighbour enlargement.
    func pixellated(center: CGPoint, scale: CGFloat) -> CIImage {
        guard scale.isFinite, scale > 1, !extent.isNull, !extent.isEmpty else { return self }
        let toGrid = CGAffineTransform(translationX: -center.x, y: -center.y).concatenating(
            CGAffineTransform(scaleX: 1 / scale, y: 1 / scale))
        // Clamped first so squares across the edge take an edge pixel rather than clear.
        let cells = clampedToExtent().samplingNearest().transformed(by: toGrid)
        return cells.samplingNearest().transformed(by: toGrid.inverted()).cropped(to: extent)
    }

    /// See ``CIMaskedVariableBlur``.
    func maskedVariableBlur(mask: CIImage, radius: Float) -> CIImage {
        guard radius.isFinite, radius > 0, !extent.isNull, !extent.isEmpty else { return self }
        let levels = 4
        let clamped = extent.isInfinite ? self : clampedToExtent()
        var result: CIImage = clamped
        for k in 1...levels {
            let blurred = clamped.applyingGaussianBlur(sigma: Double(radius * Float(k) / Float(levels)))
            // The weight of this level: the mask's green value scaled so level k − 1 has 0 and level k has 1, clamped,
            // opaque so the blend reads it unpremultiplied.
            let n = Float(levels)
            let scale = SIMD4<Float>(0, n, 0, 0)
            let ramp = PointOperation.colorMatrix(
                r: scale, g: scale, b: scale, a: .zero, bias: SIMD4(-Float(k - 1), -Float(k - 1), -Float(k - 1), 1))
            let weight = CIImage(node: .point(mask.recipe, ramp), extent: .infinite)
            let clampedWeight = CIImage(
                node: .point(weight.recipe, .colorClamp(min: .zero, max: SIMD4(repeating: 1))), extent: .infinite)
            result = CIImage(
                node: .blend(blurred.recipe, background: result.recipe, mask: clampedWeight.recipe, channel: 1),
                extent: .infinite)
        }
        return result.cropped(to: extent)
    }
}

extension BuiltinFilter {
    static let more: [BuiltinFilter] = [
        BuiltinFilter(
            name: "CIPixellate", inputKeys: [kCIInputImageKey, kCIInputCenterKey, kCIInputScaleKey],
            defaults: [kCIInputCenterKey: .vector(CIVector(x: 150, y: 150)), kCIInputScaleKey: .number(8)]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            let center = inputs.vector(kCIInputCenterKey)?.cgPointValue ?? CGPoint(x: 150, y: 150)
            return image.pixellated(center: center, scale: CGFloat(inputs.number(kCIInputScaleKey) ?? 8))
        },
        BuiltinFilter(
            name: "CIMaskedVariableBlur", inputKeys: [kCIInputImageKey, "inputMask", kCIInputRadiusKey],
            defaults: [kCIInputRadiusKey: .number(5)]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey), let mask = inputs.image("inputMask") else { return nil }
            return image.maskedVariableBlur(mask: mask, radius: Float(inputs.number(kCIInputRadiusKey) ?? 5))
        },
        BuiltinFilter(
            name: "CIColorControls",
            inputKeys: [kCIInputImageKey, kCIInputSaturationKey, kCIInputBrightnessKey, kCIInputContrastKey],
            defaults: [kCIInputSaturationKey: .number(1), kCIInputBrightnessKey: .number(0), kCIInputContrastKey: .number(1)]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            let s = Float(inputs.number(kCIInputSaturationKey) ?? 1), b = Float(inputs.number(kCIInputBrightnessKey) ?? 0)
            let c = Float(inputs.number(kCIInputContrastKey) ?? 1)
            // Rec. 709 luma weights; saturation s keeps s of each channel and mixes in (1 − s) of the luma.
            let luma = SIMD4<Float>(0.2126, 0.7152, 0.0722, 0) * (1 - s)
            let rows = (
                (luma + SIMD4(s, 0, 0, 0)) * c, (luma + SIMD4(0, s, 0, 0)) * c, (luma + SIMD4(0, 0, s, 0)) * c
            )
            let offset = (b - 0.5) * c + 0.5
            return image.colorMatrix(rows, bias: SIMD4(offset, offset, offset, 0))
        },
        BuiltinFilter(name: "CIExposureAdjust", inputKeys: [kCIInputImageKey, kCIInputEVKey], defaults: [kCIInputEVKey: .number(0)]) {
            inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            let ev = Float(inputs.number(kCIInputEVKey) ?? 0)
            if ev == 0 { return image }
            let g = Float(pow(2, Double(ev) / 2.2))
            return image.colorMatrix((SIMD4(g, 0, 0, 0), SIMD4(0, g, 0, 0), SIMD4(0, 0, g, 0)), bias: .zero)
        },
        BuiltinFilter(
            name: "CIColorClamp", inputKeys: [kCIInputImageKey, "inputMinComponents", "inputMaxComponents"],
            defaults: [
                "inputMinComponents": .vector(CIVector(x: 0, y: 0, z: 0, w: 0)),
                "inputMaxComponents": .vector(CIVector(x: 1, y: 1, z: 1, w: 1)),
            ]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            let low = inputs.vector("inputMinComponents")?.simd4 ?? .zero
            let high = inputs.vector("inputMaxComponents")?.simd4 ?? SIMD4(repeating: 1)
            return CIImage(node: .point(image.recipe, .colorClamp(min: low, max: high)), extent: image.extent)
        },
        BuiltinFilter(
            name: "CICrop", inputKeys: [kCIInputImageKey, "inputRectangle"],
            defaults: ["inputRectangle": .vector(CIVector(x: -8.98847e307, y: -8.98847e307, z: 1.79769e308, w: 1.79769e308))]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            guard let r = inputs.vector("inputRectangle"), r.count >= 4 else { return image }
            return image.cropped(to: CGRect(x: r.value(at: 0), y: r.value(at: 1), width: r.value(at: 2), height: r.value(at: 3)))
        },
    ]
}

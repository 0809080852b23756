// The type-safe filter API Apple declares in `CoreImage.CIFilterBuiltins` (iOS 13 / macOS 10.15).
// Here the protocols and factory methods are part of the module itself, so
// `let f = CIFilter.blendWithRedMask(); f.inputImage = image` compiles without that import.
import Foundation
import PVCore

/// The base of the built-in filter protocols, as Core Image's `CIFilterProtocol`.
public protocol CIFilterProtocol: AnyObject {
    /// The filtered image, or nil when an input is missing.
    var outputImage: CIImage? { get }
}

/// `CIBlendWithMask`, `CIBlendWithRedMask`, `CIBlendWithBlueMask` and `CIBlendWithAlphaMask`:
/// `background + m·(input − background)` per premultiplied channel, with `m` the mask's
/// green, red, blue or alpha value (not clamped). Without a background image the input is cut out
/// onto transparent pixels. Outside its extent the mask is 0, so the extent is the background's
/// united with the part of the input the mask covers: a blend of an infinite colour through a
/// person mask has the mask's extent, and `context.createCGImage(output, from: output.extent)`
/// works as on Apple platforms. A one-component mask reads as grey with alpha 1, so the alpha
/// variant then shows only the input (as on Apple platforms).
public protocol CIBlendWithMask: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// The image shown where the mask is 0 / under the input (`inputBackgroundImage`).
    var backgroundImage: CIImage? { get set }
    /// The mask (`inputMaskImage`).
    var maskImage: CIImage? { get set }
}

/// `CISourceOverCompositing` and the other compositing filters' protocol, as Core Image's
/// `CICompositeOperation`: `input + background·(1 − input.alpha)`.
public protocol CICompositeOperation: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// The image shown where the mask is 0 / under the input (`inputBackgroundImage`).
    var backgroundImage: CIImage? { get set }
}

/// `CIMaximumComponent`: grey `max(r, g, b)` per pixel, alpha kept.
public protocol CIMaximumComponent: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
}

/// `CIGammaAdjust`: each unpremultiplied colour channel `c` becomes `sign(c)·|c|^power`
/// (sRGB-encoded values, alpha kept). Default power 1.
public protocol CIGammaAdjust: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// The exponent (`inputPower`, default 1).
    var power: Float { get set }
}

/// `CIGaussianBlur`: a Gaussian blur whose standard deviation is `radius` pixels (default 10),
/// i.e. `applyingGaussianBlur(sigma: radius)`; the extent grows by `ceil(3·radius)`.
public protocol CIGaussianBlur: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// The standard deviation in pixels (`inputRadius`, default 10).
    var radius: Float { get set }
}

/// `CILanczosScaleTransform`: Lanczos-3 scaling to `(w·scale·aspectRatio) × (h·scale)`, rounded
/// to whole pixels; edges are clamped, not faded. Defaults 1 and 1.
public protocol CILanczosScaleTransform: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// The vertical scale (`inputScale`, default 1).
    var scale: Float { get set }
    /// The extra horizontal scale (`inputAspectRatio`, default 1).
    var aspectRatio: Float { get set }
}

/// `CIColorMatrix`: output channel `i` = `dot(vector_i, unpremultiplied rgba) + bias_i`.
public protocol CIColorMatrix: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// Weights of the red output (`inputRVector`, default (1, 0, 0, 0)).
    var rVector: CIVector { get set }
    /// Weights of the green output (`inputGVector`, default (0, 1, 0, 0)).
    var gVector: CIVector { get set }
    /// Weights of the blue output (`inputBVector`, default (0, 0, 1, 0)).
    var bVector: CIVector { get set }
    /// Weights of the alpha output (`inputAVector`, default (0, 0, 0, 1)).
    var aVector: CIVector { get set }
    /// Added to every output (`inputBiasVector`, default 0).
    var biasVector: CIVector { get set }
}

/// `CIPersonSegmentation` (iOS 15): a red mask of the people in the input (1 = person), from
/// the same segmenter as `VNGeneratePersonSegmentationRequest`. `qualityLevel`: 0 = accurate
/// (default), 1 = balanced, 2 = fast. The mask has the segmenter's resolution.
public protocol CIPersonSegmentation: CIFilterProtocol {
    /// The image to filter (`inputImage`).
    var inputImage: CIImage? { get set }
    /// 0 accurate (default), 1 balanced, 2 fast (`inputQualityLevel`).
    var qualityLevel: Int { get set }
}

extension CIFilter {
    /// A `CIBlendWithMask` filter (mask **green** channel).
    public static func blendWithMask() -> CIFilter & CIBlendWithMask { BlendFilter(builtin: .named("CIBlendWithMask")!) }
    /// A `CIBlendWithRedMask` filter (mask **red** channel).
    public static func blendWithRedMask() -> CIFilter & CIBlendWithMask {
        BlendFilter(builtin: .named("CIBlendWithRedMask")!)
    }
    /// A `CIBlendWithBlueMask` filter (mask **blue** channel).
    public static func blendWithBlueMask() -> CIFilter & CIBlendWithMask {
        BlendFilter(builtin: .named("CIBlendWithBlueMask")!)
    }
    /// A `CIBlendWithAlphaMask` filter (mask **alpha** channel).
    public static func blendWithAlphaMask() -> CIFilter & CIBlendWithMask {
        BlendFilter(builtin: .named("CIBlendWithAlphaMask")!)
    }
    /// A `CISourceOverCompositing` filter.
    public static func sourceOverCompositing() -> CIFilter & CICompositeOperation {
        CompositeFilter(builtin: .named("CISourceOverCompositing")!)
    }
    /// A `CIMaximumComponent` filter.
    public static func maximumComponent() -> CIFilter & CIMaximumComponent {
        MaximumComponentFilter(builtin: .named("CIMaximumComponent")!)
    }
    /// A `CIGammaAdjust` filter.
    public static func gammaAdjust() -> CIFilter & CIGammaAdjust { GammaFilter(builtin: .named("CIGammaAdjust")!) }
    /// A `CIGaussianBlur` filter.
    public static func gaussianBlur() -> CIFilter & CIGaussianBlur { GaussianFilter(builtin: .named("CIGaussianBlur")!) }
    /// A `CILanczosScaleTransform` filter.
    public static func lanczosScaleTransform() -> CIFilter & CILanczosScaleTransform {
        LanczosFilter(builtin: .named("CILanczosScaleTransform")!)
    }
    /// A `CIColorMatrix` filter.
    public static func colorMatrix() -> CIFilter & CIColorMatrix { ColorMatrixFilter(builtin: .named("CIColorMatrix")!) }
    /// A `CIPersonSegmentation` filter: the person mask of `inputImage` in the red channel, at the input's
    /// extent, from `VNGeneratePersonSegmentationRequest` at `qualityLevel` (0 accurate, 1 balanced, 2 fast).
    public static func personSegmentation() -> CIFilter & CIPersonSegmentation {
        PersonSegmentationFilter(builtin: .named("CIPersonSegmentation")!)
    }

    /// How `CIPersonSegmentation` evaluates: set by the Vision layer to run the person segmenter on
    /// the input image at a quality level (0 accurate, 1 balanced, 2 fast). When nil, or when it
    /// throws, the filter's output is nil.
    package static var personSegmentationHook: (@Sendable (CIImage, Int) throws -> CIImage)? {
        get { _personSegmentationHook.withLock { $0 } }
        set { _personSegmentationHook.withLock { $0 = newValue } }
    }

    /// Replaces ``personSegmentationHook`` for the current task only, so tests can exercise the
    /// filter's plumbing without racing other tests over the process-wide hook:
    /// `CIFilter.$personSegmentationHookOverride.withValue(.init(nil)) { … }`.
    @TaskLocal package static var personSegmentationHookOverride: PersonSegmentationHookOverride?

    /// The hook in effect: the task's override if any, else ``personSegmentationHook``.
    static var effectivePersonSegmentationHook: (@Sendable (CIImage, Int) throws -> CIImage)? {
        if let override = personSegmentationHookOverride { return override.hook }
        return personSegmentationHook
    }
}

/// A task-local replacement for ``CIFilter/personSegmentationHook`` (nil hook included).
package struct PersonSegmentationHookOverride: Sendable {
    package let hook: (@Sendable (CIImage, Int) throws -> CIImage)?
    package init(_ hook: (@Sendable (CIImage, Int) throws -> CIImage)?) { self.hook = hook }
}

private let _personSegmentationHook = Locked<(@Sendable (CIImage, Int) throws -> CIImage)?>({ image, level in
    try VNGeneratePersonSegmentationRequest.coreImageMask(of: image, qualityLevel: level)
})

/// A built-in filter's `inputImage`, kept under `kCIInputImageKey`.
class ImageInputFilter: CIFilter {
    var inputImage: CIImage? {
        get { image(kCIInputImageKey) }
        set { setValue(newValue, forKey: kCIInputImageKey) }
    }
}

/// A built-in filter with an input and a background image.
class BackgroundInputFilter: ImageInputFilter {
    var backgroundImage: CIImage? {
        get { image(kCIInputBackgroundImageKey) }
        set { setValue(newValue, forKey: kCIInputBackgroundImageKey) }
    }
}

final class BlendFilter: BackgroundInputFilter, CIBlendWithMask {
    var maskImage: CIImage? {
        get { image(kCIInputMaskImageKey) }
        set { setValue(newValue, forKey: kCIInputMaskImageKey) }
    }
}

final class CompositeFilter: BackgroundInputFilter, CICompositeOperation {}

final class MaximumComponentFilter: ImageInputFilter, CIMaximumComponent {}

final class GammaFilter: ImageInputFilter, CIGammaAdjust {
    var power: Float {
        get { number("inputPower") }
        set { setNumber(newValue, "inputPower") }
    }
}

final class GaussianFilter: ImageInputFilter, CIGaussianBlur {
    var radius: Float {
        get { number(kCIInputRadiusKey) }
        set { setNumber(newValue, kCIInputRadiusKey) }
    }
}

final class LanczosFilter: ImageInputFilter, CILanczosScaleTransform {
    var scale: Float {
        get { number(kCIInputScaleKey) }
        set { setNumber(newValue, kCIInputScaleKey) }
    }
    var aspectRatio: Float {
        get { number(kCIInputAspectRatioKey) }
        set { setNumber(newValue, kCIInputAspectRatioKey) }
    }
}

final class ColorMatrixFilter: ImageInputFilter, CIColorMatrix {
    var rVector: CIVector {
        get { matrixVector("inputRVector") }
        set { setValue(newValue, forKey: "inputRVector") }
    }
    var gVector: CIVector {
        get { matrixVector("inputGVector") }
        set { setValue(newValue, forKey: "inputGVector") }
    }
    var bVector: CIVector {
        get { matrixVector("inputBVector") }
        set { setValue(newValue, forKey: "inputBVector") }
    }
    var aVector: CIVector {
        get { matrixVector("inputAVector") }
        set { setValue(newValue, forKey: "inputAVector") }
    }
    var biasVector: CIVector {
        get { matrixVector("inputBiasVector") }
        set { setValue(newValue, forKey: "inputBiasVector") }
    }

    /// The vector set for `key`, else the filter's default for it (the identity matrix, no bias).
    private func matrixVector(_ key: String) -> CIVector {
        vector(key) ?? (builtin?.defaultValues[key] as? CIVector) ?? CIVector(x: 0, y: 0, z: 0, w: 0)
    }
}

final class PersonSegmentationFilter: ImageInputFilter, CIPersonSegmentation {
    var qualityLevel: Int {
        get { Int(number("inputQualityLevel")) }
        set { setValue(NSNumber(value: newValue), forKey: "inputQualityLevel") }
    }
}

import Foundation
import PVRender

/// An image filter with string-keyed parameters, as Core Image's `CIFilter`.
///
/// Create a built-in filter by name (`CIFilter(name: "CIBlendWithMask")`) and set its inputs with
/// ``setValue(_:forKey:)``, or use the type-safe factories Apple declares in
/// `CoreImage.CIFilterBuiltins` (`CIFilter.blendWithMask()` …), which exist here directly. The
/// ``outputImage`` is a new ``CIImage`` recipe; nothing is computed until a ``CIContext`` renders.
///
/// Built-in filters: `CIBlendWithMask`, `CIBlendWithRedMask`, `CIBlendWithBlueMask`,
/// `CIBlendWithAlphaMask`, `CIMaximumComponent`, `CIGammaAdjust`, `CIGaussianBlur`,
/// `CISourceOverCompositing`, `CILanczosScaleTransform`, `CIColorMatrix`, `CIAffineTransform`,
/// `CIPersonSegmentation`, `CIMaskedVariableBlur`, `CIColorControls`, `CIExposureAdjust`, `CIColorClamp`,
/// `CIPixellate` and `CICrop`. New inputs start at their defaults, as on iOS.
///
/// ```swift
/// let blend = CIFilter(name: "CIBlendWithRedMask")!
/// blend.setValue(frame, forKey: kCIInputImageKey)
/// blend.setValue(background, forKey: kCIInputBackgroundImageKey)
/// blend.setValue(mask, forKey: kCIInputMaskImageKey)
/// let output = blend.outputImage
/// ```
///
/// Subclass it for custom filters by overriding ``outputImage``; subclasses store any key.
/// Setting an unknown key on a built-in filter traps, as Apple's key-value coding raises
/// `NSUnknownKeyException`. Not thread-safe (like Apple's): use one filter per thread.
open class CIFilter: CustomStringConvertible {
    /// The filter's name (`"CIGaussianBlur"`); a subclass's name is its type name.
    public var name: String
    private var values: [String: Any]
    let builtin: BuiltinFilter?

    /// A built-in filter, or nil when `name` is not one (Apple's `CIFilter(name:)`).
    public init?(name: String) {
        guard let builtin = BuiltinFilter.named(name) else { return nil }
        self.name = name
        self.builtin = builtin
        values = builtin.defaultValues
    }

    /// A built-in filter with `parameters` set (Apple's `CIFilter(name:parameters:)`).
    public convenience init?(name: String, parameters params: [String: Any]?) {
        self.init(name: name)
        for (key, value) in params ?? [:] { setValue(value, forKey: key) }
    }

    /// The same as ``init(name:parameters:)`` (Apple's older spelling, `CIFilter(name:withInputParameters:)`).
    public convenience init?(name: String, withInputParameters params: [String: Any]?) {
        self.init(name: name, parameters: params)
    }

    /// For subclasses (custom filters).
    public init() {
        builtin = nil
        values = [:]
        name = ""
        name = String(describing: type(of: self))
    }

    /// For the type-safe factories.
    init(builtin: BuiltinFilter) {
        self.builtin = builtin
        name = builtin.name
        values = builtin.defaultValues
    }

    /// The filtered image, or nil when a required input is missing (Apple's `outputImage`).
    open var outputImage: CIImage? {
        builtin?.evaluate(FilterInputs(values: values))
    }

    /// The names of the filter's inputs.
    open var inputKeys: [String] { builtin?.inputKeys ?? values.keys.sorted() }

    /// The names of the filter's outputs (`["outputImage"]`).
    open var outputKeys: [String] { [kCIOutputImageKey] }

    /// A small attribute dictionary: `"CIAttributeFilterName"` and each input's default.
    open var attributes: [String: Any] {
        var result: [String: Any] = ["CIAttributeFilterName": name]
        for key in inputKeys {
            var entry: [String: Any] = [:]
            if let value = builtin?.defaultValues[key] { entry["CIAttributeDefault"] = value }
            result[key] = entry
        }
        return result
    }

    /// Sets an input (Apple's key-value coding). `nil` removes it.
    ///
    /// - Precondition: On a built-in filter `key` is one of ``inputKeys``.
    open func setValue(_ value: Any?, forKey key: String) {
        if let builtin {
            precondition(
                builtin.inputKeys.contains(key),
                "[\(name) setValue:forUndefinedKey:]: this filter is not key value coding-compliant for the key \(key)")
        }
        values[key] = value
    }

    /// An input's value (numbers come back as `NSNumber`), or ``outputImage`` for `"outputImage"`.
    open func value(forKey key: String) -> Any? {
        if key == kCIOutputImageKey { return outputImage }
        return values[key]
    }

    /// Resets every input to its default (images to nil).
    open func setDefaults() {
        values = builtin?.defaultValues ?? [:]
    }

    /// Built-in filter names; `category` is accepted and ignored (Apple's `filterNames(inCategory:)`).
    public class func filterNames(inCategory category: String?) -> [String] {
        BuiltinFilter.all.map(\.name).sorted()
    }

    public var description: String { "CIFilter(\(name))" }

    // MARK: Typed access for the builtin protocols.

    func image(_ key: String) -> CIImage? { values[key] as? CIImage }
    func number(_ key: String) -> Float { Float(numberValue(values[key]) ?? 0) }
    func setNumber(_ value: Float, _ key: String) { setValue(NSNumber(value: value), forKey: key) }
    func vector(_ key: String) -> CIVector? { values[key] as? CIVector }
}

/// The inputs of one evaluation.
struct FilterInputs {
    let values: [String: Any]
    func image(_ key: String) -> CIImage? { values[key] as? CIImage }
    func number(_ key: String) -> Double? { numberValue(values[key]) }
    func vector(_ key: String) -> CIVector? { values[key] as? CIVector }
}

/// A built-in filter: its name, inputs, defaults and how to build its output.
struct BuiltinFilter: Sendable {
    enum Default: Sendable {
        case number(Double)
        case vector(CIVector)
        case transform(CGAffineTransform)
    }

    let name: String
    let inputKeys: [String]
    let defaults: [String: Default]
    let evaluate: @Sendable (FilterInputs) -> CIImage?

    var defaultValues: [String: Any] {
        defaults.mapValues { value -> Any in
            switch value {
            case .number(let n): return NSNumber(value: n)
            case .vector(let v): return v
            case .transform(let t): return t
            }
        }
    }

    static func named(_ name: String) -> BuiltinFilter? { all.first { $0.name == name } }

    static let blendKeys = [kCIInputImageKey, kCIInputBackgroundImageKey, kCIInputMaskImageKey]

    static func blend(_ name: String, channel: Int) -> BuiltinFilter {
        BuiltinFilter(name: name, inputKeys: blendKeys, defaults: [:]) { inputs in
            guard let image = inputs.image(kCIInputImageKey), let mask = inputs.image(kCIInputMaskImageKey) else {
                return nil
            }
            return CIImage.blend(image, over: inputs.image(kCIInputBackgroundImageKey), mask: mask, channel: channel)
        }
    }

    static let all: [BuiltinFilter] = core + more

    static let core: [BuiltinFilter] = [
        blend("CIBlendWithMask", channel: 1),
        blend("CIBlendWithRedMask", channel: 0),
        blend("CIBlendWithBlueMask", channel: 2),
        blend("CIBlendWithAlphaMask", channel: 3),
        BuiltinFilter(name: "CIMaximumComponent", inputKeys: [kCIInputImageKey], defaults: [:]) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            return CIImage(node: .point(image.recipe, .maximumComponent), extent: image.extent)
        },
        BuiltinFilter(name: "CIGammaAdjust", inputKeys: [kCIInputImageKey, "inputPower"], defaults: ["inputPower": .number(1)]) {
            inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            let power = Float(inputs.number("inputPower") ?? 1)
            if power == 1 { return image }
            return CIImage(node: .point(image.recipe, .gamma(power)), extent: image.extent)
        },
        BuiltinFilter(
            name: "CIGaussianBlur", inputKeys: [kCIInputImageKey, kCIInputRadiusKey],
            defaults: [kCIInputRadiusKey: .number(10)]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            return image.applyingGaussianBlur(sigma: inputs.number(kCIInputRadiusKey) ?? 10)
        },
        BuiltinFilter(
            name: "CISourceOverCompositing", inputKeys: [kCIInputImageKey, kCIInputBackgroundImageKey], defaults: [:]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey), let background = inputs.image(kCIInputBackgroundImageKey)
            else { return nil }
            return image.composited(over: background)
        },
        BuiltinFilter(
            name: "CILanczosScaleTransform", inputKeys: [kCIInputImageKey, kCIInputScaleKey, kCIInputAspectRatioKey],
            defaults: [kCIInputScaleKey: .number(1), kCIInputAspectRatioKey: .number(1)]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            let scale = Float(inputs.number(kCIInputScaleKey) ?? 1)
            let aspect = Float(inputs.number(kCIInputAspectRatioKey) ?? 1)
            return image.lanczosScaled(scaleX: scale * aspect, scaleY: scale)
        },
        BuiltinFilter(
            name: "CIColorMatrix",
            inputKeys: [kCIInputImageKey, "inputRVector", "inputGVector", "inputBVector", "inputAVector", "inputBiasVector"],
            defaults: [
                "inputRVector": .vector(CIVector(x: 1, y: 0, z: 0, w: 0)),
                "inputGVector": .vector(CIVector(x: 0, y: 1, z: 0, w: 0)),
                "inputBVector": .vector(CIVector(x: 0, y: 0, z: 1, w: 0)),
                "inputAVector": .vector(CIVector(x: 0, y: 0, z: 0, w: 1)),
                "inputBiasVector": .vector(CIVector(x: 0, y: 0, z: 0, w: 0)),
            ]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            func v(_ key: String, _ fallback: SIMD4<Float>) -> SIMD4<Float> { inputs.vector(key)?.simd4 ?? fallback }
            let bias = v("inputBiasVector", .zero)
            let operation = PointOperation.colorMatrix(
                r: v("inputRVector", SIMD4(1, 0, 0, 0)), g: v("inputGVector", SIMD4(0, 1, 0, 0)),
                b: v("inputBVector", SIMD4(0, 0, 1, 0)), a: v("inputAVector", SIMD4(0, 0, 0, 1)), bias: bias)
            // A non-zero alpha bias makes clear pixels visible: the extent becomes infinite.
            return CIImage(node: .point(image.recipe, operation), extent: bias[3] != 0 ? .infinite : image.extent)
        },
        BuiltinFilter(
            name: "CIAffineTransform", inputKeys: [kCIInputImageKey, kCIInputTransformKey],
            defaults: [kCIInputTransformKey: .transform(.identity)]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey) else { return nil }
            return image.transformed(by: inputs.values[kCIInputTransformKey] as? CGAffineTransform ?? .identity)
        },
        BuiltinFilter(
            name: "CIPersonSegmentation", inputKeys: [kCIInputImageKey, "inputQualityLevel"],
            defaults: ["inputQualityLevel": .number(0)]
        ) { inputs in
            guard let image = inputs.image(kCIInputImageKey), let hook = CIFilter.effectivePersonSegmentationHook else {
                return nil
            }
            return try? hook(image, Int(inputs.number("inputQualityLevel") ?? 0))
        },
    ]
}

/// Filters are mutable and not thread-safe, as on Apple platforms.
@available(*, unavailable)
extension CIFilter: Sendable {}

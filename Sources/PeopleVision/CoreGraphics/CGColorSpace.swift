import Foundation

/// The colour model of a ``CGColorSpace``, as Core Graphics' `CGColorSpaceModel` (raw values match).
public enum CGColorSpaceModel: Int32, Sendable {
    case unknown = -1
    case monochrome = 0
    case rgb = 1
    case cmyk = 2
    case lab = 3
    case deviceN = 4
    case indexed = 5
    case pattern = 6
    case XYZ = 7
}

/// A colour space, as Core Graphics' `CGColorSpace`.
///
/// PeopleVision does no colour management: pixel values are treated as sRGB-encoded numbers and
/// written unchanged whatever colour space is named. A colour space is used only to pick grey or
/// RGB output and to check that an export's format and colour space agree. Names are plain
/// `String`s holding the constants' symbol names (Apple's are `CFString`s with the same text).
///
/// ```swift
/// let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!
/// try context.writePNGRepresentation(of: image, to: url, format: .RGBA8, colorSpace: sRGB)
/// ```
public final class CGColorSpace: Sendable, Hashable, CustomStringConvertible {
    /// The standard name this space was created with, or nil for device spaces.
    public let name: String?
    /// Grey or RGB.
    public let model: CGColorSpaceModel

    /// The sRGB colour space (`kCGColorSpaceSRGB`).
    public static let sRGB = "kCGColorSpaceSRGB"
    /// sRGB primaries with a linear transfer function (`kCGColorSpaceLinearSRGB`).
    public static let linearSRGB = "kCGColorSpaceLinearSRGB"
    /// Extended-range sRGB (`kCGColorSpaceExtendedSRGB`).
    public static let extendedSRGB = "kCGColorSpaceExtendedSRGB"
    /// Extended-range linear sRGB (`kCGColorSpaceExtendedLinearSRGB`).
    public static let extendedLinearSRGB = "kCGColorSpaceExtendedLinearSRGB"
    /// Display P3 (`kCGColorSpaceDisplayP3`).
    public static let displayP3 = "kCGColorSpaceDisplayP3"
    /// ITU-R BT.709 (`kCGColorSpaceITUR_709`).
    public static let itur_709 = "kCGColorSpaceITUR_709"
    /// Generic linear RGB (`kCGColorSpaceGenericRGBLinear`).
    public static let genericRGBLinear = "kCGColorSpaceGenericRGBLinear"
    /// Grey with gamma 2.2 (`kCGColorSpaceGenericGrayGamma2_2`).
    public static let genericGrayGamma2_2 = "kCGColorSpaceGenericGrayGamma2_2"
    /// Linear grey (`kCGColorSpaceLinearGray`).
    public static let linearGray = "kCGColorSpaceLinearGray"
    /// Extended-range grey (`kCGColorSpaceExtendedGray`).
    public static let extendedGray = "kCGColorSpaceExtendedGray"
    /// Extended-range linear grey (`kCGColorSpaceExtendedLinearGray`).
    public static let extendedLinearGray = "kCGColorSpaceExtendedLinearGray"

    private static let known: [String: CGColorSpaceModel] = [
        sRGB: .rgb, linearSRGB: .rgb, extendedSRGB: .rgb, extendedLinearSRGB: .rgb, displayP3: .rgb, itur_709: .rgb,
        genericRGBLinear: .rgb, genericGrayGamma2_2: .monochrome, linearGray: .monochrome, extendedGray: .monochrome,
        extendedLinearGray: .monochrome,
    ]

    /// The standard colour space called `name`, or nil for a name this library does not know
    /// (Apple's `CGColorSpace(name:)`).
    public init?(name: String) {
        guard let model = CGColorSpace.known[name] else { return nil }
        self.name = name
        self.model = model
    }

    package init(deviceModel: CGColorSpaceModel) {
        self.name = nil
        self.model = deviceModel
    }

    /// Number of colour components (1 for grey, 3 for RGB), without alpha.
    public var numberOfComponents: Int { model == .monochrome ? 1 : 3 }

    /// Whether the space has a linear transfer function (informational: values are never converted).
    public var isLinear: Bool {
        name.map { $0.contains("Linear") } ?? false
    }

    public static func == (lhs: CGColorSpace, rhs: CGColorSpace) -> Bool {
        lhs.name == rhs.name && lhs.model == rhs.model
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(model)
    }

    public var description: String { "CGColorSpace(\(name ?? "device \(model)"))" }
}

/// A device-dependent RGB space, as Core Graphics' `CGColorSpaceCreateDeviceRGB()` (treated as sRGB).
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(deviceModel: .rgb) }

/// A device-dependent grey space, as Core Graphics' `CGColorSpaceCreateDeviceGray()`.
public func CGColorSpaceCreateDeviceGray() -> CGColorSpace { CGColorSpace(deviceModel: .monochrome) }

/// The model of a colour space, as Core Graphics' `CGColorSpaceGetModel`.
public func CGColorSpaceGetModel(_ space: CGColorSpace?) -> CGColorSpaceModel { space?.model ?? .unknown }

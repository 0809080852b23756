import Foundation

/// A colour, as Core Graphics' `CGColor`: components in a grey or RGB ``CGColorSpace``, alpha last.
///
/// Used where Vision apps hand colours to Core Image (`CIColor(cgColor:)`) or keep them for overlays; nothing draws
/// with it here. Like ``CGColorSpace``, no colour management is done: components are sRGB-encoded numbers.
public final class CGColor: Sendable, Hashable, CustomStringConvertible {
    /// The colour's components, alpha last (`[grey, alpha]` or `[red, green, blue, alpha]`).
    public let components: [CGFloat]?
    /// The colour space the components are in.
    public let colorSpace: CGColorSpace?

    /// An RGB colour in the sRGB space (Apple's `CGColor(red:green:blue:alpha:)`, iOS 13).
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        components = [red, green, blue, alpha]
        colorSpace = CGColorSpace(name: CGColorSpace.sRGB)
    }

    /// The same as ``init(red:green:blue:alpha:)`` (Apple's `CGColor(srgbRed:green:blue:alpha:)`).
    public convenience init(srgbRed red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        self.init(red: red, green: green, blue: blue, alpha: alpha)
    }

    /// A grey colour (Apple's `CGColor(gray:alpha:)`).
    public init(gray: CGFloat, alpha: CGFloat) {
        components = [gray, alpha]
        colorSpace = CGColorSpaceCreateDeviceGray()
    }

    /// Opaque black.
    public static let black = CGColor(gray: 0, alpha: 1)
    /// Opaque white.
    public static let white = CGColor(gray: 1, alpha: 1)
    /// Transparent black.
    public static let clear = CGColor(gray: 0, alpha: 0)

    /// The number of components, alpha included.
    public var numberOfComponents: Int { components?.count ?? 0 }

    /// The alpha component.
    public var alpha: CGFloat { components?.last ?? 1 }

    public static func == (a: CGColor, b: CGColor) -> Bool {
        a.components == b.components && a.colorSpace?.model == b.colorSpace?.model
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(components) }

    public var description: String { "CGColor(\((components ?? []).map { "\($0)" }.joined(separator: ", ")))" }
}

extension CIColor {
    /// A Core Image colour with a Core Graphics colour's components (Apple's `CIColor(cgColor:)`): a grey colour
    /// becomes that grey in red, green and blue.
    public convenience init(cgColor color: CGColor) {
        let c = color.components ?? [0, 1]
        if c.count >= 4 {
            self.init(red: c[0], green: c[1], blue: c[2], alpha: c[3])
        } else {
            self.init(red: c[0], green: c[0], blue: c[0], alpha: c.count > 1 ? c[1] : 1)
        }
    }
}

import Foundation

/// A colour with red, green, blue and alpha components, as Core Image's `CIColor`.
///
/// Components are straight (not premultiplied) and are sRGB-encoded values, usually in 0…1
/// (extended values are kept). Mirrors `CIColor` (iOS 5 / macOS 10.4); the colour space is
/// always treated as sRGB.
///
/// ```swift
/// let background = CIImage(color: CIColor(red: 0, green: 0.5, blue: 1)).cropped(to: frame.extent)
/// ```
public final class CIColor: Sendable, Hashable, CustomStringConvertible {
    /// Red component.
    public let red: CGFloat
    /// Green component.
    public let green: CGFloat
    /// Blue component.
    public let blue: CGFloat
    /// Alpha component.
    public let alpha: CGFloat

    /// A colour from its components; alpha defaults to 1.
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// An opaque colour (Apple's `CIColor(red:green:blue:)`).
    public convenience init(red: CGFloat, green: CGFloat, blue: CGFloat) {
        self.init(red: red, green: green, blue: blue, alpha: 1)
    }

    /// A colour from a string of 3 or 4 numbers such as `"0.5 0.7 0.3 1.0"` (Apple's `CIColor(string:)`);
    /// missing or unparsable components are 0, a missing alpha is 1.
    public convenience init(string representation: String) {
        let trimmed = representation.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        let values = trimmed.split(whereSeparator: { $0 == " " || $0 == "," }).map { CGFloat(Double($0) ?? 0) }
        func component(_ i: Int, _ fallback: CGFloat) -> CGFloat { i < values.count ? values[i] : fallback }
        self.init(red: component(0, 0), green: component(1, 0), blue: component(2, 0), alpha: component(3, 1))
    }

    /// Number of components including alpha (4).
    public var numberOfComponents: Int { 4 }

    /// The colour space of the components (sRGB).
    public var colorSpace: CGColorSpace { CGColorSpace(name: CGColorSpace.sRGB)! }

    /// The components as `"r g b a"`, as Apple's `stringRepresentation`.
    public var stringRepresentation: String { "\(red) \(green) \(blue) \(alpha)" }

    public var description: String { "CIColor(\(stringRepresentation))" }

    public static func == (lhs: CIColor, rhs: CIColor) -> Bool {
        lhs.red == rhs.red && lhs.green == rhs.green && lhs.blue == rhs.blue && lhs.alpha == rhs.alpha
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(red)
        hasher.combine(green)
        hasher.combine(blue)
        hasher.combine(alpha)
    }

    /// Opaque black.
    public static let black = CIColor(red: 0, green: 0, blue: 0)
    /// Opaque white.
    public static let white = CIColor(red: 1, green: 1, blue: 1)
    /// Opaque 50% grey.
    public static let gray = CIColor(red: 0.5, green: 0.5, blue: 0.5)
    /// Opaque red.
    public static let red = CIColor(red: 1, green: 0, blue: 0)
    /// Opaque green.
    public static let green = CIColor(red: 0, green: 1, blue: 0)
    /// Opaque blue.
    public static let blue = CIColor(red: 0, green: 0, blue: 1)
    /// Opaque cyan.
    public static let cyan = CIColor(red: 0, green: 1, blue: 1)
    /// Opaque magenta.
    public static let magenta = CIColor(red: 1, green: 0, blue: 1)
    /// Opaque yellow.
    public static let yellow = CIColor(red: 1, green: 1, blue: 0)
    /// Transparent black.
    public static let clear = CIColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Premultiplied RGBA as the renderer uses it.
    var premultiplied: SIMD4<Float> {
        let a = Float(alpha)
        return SIMD4(Float(red) * a, Float(green) * a, Float(blue) * a, a)
    }
}

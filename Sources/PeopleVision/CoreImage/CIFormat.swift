import Foundation
import PVRender

/// A pixel format for rendering and export, as Core Image's `CIFormat`.
///
/// The names match Apple's; the raw values are this library's own (Apple's are opaque
/// constants), so store formats by name, never by number.
///
/// | format | layout |
/// |---|---|
/// | ``RGBA8``, ``BGRA8``, ``ARGB8``, ``ABGR8`` | 8-bit, 4 channels in that byte order |
/// | ``RGBA16``, ``RGBAh``, ``RGBAf`` | 16-bit / half / float R, G, B, A |
/// | ``L8``, ``Lh``, ``Lf`` | one luminance channel (BT.601 luma of R, G, B) |
/// | ``R8``, ``Rh``, ``Rf`` | the red channel |
/// | ``A8``, ``Ah``, ``Af`` | the alpha channel |
public struct CIFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// This library's code for the format (not Apple's value).
    public let rawValue: Int32
    /// A format from its code.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// 8-bit A, R, G, B (`kCIFormatARGB8`).
    public static let ARGB8 = CIFormat(rawValue: 1)
    /// 8-bit B, G, R, A (`kCIFormatBGRA8`).
    public static let BGRA8 = CIFormat(rawValue: 2)
    /// 8-bit R, G, B, A (`kCIFormatRGBA8`).
    public static let RGBA8 = CIFormat(rawValue: 3)
    /// 8-bit A, B, G, R (`kCIFormatABGR8`).
    public static let ABGR8 = CIFormat(rawValue: 4)
    /// Half-float R, G, B, A (`kCIFormatRGBAh`).
    public static let RGBAh = CIFormat(rawValue: 5)
    /// Float R, G, B, A (`kCIFormatRGBAf`).
    public static let RGBAf = CIFormat(rawValue: 6)
    /// 8-bit luminance (`kCIFormatL8`).
    public static let L8 = CIFormat(rawValue: 7)
    /// Half-float luminance (`kCIFormatLh`).
    public static let Lh = CIFormat(rawValue: 8)
    /// Float luminance (`kCIFormatLf`).
    public static let Lf = CIFormat(rawValue: 9)
    /// 8-bit red channel (`kCIFormatR8`).
    public static let R8 = CIFormat(rawValue: 10)
    /// Half-float red channel (`kCIFormatRh`).
    public static let Rh = CIFormat(rawValue: 11)
    /// Float red channel (`kCIFormatRf`).
    public static let Rf = CIFormat(rawValue: 12)
    /// 8-bit alpha channel (`kCIFormatA8`).
    public static let A8 = CIFormat(rawValue: 13)
    /// Half-float alpha channel (`kCIFormatAh`).
    public static let Ah = CIFormat(rawValue: 14)
    /// Float alpha channel (`kCIFormatAf`).
    public static let Af = CIFormat(rawValue: 15)
    /// 16-bit unsigned R, G, B, A in native byte order (`kCIFormatRGBA16`).
    public static let RGBA16 = CIFormat(rawValue: 16)

    public var description: String {
        switch self {
        case .ARGB8: return "ARGB8"
        case .BGRA8: return "BGRA8"
        case .RGBA8: return "RGBA8"
        case .ABGR8: return "ABGR8"
        case .RGBAh: return "RGBAh"
        case .RGBAf: return "RGBAf"
        case .L8: return "L8"
        case .Lh: return "Lh"
        case .Lf: return "Lf"
        case .R8: return "R8"
        case .Rh: return "Rh"
        case .Rf: return "Rf"
        case .A8: return "A8"
        case .Ah: return "Ah"
        case .Af: return "Af"
        case .RGBA16: return "RGBA16"
        default: return "CIFormat(\(rawValue))"
        }
    }

    /// Whether this library renders to the format.
    var isKnown: Bool { (1...16).contains(rawValue) }

    /// Whether the format has a single channel.
    var isSingleChannel: Bool { rawValue >= 7 && rawValue <= 15 }

    /// The sink layout for this format, or nil for an unknown format.
    var layout: PixelLayout? {
        switch self {
        case .RGBA8: return .rgba8(.rgba)
        case .BGRA8: return .rgba8(.bgra)
        case .ARGB8: return .rgba8(.argb)
        case .ABGR8: return .rgba8(.abgr)
        case .RGBA16: return .rgba16
        case .RGBAh: return .rgbaHalf
        case .RGBAf: return .rgbaFloat
        case .L8: return .one(.luma, .uint8)
        case .Lh: return .one(.luma, .half)
        case .Lf: return .one(.luma, .float)
        case .R8: return .one(.red, .uint8)
        case .Rh: return .one(.red, .half)
        case .Rf: return .one(.red, .float)
        case .A8: return .one(.alpha, .uint8)
        case .Ah: return .one(.alpha, .half)
        case .Af: return .one(.alpha, .float)
        default: return nil
        }
    }
}

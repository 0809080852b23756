import Foundation

/// Where the alpha channel is and whether colours are premultiplied by it, as Core Graphics' `CGImageAlphaInfo`
/// (raw values match).
public enum CGImageAlphaInfo: UInt32, Sendable {
    /// No alpha (RGB or grey only).
    case none = 0
    /// Alpha last (RGBA), colours premultiplied.
    case premultipliedLast = 1
    /// Alpha first (ARGB), colours premultiplied.
    case premultipliedFirst = 2
    /// Alpha last, colours not premultiplied.
    case last = 3
    /// Alpha first, colours not premultiplied.
    case first = 4
    /// A padding byte last (RGBX), ignored.
    case noneSkipLast = 5
    /// A padding byte first (XRGB), ignored.
    case noneSkipFirst = 6
    /// Alpha only, no colour.
    case alphaOnly = 7
}

/// The byte order of a pixel's components, as Core Graphics' `CGImageByteOrderInfo` (raw values match).
public enum CGImageByteOrderInfo: UInt32, Sendable {
    /// The mask that selects the byte order bits of a ``CGBitmapInfo``.
    case orderMask = 0x7000
    /// The default: components in the order their names give (big-endian).
    case orderDefault = 0
    /// 16-bit little-endian words.
    case order16Little = 0x1000
    /// 32-bit little-endian words: `premultipliedFirst` becomes B, G, R, A in memory.
    case order32Little = 0x2000
    /// 16-bit big-endian words.
    case order16Big = 0x3000
    /// 32-bit big-endian words (the default order).
    case order32Big = 0x4000
}

/// A bitmap's layout: its alpha info, byte order and component type, as Core Graphics' `CGBitmapInfo`.
///
/// ```swift
/// let info = CGBitmapInfo(rawValue: CGImageAlphaInfo.premultipliedFirst.rawValue)
///     .union(.byteOrder32Little)     // B, G, R, A in memory, as camera frames are
/// ```
public struct CGBitmapInfo: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The bits that hold a ``CGImageAlphaInfo``.
    public static let alphaInfoMask = CGBitmapInfo(rawValue: 0x1F)
    /// The bits that say whether components are floating point.
    public static let floatInfoMask = CGBitmapInfo(rawValue: 0xF00)
    /// Components are floating point.
    public static let floatComponents = CGBitmapInfo(rawValue: 1 << 8)
    /// The bits that hold a ``CGImageByteOrderInfo``.
    public static let byteOrderMask = CGBitmapInfo(rawValue: 0x7000)
    /// The default byte order.
    public static let byteOrderDefault = CGBitmapInfo([])
    /// 16-bit little-endian.
    public static let byteOrder16Little = CGBitmapInfo(rawValue: 0x1000)
    /// 32-bit little-endian.
    public static let byteOrder32Little = CGBitmapInfo(rawValue: 0x2000)
    /// 16-bit big-endian.
    public static let byteOrder16Big = CGBitmapInfo(rawValue: 0x3000)
    /// 32-bit big-endian.
    public static let byteOrder32Big = CGBitmapInfo(rawValue: 0x4000)

    /// The alpha info these bits hold (nil for a value outside Apple's list).
    var alphaInfo: CGImageAlphaInfo? { CGImageAlphaInfo(rawValue: rawValue & Self.alphaInfoMask.rawValue) }
    /// The byte order these bits hold.
    var byteOrder: CGImageByteOrderInfo? { CGImageByteOrderInfo(rawValue: rawValue & Self.byteOrderMask.rawValue) }

    /// Where red, green, blue and alpha (or the skipped byte) sit in a 4-byte pixel of 8-bit components: in the
    /// logical order R, G, B, A (alpha or skip last) or A, R, G, B (first), bytes reversed in 32-bit little-endian
    /// order. Nil when these bits have no alpha or skip byte, or hold an unknown value.
    var fourByteOffsets: (red: Int, green: Int, blue: Int, alpha: Int)? {
        guard let alphaInfo, let byteOrder else { return nil }
        var offsets: [Int]
        switch alphaInfo {
        case .premultipliedLast, .last, .noneSkipLast: offsets = [0, 1, 2, 3]
        case .premultipliedFirst, .first, .noneSkipFirst: offsets = [1, 2, 3, 0]
        case .none, .alphaOnly: return nil
        }
        if byteOrder == .order32Little { offsets = offsets.map { 3 - $0 } }
        return (offsets[0], offsets[1], offsets[2], offsets[3])
    }
}

/// How images are resampled when drawn at another size, as Core Graphics' `CGInterpolationQuality`.
public enum CGInterpolationQuality: Int32, Sendable {
    /// The context's default (here: as `.high`).
    case `default` = 0
    /// Nearest neighbour.
    case none = 1
    /// Bilinear, and an area average when shrinking.
    case low = 2
    /// As `.high`.
    case medium = 4
    /// Bilinear, and an area average when shrinking.
    case high = 3
}

/// How the ends of stroked open subpaths are drawn, as Core Graphics' `CGLineCap`.
public enum CGLineCap: Int32, Sendable {
    /// Square end exactly at the end point.
    case butt = 0
    /// A half circle around the end point.
    case round = 1
    /// A square end extended by half the line width.
    case square = 2
}

/// How stroked segments meet, as Core Graphics' `CGLineJoin`.
public enum CGLineJoin: Int32, Sendable {
    /// A sharp corner, cut to a bevel past the miter limit.
    case miter = 0
    /// A circular corner.
    case round = 1
    /// A cut corner.
    case bevel = 2
}

/// Whether a path is filled, stroked or both, as Core Graphics' `CGPathDrawingMode`.
public enum CGPathDrawingMode: Int32, Sendable {
    /// Fill with the non-zero winding rule.
    case fill = 0
    /// Fill with the even-odd rule.
    case eoFill = 1
    /// Stroke.
    case stroke = 2
    /// Fill (non-zero), then stroke.
    case fillStroke = 3
    /// Fill (even-odd), then stroke.
    case eoFillStroke = 4
}

/// How drawn colour combines with what is already in a context, as Core Graphics' `CGBlendMode`
/// (the PDF and Porter–Duff modes; raw values match).
public enum CGBlendMode: Int32, Sendable, CaseIterable {
    case normal = 0, multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, softLight, hardLight
    case difference, exclusion, hue, saturation, color, luminosity
    case clear, copy, sourceIn, sourceOut, sourceAtop, destinationOver, destinationIn, destinationOut
    case destinationAtop, xor, plusDarker, plusLighter
}

/// How colours are mapped between colour spaces, as Core Graphics' `CGColorRenderingIntent` (informational here:
/// no colour management is done).
public enum CGColorRenderingIntent: Int32, Sendable {
    case defaultIntent = 0, absoluteColorimetric, relativeColorimetric, perceptual, saturation
}

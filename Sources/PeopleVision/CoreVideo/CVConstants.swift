import PVImaging

/// Core Video's status code.
public typealias CVReturn = Int32

/// Success.
public var kCVReturnSuccess: CVReturn { 0 }
/// An unspecified error.
public var kCVReturnError: CVReturn { -6660 }
/// An argument is invalid (a missing buffer, a bad index).
public var kCVReturnInvalidArgument: CVReturn { -6661 }
/// Memory could not be allocated.
public var kCVReturnAllocationFailed: CVReturn { -6662 }
/// The operation is not supported.
public var kCVReturnUnsupported: CVReturn { -6663 }
/// The pixel format is not one this library stores.
public var kCVReturnInvalidPixelFormat: CVReturn { -6680 }
/// A side is not positive or is too large.
public var kCVReturnInvalidSize: CVReturn { -6681 }
/// The pixel-buffer attributes are missing a key or hold a bad value.
public var kCVReturnInvalidPixelBufferAttributes: CVReturn { -6682 }
/// The pool attributes hold a bad value.
public var kCVReturnInvalidPoolAttributes: CVReturn { -6691 }

public var kCVPixelFormatType_OneComponent8: OSType { PixelFormat.oneComponent8.rawValue }
public var kCVPixelFormatType_OneComponent16Half: OSType { PixelFormat.oneComponent16Half.rawValue }
public var kCVPixelFormatType_OneComponent32Float: OSType { PixelFormat.oneComponent32Float.rawValue }
public var kCVPixelFormatType_32BGRA: OSType { PixelFormat.bgra32.rawValue }
public var kCVPixelFormatType_32ARGB: OSType { PixelFormat.argb32.rawValue }
public var kCVPixelFormatType_32RGBA: OSType { PixelFormat.rgba32.rawValue }
public var kCVPixelFormatType_24RGB: OSType { PixelFormat.rgb24.rawValue }
public var kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType { PixelFormat.yuv420BiPlanarFullRange.rawValue }
public var kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType { PixelFormat.yuv420BiPlanarVideoRange.rawValue }
/// Half-float disparity (`'hdis'`), stored as a one-component half-float buffer.
public var kCVPixelFormatType_DisparityFloat16: OSType { 0x6864_6973 }
/// Float disparity (`'fdis'`), stored as a one-component float buffer.
public var kCVPixelFormatType_DisparityFloat32: OSType { 0x6664_6973 }
/// Half-float depth (`'hdep'`), stored as a one-component half-float buffer.
public var kCVPixelFormatType_DepthFloat16: OSType { 0x6864_6570 }
/// Float depth (`'fdep'`), stored as a one-component float buffer.
public var kCVPixelFormatType_DepthFloat32: OSType { 0x6664_6570 }

// Formats apps name (to compare with a buffer's type, or to ask for one) that PeopleVision does not
// store: `CVPixelBufferCreate` answers `kCVReturnInvalidPixelFormat` for them.

/// 24-bit BGR (`'24BG'`); not stored here.
public var kCVPixelFormatType_24BGR: OSType { 0x3234_4247 }
/// 32-bit ABGR (`'ABGR'`); not stored here.
public var kCVPixelFormatType_32ABGR: OSType { 0x4142_4752 }
/// 64-bit RGBA half float (`'RGhA'`); not stored here.
public var kCVPixelFormatType_64RGBAHalf: OSType { 0x5247_6841 }
/// 128-bit RGBA float (`'RGfA'`); not stored here.
public var kCVPixelFormatType_128RGBAFloat: OSType { 0x5247_6641 }
/// Three-plane 4:2:0 YCbCr (`'y420'`); not stored here.
public var kCVPixelFormatType_420YpCbCr8Planar: OSType { 0x7934_3230 }
/// 16-bit grey (`'L016'`); not stored here.
public var kCVPixelFormatType_OneComponent16: OSType { 0x4C30_3136 }
/// Two 8-bit components (`'2C08'`); not stored here.
public var kCVPixelFormatType_TwoComponent8: OSType { 0x3243_3038 }
/// Two half-float components (`'2C0h'`); not stored here.
public var kCVPixelFormatType_TwoComponent16Half: OSType { 0x3243_3068 }
/// Two float components (`'2C0f'`); not stored here.
public var kCVPixelFormatType_TwoComponent32Float: OSType { 0x3243_3066 }

// Pixel-buffer attribute keys. The strings are Core Video's.

/// The pixel format (an `OSType` number), required by ``CVPixelBufferPoolCreate(_:_:_:_:)``.
public let kCVPixelBufferPixelFormatTypeKey: CFString = "PixelFormatType"
/// The width in pixels, required by ``CVPixelBufferPoolCreate(_:_:_:_:)``.
public let kCVPixelBufferWidthKey: CFString = "Width"
/// The height in pixels, required by ``CVPixelBufferPoolCreate(_:_:_:_:)``.
public let kCVPixelBufferHeightKey: CFString = "Height"
/// Row alignment; accepted (rows are always 64-byte aligned here).
public let kCVPixelBufferBytesPerRowAlignmentKey: CFString = "BytesPerRowAlignment"
/// CGImage compatibility; accepted (every buffer is).
public let kCVPixelBufferCGImageCompatibilityKey: CFString = "CGImageCompatibility"
/// CGBitmapContext compatibility; accepted (every buffer is).
public let kCVPixelBufferCGBitmapContextCompatibilityKey: CFString = "CGBitmapContextCompatibility"
/// IOSurface properties; accepted and ignored (there is no IOSurface).
public let kCVPixelBufferIOSurfacePropertiesKey: CFString = "IOSurfaceProperties"
/// Metal compatibility; accepted and ignored (there is no Metal).
public let kCVPixelBufferMetalCompatibilityKey: CFString = "MetalCompatibility"
/// A pool's minimum buffer count; accepted (the pool makes buffers on demand).
public let kCVPixelBufferPoolMinimumBufferCountKey: CFString = "MinimumBufferCount"
/// A pool's maximum buffer age; accepted (the pool keeps no idle buffers).
public let kCVPixelBufferPoolMaximumBufferAgeKey: CFString = "MaximumBufferAge"

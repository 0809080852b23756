/// A media type code, as Core Media's `CMMediaType`.
public typealias CMMediaType = FourCharCode
/// A video codec type code, as Core Media's `CMVideoCodecType`.
public typealias CMVideoCodecType = FourCharCode
/// A count of items, as Core Media's `CMItemCount`.
public typealias CMItemCount = CFIndex
/// An item's index, as Core Media's `CMItemIndex`.
public typealias CMItemIndex = CFIndex

/// Video (`'vide'`), as Core Media's `kCMMediaType_Video`.
public var kCMMediaType_Video: CMMediaType { 0x7669_6465 }

/// A format description's parameter is missing or bad.
public var kCMFormatDescriptionError_InvalidParameter: OSStatus { -12710 }
/// Memory could not be allocated.
public var kCMFormatDescriptionError_AllocationFailed: OSStatus { -12711 }
/// The value asked for is not in the description.
public var kCMFormatDescriptionError_ValueNotAvailable: OSStatus { -12718 }

/// A video frame's size in pixels, as Core Media's `CMVideoDimensions`.
public struct CMVideoDimensions: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int32
    /// Height in pixels.
    public var height: Int32

    /// 0 × 0.
    public init() {
        width = 0
        height = 0
    }

    public init(width: Int32, height: Int32) {
        self.width = width
        self.height = height
    }
}

/// What a sample buffer's media is, as Core Media's `CMFormatDescription`.
///
/// PeopleVision makes video descriptions only: media type video, subtype the pixel format of the
/// image buffers they describe, and their dimensions.
public final class CMFormatDescription: Sendable {
    /// The media's kind, as Core Media's `CMFormatDescription.MediaType`.
    public struct MediaType: RawRepresentable, Hashable, Sendable {
        public let rawValue: FourCharCode
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// Video (`'vide'`).
        public static let video = MediaType(rawValue: kCMMediaType_Video)
        /// Audio (`'soun'`).
        public static let audio = MediaType(rawValue: 0x736F_756E)
        /// Timed metadata (`'meta'`).
        public static let metadata = MediaType(rawValue: 0x6D65_7461)
    }

    /// The media's format within its type (for video here: the pixel format), as Core Media's
    /// `CMFormatDescription.MediaSubType`.
    public struct MediaSubType: RawRepresentable, Hashable, Sendable {
        public let rawValue: FourCharCode
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
    }

    let type: FourCharCode
    let subType: FourCharCode
    let size: CMVideoDimensions

    init(mediaType: FourCharCode, subType: FourCharCode, dimensions: CMVideoDimensions) {
        type = mediaType
        self.subType = subType
        size = dimensions
    }

    /// The media's kind (video).
    public var mediaType: MediaType { MediaType(rawValue: type) }
    /// The media's subtype (for video made from an image buffer: its pixel format).
    public var mediaSubType: MediaSubType { MediaSubType(rawValue: subType) }
    /// The video's size in pixels (0 × 0 for other media).
    public var dimensions: CMVideoDimensions { size }
}

/// Another name for ``CMFormatDescription``, as Core Media's `CMVideoFormatDescription`.
public typealias CMVideoFormatDescription = CMFormatDescription

/// Describes an image buffer (video, its pixel format, its size), as Core Media's
/// `CMVideoFormatDescriptionCreateForImageBuffer`.
@discardableResult
public func CMVideoFormatDescriptionCreateForImageBuffer(
    allocator: CFAllocator?, imageBuffer: CVImageBuffer, formatDescriptionOut: UnsafeMutablePointer<CMVideoFormatDescription?>
) -> OSStatus {
    formatDescriptionOut.pointee = CMFormatDescription(
        mediaType: kCMMediaType_Video, subType: imageBuffer.pixelFormatType, dimensions: imageBuffer.dimensions)
    return noErr32
}

/// Describes video of a codec type and size, as Core Media's `CMVideoFormatDescriptionCreate`
/// (extensions are accepted and not kept). A side that is negative gives
/// `kCMFormatDescriptionError_InvalidParameter`.
@discardableResult
public func CMVideoFormatDescriptionCreate(
    allocator: CFAllocator?, codecType: CMVideoCodecType, width: Int32, height: Int32, extensions: CFDictionary?,
    formatDescriptionOut: UnsafeMutablePointer<CMVideoFormatDescription?>
) -> OSStatus {
    guard width >= 0, height >= 0 else {
        formatDescriptionOut.pointee = nil
        return kCMFormatDescriptionError_InvalidParameter
    }
    formatDescriptionOut.pointee = CMFormatDescription(
        mediaType: kCMMediaType_Video, subType: codecType, dimensions: CMVideoDimensions(width: width, height: height))
    return noErr32
}

/// The video's size in pixels, as Core Media's `CMVideoFormatDescriptionGetDimensions`.
public func CMVideoFormatDescriptionGetDimensions(_ videoDesc: CMVideoFormatDescription) -> CMVideoDimensions {
    videoDesc.dimensions
}

/// Whether the description fits the image buffer (video, same pixel format and size), as Core Media's
/// `CMVideoFormatDescriptionMatchesImageBuffer`.
public func CMVideoFormatDescriptionMatchesImageBuffer(_ videoDesc: CMVideoFormatDescription, imageBuffer: CVImageBuffer) -> Bool {
    videoDesc.type == kCMMediaType_Video && videoDesc.subType == imageBuffer.pixelFormatType
        && videoDesc.size == imageBuffer.dimensions
}

/// The media type code, as Core Media's `CMFormatDescriptionGetMediaType`.
public func CMFormatDescriptionGetMediaType(_ desc: CMFormatDescription) -> CMMediaType { desc.type }

/// The media subtype code, as Core Media's `CMFormatDescriptionGetMediaSubType`.
public func CMFormatDescriptionGetMediaSubType(_ desc: CMFormatDescription) -> FourCharCode { desc.subType }

/// `noErr` as an `OSStatus`.
let noErr32: OSStatus = 0

extension CVBuffer {
    /// The size as Core Media counts it (sides past `Int32.max` cannot be made).
    var dimensions: CMVideoDimensions { CMVideoDimensions(width: Int32(clamping: width), height: Int32(clamping: height)) }
}

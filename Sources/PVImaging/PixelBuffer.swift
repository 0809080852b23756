/// The pixel layouts a ``PixelBuffer`` can hold.
///
/// Raw values are Core Video's `OSType` codes (`kCVPixelFormatType_*`), so the public
/// `CVPixelBuffer` layer maps them one to one.
public enum PixelFormat: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// One 8-bit channel, 0 = black.
    case oneComponent8 = 0x4C30_3038  // 'L008'
    /// One IEEE half-float channel.
    case oneComponent16Half = 0x4C30_3068  // 'L00h'
    /// One IEEE float channel.
    case oneComponent32Float = 0x4C30_3066  // 'L00f'
    /// 8-bit B, G, R, A.
    case bgra32 = 0x4247_5241  // 'BGRA'
    /// 8-bit A, R, G, B. Core Video's code is the plain integer 32.
    case argb32 = 0x0000_0020
    /// 8-bit R, G, B, A.
    case rgba32 = 0x5247_4241  // 'RGBA'
    /// 8-bit R, G, B, packed. Core Video's code is the plain integer 24.
    case rgb24 = 0x0000_0018
    /// Bi-planar 4:2:0: a full-resolution Y plane, then a half-resolution interleaved CbCr plane; full range.
    case yuv420BiPlanarFullRange = 0x3432_3066  // '420f'
    /// As ``yuv420BiPlanarFullRange`` with video-range luma (16–235) and chroma (16–240).
    case yuv420BiPlanarVideoRange = 0x3432_3076  // '420v'

    /// Number of planes (1, or 2 for the bi-planar YUV formats).
    public var planeCount: Int {
        switch self {
        case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange: return 2
        default: return 1
        }
    }

    /// Bytes per pixel of the first plane.
    public var bytesPerPixel: Int {
        switch self {
        case .oneComponent8: return 1
        case .oneComponent16Half: return 2
        case .oneComponent32Float: return 4
        case .bgra32, .argb32, .rgba32: return 4
        case .rgb24: return 3
        case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange: return 1
        }
    }

    /// Whether the format carries a single grey/mask channel.
    public var isOneComponent: Bool {
        self == .oneComponent8 || self == .oneComponent16Half || self == .oneComponent32Float
    }

    public var description: String {
        switch self {
        case .oneComponent8: return "OneComponent8"
        case .oneComponent16Half: return "OneComponent16Half"
        case .oneComponent32Float: return "OneComponent32Float"
        case .bgra32: return "32BGRA"
        case .argb32: return "32ARGB"
        case .rgba32: return "32RGBA"
        case .rgb24: return "24RGB"
        case .yuv420BiPlanarFullRange: return "420YpCbCr8BiPlanarFullRange"
        case .yuv420BiPlanarVideoRange: return "420YpCbCr8BiPlanarVideoRange"
        }
    }
}

/// An image in memory: one or two planes of pixels with padded, 64-byte-aligned rows.
///
/// `PixelBuffer` is a copy-on-write value. Its storage is one allocation aligned to 64 bytes;
/// each plane starts on a 64-byte boundary and every row's stride (`bytesPerRow`) is a multiple
/// of 64, so vector kernels never straddle rows. Always honour `bytesPerRow`: rows are padded.
///
/// ```swift
/// var mask = try PixelBuffer(width: 256, height: 256, format: .oneComponent8)
/// mask.withUnsafeMutableBytes(plane: 0) { bytes in bytes.initializeMemory(as: UInt8.self, repeating: 255) }
/// ```
public struct PixelBuffer: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Pixel layout.
    public let format: PixelFormat
    @usableFromInline var storage: Storage

    /// Row alignment and plane alignment in bytes.
    public static let alignment = 64

    /// Creates a zero-filled buffer.
    /// - Throws: ``ImagingError`` with code `.invalidDimensions` when a side is not positive, odd for a
    ///   4:2:0 format is allowed (chroma rounds up), or the size exceeds ``ImageLimits/maximumPixelCount``.
    public init(width: Int, height: Int, format: PixelFormat, limits: ImageLimits = .default) throws {
        try limits.check(width: width, height: height)
        self.width = width
        self.height = height
        self.format = format
        self.storage = Storage(layout: PlaneLayout.make(width: width, height: height, format: format))
    }

    /// Creates a buffer whose pixels are left undefined (row padding is zeroed), for producers that write
    /// every pixel before anything reads them (decoders, resamplers, renderers): it skips a pass over the
    /// whole image that a zero-filled buffer costs.
    /// - Throws: as ``init(width:height:format:limits:)``.
    package init(uninitializedWidth width: Int, height: Int, format: PixelFormat, limits: ImageLimits = .default) throws {
        try limits.check(width: width, height: height)
        self.width = width
        self.height = height
        self.format = format
        self.storage = Storage(layout: PlaneLayout.make(width: width, height: height, format: format), zeroed: false)
    }

    /// Number of planes.
    public var planeCount: Int { format.planeCount }

    /// Width of a plane in its own samples (the CbCr plane of 4:2:0 formats is half width, rounded up).
    public func planeWidth(_ plane: Int) -> Int { storage.layout.planes[plane].width }
    /// Height of a plane in rows.
    public func planeHeight(_ plane: Int) -> Int { storage.layout.planes[plane].height }
    /// Bytes from one row of a plane to the next.
    public func bytesPerRow(plane: Int = 0) -> Int { storage.layout.planes[plane].bytesPerRow }

    /// Calls `body` with the bytes of one plane (including row padding).
    @inlinable
    public func withUnsafeBytes<R>(plane: Int = 0, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let p = storage.layout.planes[plane]
        return try body(UnsafeRawBufferPointer(start: storage.base + p.offset, count: p.bytesPerRow * p.height))
    }

    /// Calls `body` with the mutable bytes of one plane, copying the storage first if it is shared.
    @inlinable
    public mutating func withUnsafeMutableBytes<R>(
        plane: Int = 0, _ body: (UnsafeMutableRawBufferPointer) throws -> R
    ) rethrows -> R {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let p = storage.layout.planes[plane]
        return try body(UnsafeMutableRawBufferPointer(start: storage.base + p.offset, count: p.bytesPerRow * p.height))
    }

    /// Whether two buffers share storage (used by tests of copy-on-write).
    public func sharesStorage(with other: PixelBuffer) -> Bool { storage === other.storage }
}

extension PixelBuffer {
    @usableFromInline
    struct PlaneLayout: Sendable {
        @usableFromInline struct Plane: Sendable {
            @usableFromInline let width: Int
            @usableFromInline let height: Int
            @usableFromInline let bytesPerRow: Int
            @usableFromInline let offset: Int
            /// Bytes of pixels in a row (the rest up to `bytesPerRow` is padding).
            @usableFromInline let usedBytesPerRow: Int
        }
        @usableFromInline let planes: [Plane]
        @usableFromInline let byteCount: Int

        static func make(width: Int, height: Int, format: PixelFormat) -> PlaneLayout {
            func aligned(_ n: Int) -> Int { (n + PixelBuffer.alignment - 1) / PixelBuffer.alignment * PixelBuffer.alignment }
            let rowY = aligned(width * format.bytesPerPixel)
            var planes = [Plane(width: width, height: height, bytesPerRow: rowY, offset: 0, usedBytesPerRow: width * format.bytesPerPixel)]
            var total = aligned(rowY * height)
            if format.planeCount == 2 {
                let cw = (width + 1) / 2
                let ch = (height + 1) / 2
                let rowC = aligned(cw * 2)
                planes.append(Plane(width: cw, height: ch, bytesPerRow: rowC, offset: total, usedBytesPerRow: cw * 2))
                total += aligned(rowC * ch)
            }
            return PlaneLayout(planes: planes, byteCount: max(total, PixelBuffer.alignment))
        }
    }

    /// One aligned, zero-initialised allocation. Mutated only through `withUnsafeMutableBytes`,
    /// which copies first when the storage is shared, so sharing it between threads is safe.
    @usableFromInline
    final class Storage: @unchecked Sendable {
        @usableFromInline let layout: PlaneLayout
        @usableFromInline let base: UnsafeMutableRawPointer

        /// `zeroed: false` zeroes only the bytes outside the pixels (row padding, plane gaps, the tail).
        init(layout: PlaneLayout, zeroed: Bool = true) {
            self.layout = layout
            base = UnsafeMutableRawPointer.allocate(byteCount: layout.byteCount, alignment: PixelBuffer.alignment)
            if zeroed {
                base.initializeMemory(as: UInt8.self, repeating: 0, count: layout.byteCount)
                return
            }
            var end = 0
            for plane in layout.planes {
                if plane.offset > end { (base + end).initializeMemory(as: UInt8.self, repeating: 0, count: plane.offset - end) }
                let used = plane.usedBytesPerRow
                if used < plane.bytesPerRow {
                    for y in 0..<plane.height {
                        (base + plane.offset + y * plane.bytesPerRow + used)
                            .initializeMemory(as: UInt8.self, repeating: 0, count: plane.bytesPerRow - used)
                    }
                }
                end = plane.offset + plane.bytesPerRow * plane.height
            }
            if layout.byteCount > end { (base + end).initializeMemory(as: UInt8.self, repeating: 0, count: layout.byteCount - end) }
        }

        @usableFromInline func copy() -> Storage {
            let s = Storage(layout: layout, zeroed: false)
            s.base.copyMemory(from: base, byteCount: layout.byteCount)
            return s
        }

        deinit { base.deallocate() }
    }
}

/// Limits applied before any image memory is allocated.
public struct ImageLimits: Sendable, Equatable {
    /// Largest accepted `width × height`. Default 100 megapixels: larger images are refused as likely
    /// decompression bombs.
    public var maximumPixelCount: Int
    /// Largest accepted side in pixels.
    public var maximumSide: Int

    public init(maximumPixelCount: Int = 100_000_000, maximumSide: Int = 65_535) {
        self.maximumPixelCount = maximumPixelCount
        self.maximumSide = maximumSide
    }

    /// 100 MP, 65 535 px per side.
    public static let `default` = ImageLimits()

    /// Throws unless `width` and `height` are positive and within the limits.
    public func check(width: Int, height: Int) throws {
        guard width > 0, height > 0 else {
            throw ImagingError(.invalidDimensions, "image size \(width)×\(height) is empty")
        }
        guard width <= maximumSide, height <= maximumSide,
            width.multipliedReportingOverflow(by: height).partialValue <= maximumPixelCount,
            !width.multipliedReportingOverflow(by: height).overflow
        else {
            throw ImagingError(
                .tooLarge,
                "image size \(width)×\(height) exceeds the limit of \(maximumPixelCount) pixels (\(maximumSide) px per side)")
        }
    }
}

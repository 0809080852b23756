import Foundation
import PVImaging

/// Core Video's four-character pixel format type.
public typealias OSType = UInt32
/// Core Video's status code.
public typealias CVReturn = Int32

public let kCVReturnSuccess: CVReturn = 0
public let kCVReturnError: CVReturn = -6660
public let kCVReturnInvalidArgument: CVReturn = -6661
public let kCVReturnAllocationFailed: CVReturn = -6662
public let kCVReturnInvalidPixelFormat: CVReturn = -6680
public let kCVReturnInvalidSize: CVReturn = -6681

public let kCVPixelFormatType_OneComponent8: OSType = PixelFormat.oneComponent8.rawValue
public let kCVPixelFormatType_OneComponent16Half: OSType = PixelFormat.oneComponent16Half.rawValue
public let kCVPixelFormatType_OneComponent32Float: OSType = PixelFormat.oneComponent32Float.rawValue
public let kCVPixelFormatType_32BGRA: OSType = PixelFormat.bgra32.rawValue
public let kCVPixelFormatType_32ARGB: OSType = PixelFormat.argb32.rawValue
public let kCVPixelFormatType_32RGBA: OSType = PixelFormat.rgba32.rawValue
public let kCVPixelFormatType_24RGB: OSType = PixelFormat.rgb24.rawValue
public let kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType = PixelFormat.yuv420BiPlanarFullRange.rawValue
public let kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType = PixelFormat.yuv420BiPlanarVideoRange.rawValue
/// Depth and disparity formats (`'hdis'`, `'fdis'`, `'hdep'`, `'fdep'`), accepted as one-component half/float buffers.
public let kCVPixelFormatType_DisparityFloat16: OSType = 0x6864_6973
public let kCVPixelFormatType_DisparityFloat32: OSType = 0x6664_6973
public let kCVPixelFormatType_DepthFloat16: OSType = 0x6864_6570
public let kCVPixelFormatType_DepthFloat32: OSType = 0x6664_6570

/// Flags for locking a pixel buffer's base address.
public struct CVPixelBufferLockFlags: OptionSet, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The caller only reads.
    public static let readOnly = CVPixelBufferLockFlags(rawValue: 1)
}

/// An image buffer in main memory, as Core Video's `CVPixelBuffer`.
///
/// Mirrors the C-style API sample code uses (`CVPixelBufferCreate`, `CVPixelBufferLockBaseAddress`,
/// `CVPixelBufferGetBaseAddress`, …). Rows are padded: always use `CVPixelBufferGetBytesPerRow`.
/// Thread-safe: the pixels may be read from any thread; writers lock the base address.
public final class CVPixelBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: PixelBuffer
    private var lockCount = 0
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The format code.
    public let pixelFormatType: OSType
    /// Extra formats that share a layout with a PVImaging format (depth/disparity) keep their own code.
    let layout: PixelFormat

    /// Wraps an imaging buffer (no copy).
    package init(_ buffer: PixelBuffer, formatType: OSType? = nil) {
        self.buffer = buffer
        width = buffer.width
        height = buffer.height
        layout = buffer.format
        pixelFormatType = formatType ?? buffer.format.rawValue
    }

    /// A copy-on-write snapshot of the pixels.
    package var pixelBuffer: PixelBuffer { lock.withLock { buffer } }

    /// Replaces the pixels (same size and format), used by renderers writing into the buffer.
    package func replace(with buffer: PixelBuffer) {
        precondition(buffer.width == width && buffer.height == height && buffer.format == layout)
        lock.withLock { self.buffer = buffer }
    }

    /// Calls `body` with the mutable bytes of a plane.
    package func withMutableBytes<R>(plane: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try buffer.withUnsafeMutableBytes(plane: plane, body)
    }

    fileprivate func baseAddress(plane: Int) -> UnsafeMutableRawPointer? {
        // The storage is made unique once so the returned pointer stays valid and private to this buffer.
        lock.withLock { buffer.withUnsafeMutableBytes(plane: plane) { $0.baseAddress } }
    }

    fileprivate func lockBase() { lock.withLock { lockCount += 1 } }
    fileprivate func unlockBase() -> Bool {
        lock.withLock {
            guard lockCount > 0 else { return false }
            lockCount -= 1
            return true
        }
    }

    static func layout(for type: OSType) -> PixelFormat? {
        switch type {
        case kCVPixelFormatType_DisparityFloat16, kCVPixelFormatType_DepthFloat16: return .oneComponent16Half
        case kCVPixelFormatType_DisparityFloat32, kCVPixelFormatType_DepthFloat32: return .oneComponent32Float
        default: return PixelFormat(rawValue: type)
        }
    }
}

/// Creates a pixel buffer (zero-filled). Returns `kCVReturnInvalidPixelFormat` or `kCVReturnInvalidSize` on bad input.
@discardableResult
public func CVPixelBufferCreate(
    _ allocator: AnyObject?, _ width: Int, _ height: Int, _ pixelFormatType: OSType,
    _ pixelBufferAttributes: [String: Any]?, _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    guard let layout = CVPixelBuffer.layout(for: pixelFormatType) else {
        pixelBufferOut.pointee = nil
        return kCVReturnInvalidPixelFormat
    }
    guard let buffer = try? PixelBuffer(width: width, height: height, format: layout) else {
        pixelBufferOut.pointee = nil
        return kCVReturnInvalidSize
    }
    pixelBufferOut.pointee = CVPixelBuffer(buffer, formatType: pixelFormatType)
    return kCVReturnSuccess
}

public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.width }
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.height }
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType { pixelBuffer.pixelFormatType }
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.pixelBuffer.bytesPerRow(plane: 0) }
public func CVPixelBufferGetPlaneCount(_ pixelBuffer: CVPixelBuffer) -> Int {
    pixelBuffer.layout.planeCount == 1 ? 0 : pixelBuffer.layout.planeCount
}
public func CVPixelBufferIsPlanar(_ pixelBuffer: CVPixelBuffer) -> Bool { pixelBuffer.layout.planeCount > 1 }
public func CVPixelBufferGetWidthOfPlane(_ pixelBuffer: CVPixelBuffer, _ plane: Int) -> Int {
    plane < pixelBuffer.layout.planeCount ? pixelBuffer.pixelBuffer.planeWidth(plane) : 0
}
public func CVPixelBufferGetHeightOfPlane(_ pixelBuffer: CVPixelBuffer, _ plane: Int) -> Int {
    plane < pixelBuffer.layout.planeCount ? pixelBuffer.pixelBuffer.planeHeight(plane) : 0
}
public func CVPixelBufferGetBytesPerRowOfPlane(_ pixelBuffer: CVPixelBuffer, _ plane: Int) -> Int {
    plane < pixelBuffer.layout.planeCount ? pixelBuffer.pixelBuffer.bytesPerRow(plane: plane) : 0
}

/// Locks the base address; pair every call with `CVPixelBufferUnlockBaseAddress`.
@discardableResult
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ lockFlags: CVPixelBufferLockFlags) -> CVReturn {
    pixelBuffer.lockBase()
    return kCVReturnSuccess
}

/// Unlocks the base address; returns `kCVReturnError` when it was not locked.
@discardableResult
public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ unlockFlags: CVPixelBufferLockFlags) -> CVReturn {
    pixelBuffer.unlockBase() ? kCVReturnSuccess : kCVReturnError
}

/// The first plane's pixels (valid while the buffer is alive; lock it around access as on Apple platforms).
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? {
    pixelBuffer.baseAddress(plane: 0)
}

/// A plane's pixels, or nil for a plane that does not exist.
public func CVPixelBufferGetBaseAddressOfPlane(_ pixelBuffer: CVPixelBuffer, _ plane: Int) -> UnsafeMutableRawPointer? {
    plane < pixelBuffer.layout.planeCount ? pixelBuffer.baseAddress(plane: plane) : nil
}

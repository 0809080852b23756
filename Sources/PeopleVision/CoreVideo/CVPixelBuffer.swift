import Foundation
import PVImaging

/// Core Video's four-character pixel format type.
public typealias OSType = UInt32

/// Flags for locking a pixel buffer's base address.
public struct CVPixelBufferLockFlags: OptionSet, Sendable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// The caller only reads.
    public static var readOnly: CVPixelBufferLockFlags { CVPixelBufferLockFlags(rawValue: 1) }
}

/// A pixel buffer, as Core Video's `CVImageBuffer` (the same class here: every image buffer is a pixel buffer).
public typealias CVImageBuffer = CVBuffer
/// An image buffer in main memory, as Core Video's `CVPixelBuffer`.
public typealias CVPixelBuffer = CVImageBuffer

/// An image buffer in main memory, as Core Video's `CVBuffer` (``CVImageBuffer`` and ``CVPixelBuffer``
/// name this class too, as on Apple platforms all three are one object).
///
/// Mirrors the C-style API sample code uses (`CVPixelBufferCreate`, `CVPixelBufferLockBaseAddress`,
/// `CVPixelBufferGetBaseAddress`, …). Rows are padded: always use `CVPixelBufferGetBytesPerRow`.
/// Thread-safe: the pixels may be read from any thread; writers lock the base address.
public final class CVBuffer: @unchecked Sendable {
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
    /// Called once the buffer is freed (``CVPixelBufferCreateWithBytes``'s release callback).
    var onRelease: (() -> Void)?
    /// ``CVBufferSetAttachment(_:_:_:_:)``'s values.
    let attachments = Attachments()

    /// Wraps an imaging buffer (no copy).
    package init(_ buffer: PixelBuffer, formatType: OSType? = nil) {
        self.buffer = buffer
        width = buffer.width
        height = buffer.height
        layout = buffer.format
        pixelFormatType = formatType ?? buffer.format.rawValue
    }

    deinit { onRelease?() }

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

    /// Whether `plane` is one of a planar buffer's planes (Core Video answers 0 or nil for a chunky buffer's).
    func hasPlane(_ plane: Int) -> Bool { layout.planeCount > 1 && (0..<layout.planeCount).contains(plane) }

    static func layout(for type: OSType) -> PixelFormat? {
        switch type {
        case kCVPixelFormatType_DisparityFloat16, kCVPixelFormatType_DepthFloat16: return .oneComponent16Half
        case kCVPixelFormatType_DisparityFloat32, kCVPixelFormatType_DepthFloat32: return .oneComponent32Float
        default: return PixelFormat(rawValue: type)
        }
    }
}

/// Creates a pixel buffer (zero-filled), as Core Video's `CVPixelBufferCreate`.
///
/// The formats PeopleVision stores are 32BGRA, 32ARGB, 32RGBA, 24RGB, the 420 bi-planar pair,
/// OneComponent8/16Half/32Float and the depth and disparity formats; others give
/// `kCVReturnInvalidPixelFormat`. Attributes are accepted and not needed (rows are always padded
/// to 64 bytes). Returns `kCVReturnInvalidSize` for a side that is not positive or too large.
@discardableResult
public func CVPixelBufferCreate(
    _ allocator: CFAllocator?, _ width: Int, _ height: Int, _ pixelFormatType: OSType,
    _ pixelBufferAttributes: CFDictionary?, _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
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
public func CVPixelBufferGetWidthOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    pixelBuffer.hasPlane(planeIndex) ? pixelBuffer.pixelBuffer.planeWidth(planeIndex) : 0
}
public func CVPixelBufferGetHeightOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    pixelBuffer.hasPlane(planeIndex) ? pixelBuffer.pixelBuffer.planeHeight(planeIndex) : 0
}
public func CVPixelBufferGetBytesPerRowOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    pixelBuffer.hasPlane(planeIndex) ? pixelBuffer.pixelBuffer.bytesPerRow(plane: planeIndex) : 0
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

/// A plane's pixels, or nil for a plane that does not exist (every plane of a non-planar buffer).
public func CVPixelBufferGetBaseAddressOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> UnsafeMutableRawPointer? {
    pixelBuffer.hasPlane(planeIndex) ? pixelBuffer.baseAddress(plane: planeIndex) : nil
}

/// The bytes the pixels occupy, every plane and row padding included, as Core Video's `CVPixelBufferGetDataSize`.
public func CVPixelBufferGetDataSize(_ pixelBuffer: CVPixelBuffer) -> Int {
    let pixels = pixelBuffer.pixelBuffer
    return (0..<pixelBuffer.layout.planeCount).reduce(0) { $0 + pixels.bytesPerRow(plane: $1) * pixels.planeHeight($1) }
}

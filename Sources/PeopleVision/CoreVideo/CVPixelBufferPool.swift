import Foundation
import PVImaging

/// Makes pixel buffers of one size and format, as Core Video's `CVPixelBufferPool`.
///
/// Each buffer is new and zero-filled: the pool keeps no idle buffers to recycle (Core Video
/// documents recycled buffers' contents as undefined, so code written for it never relies on them).
public final class CVPixelBufferPool: Sendable {
    let width: Int
    let height: Int
    let pixelFormatType: OSType
    let poolAttributes: [String: Int]

    init(width: Int, height: Int, pixelFormatType: OSType, poolAttributes: [String: Int]) {
        self.width = width
        self.height = height
        self.pixelFormatType = pixelFormatType
        self.poolAttributes = poolAttributes
    }
}

/// Creates a pool, as Core Video's `CVPixelBufferPoolCreate`.
///
/// `pixelBufferAttributes` must hold ``kCVPixelBufferWidthKey``, ``kCVPixelBufferHeightKey`` and
/// ``kCVPixelBufferPixelFormatTypeKey`` as numbers (else `kCVReturnInvalidPixelBufferAttributes`);
/// the format and size are checked as ``CVPixelBufferCreate(_:_:_:_:_:_:)`` checks them. Pool
/// attributes must be numbers when given (else `kCVReturnInvalidPoolAttributes`).
@discardableResult
public func CVPixelBufferPoolCreate(
    _ allocator: CFAllocator?, _ poolAttributes: CFDictionary?, _ pixelBufferAttributes: CFDictionary?,
    _ poolOut: UnsafeMutablePointer<CVPixelBufferPool?>
) -> CVReturn {
    poolOut.pointee = nil
    let attributes = cfStringKeyed(pixelBufferAttributes)
    guard let width = attributes[kCVPixelBufferWidthKey].flatMap(integerValue),
        let height = attributes[kCVPixelBufferHeightKey].flatMap(integerValue),
        let format = attributes[kCVPixelBufferPixelFormatTypeKey].flatMap(integerValue), let type = OSType(exactly: format)
    else { return kCVReturnInvalidPixelBufferAttributes }
    var pool: [String: Int] = [:]
    for (key, value) in cfStringKeyed(poolAttributes) {
        guard let number = integerValue(value) else { return kCVReturnInvalidPoolAttributes }
        pool[key] = number
    }
    // The first buffer proves the format and size.
    var probe: CVPixelBuffer?
    let status = CVPixelBufferCreate(nil, width, height, type, nil, &probe)
    guard status == kCVReturnSuccess else { return status }
    poolOut.pointee = CVPixelBufferPool(width: width, height: height, pixelFormatType: type, poolAttributes: pool)
    return kCVReturnSuccess
}

/// A new buffer from the pool, as Core Video's `CVPixelBufferPoolCreatePixelBuffer`.
@discardableResult
public func CVPixelBufferPoolCreatePixelBuffer(
    _ allocator: CFAllocator?, _ pixelBufferPool: CVPixelBufferPool, _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    CVPixelBufferCreate(nil, pixelBufferPool.width, pixelBufferPool.height, pixelBufferPool.pixelFormatType, nil, pixelBufferOut)
}

/// The attributes the pool's buffers are made with, as Core Video's `CVPixelBufferPoolGetPixelBufferAttributes`.
public func CVPixelBufferPoolGetPixelBufferAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? {
    [
        kCVPixelBufferWidthKey: pool.width, kCVPixelBufferHeightKey: pool.height,
        kCVPixelBufferPixelFormatTypeKey: Int(pool.pixelFormatType),
    ]
}

/// The pool attributes given at creation, as Core Video's `CVPixelBufferPoolGetAttributes`.
public func CVPixelBufferPoolGetAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? { pool.poolAttributes }

/// Called when a buffer made by ``CVPixelBufferCreateWithBytes(_:_:_:_:_:_:_:_:_:_:)`` is freed, as
/// Core Video's `CVPixelBufferReleaseBytesCallback`: `(releaseRefCon, baseAddress)`.
public typealias CVPixelBufferReleaseBytesCallback = (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void

/// A pixel buffer holding caller-owned pixels, as Core Video's `CVPixelBufferCreateWithBytes`.
///
/// Difference from Core Video: the rows are **copied** into the buffer's own storage (PeopleVision's
/// buffers always own their pixels), so later writes to `baseAddress` are not seen by the buffer
/// and writes to the buffer do not reach `baseAddress`. `releaseCallback` is still called, once,
/// when the buffer is freed, so the caller's memory management works unchanged. Planar formats
/// give `kCVReturnInvalidPixelFormat`; `bytesPerRow` shorter than a row, `kCVReturnInvalidArgument`.
@discardableResult
public func CVPixelBufferCreateWithBytes(
    _ allocator: CFAllocator?, _ width: Int, _ height: Int, _ pixelFormatType: OSType, _ baseAddress: UnsafeMutableRawPointer,
    _ bytesPerRow: Int, _ releaseCallback: CVPixelBufferReleaseBytesCallback?, _ releaseRefCon: UnsafeMutableRawPointer?,
    _ pixelBufferAttributes: CFDictionary?, _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    pixelBufferOut.pointee = nil
    guard let layout = CVPixelBuffer.layout(for: pixelFormatType), layout.planeCount == 1 else { return kCVReturnInvalidPixelFormat }
    let status = CVPixelBufferCreate(nil, width, height, pixelFormatType, nil, pixelBufferOut)
    guard status == kCVReturnSuccess, let buffer = pixelBufferOut.pointee else { return status }
    let rowLength = width * layout.bytesPerPixel
    guard bytesPerRow >= rowLength else {
        pixelBufferOut.pointee = nil
        return kCVReturnInvalidArgument
    }
    let stride = CVPixelBufferGetBytesPerRow(buffer)
    buffer.withMutableBytes(plane: 0) { target in
        for y in 0..<height {
            (target.baseAddress! + y * stride).copyMemory(from: baseAddress + y * bytesPerRow, byteCount: rowLength)
        }
    }
    if let releaseCallback {
        nonisolated(unsafe) let refCon = releaseRefCon, address = UnsafeRawPointer(baseAddress)
        buffer.onRelease = { releaseCallback(refCon, address) }
    }
    return kCVReturnSuccess
}

/// A CF dictionary's entries whose keys are strings (or string-backed keys).
func cfStringKeyed(_ dictionary: CFDictionary?) -> [String: Any] {
    var out: [String: Any] = [:]
    for (key, value) in dictionary ?? [:] {
        if let s = key.base as? String {
            out[s] = value
        } else if let raw = (key.base as? any RawRepresentable)?.rawValue as? String {
            out[raw] = value
        }
    }
    return out
}

/// An integer option given as any number type (whole numbers only).
func integerValue(_ value: Any) -> Int? {
    if let v = value as? Int { return v }
    if let v = value as? UInt32 { return Int(v) }
    if let v = value as? Int64 { return Int(exactly: v) }
    if let v = value as? UInt64 { return Int(exactly: v) }
    guard let d = numberValue(value), d.isFinite, d.rounded() == d else { return nil }
    return Int(exactly: d)
}

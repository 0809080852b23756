import Foundation
import PeopleVision
import Synchronization
import Testing

/// Core Video beyond `CVPixelBufferCreate`: pools, caller-owned bytes, plane queries, attachments.
@Suite("Core Video")
struct CoreVideoTests {
    @Test func returnCodesAreCoreVideos() {
        // The values of CVReturn.h.
        #expect(kCVReturnSuccess == 0 && kCVReturnError == -6660 && kCVReturnInvalidArgument == -6661)
        #expect(kCVReturnAllocationFailed == -6662 && kCVReturnUnsupported == -6663)
        #expect(kCVReturnInvalidPixelFormat == -6680 && kCVReturnInvalidSize == -6681 && kCVReturnInvalidPixelBufferAttributes == -6682)
        // Four-character codes spelled out.
        func code(_ s: String) -> OSType { s.utf8.reduce(0) { $0 << 8 | OSType($1) } }
        #expect(kCVPixelFormatType_32BGRA == code("BGRA") && kCVPixelFormatType_64RGBAHalf == code("RGhA"))
        #expect(kCVPixelFormatType_TwoComponent8 == code("2C08") && kCVPixelFormatType_420YpCbCr8Planar == code("y420"))
        #expect(kCVPixelFormatType_DepthFloat32 == code("fdep") && kCVPixelFormatType_OneComponent16 == code("L016"))
        var out: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 4, 4, kCVPixelFormatType_TwoComponent8, nil, &out) == kCVReturnInvalidPixelFormat && out == nil)
    }

    @Test func poolMakesBuffersOfItsAttributes() throws {
        let attributes = [
            kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA, kCVPixelBufferWidthKey: 40, kCVPixelBufferHeightKey: 30,
            kCVPixelBufferCGImageCompatibilityKey: kCFBooleanTrue!,
        ] as CFDictionary
        var pool: CVPixelBufferPool?
        #expect(CVPixelBufferPoolCreate(nil, [kCVPixelBufferPoolMinimumBufferCountKey: 3] as CFDictionary, attributes, &pool) == 0)
        let made = try #require(pool)
        var a: CVPixelBuffer?, b: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, made, &a) == 0 && CVPixelBufferPoolCreatePixelBuffer(nil, made, &b) == 0)
        let first = try #require(a), second = try #require(b)
        #expect(first !== second)
        #expect(CVPixelBufferGetWidth(first) == 40 && CVPixelBufferGetHeight(first) == 30)
        #expect(CVPixelBufferGetPixelFormatType(second) == kCVPixelFormatType_32BGRA)
        #expect(CVPixelBufferPoolGetPixelBufferAttributes(made)?[kCVPixelBufferWidthKey] as? Int == 40)
        #expect(CVPixelBufferPoolGetAttributes(made)?[kCVPixelBufferPoolMinimumBufferCountKey] as? Int == 3)

        var refused: CVPixelBufferPool?
        #expect(CVPixelBufferPoolCreate(nil, nil, [kCVPixelBufferWidthKey: 40] as CFDictionary, &refused) == kCVReturnInvalidPixelBufferAttributes)
        #expect(CVPixelBufferPoolCreate(nil, nil, nil, &refused) == kCVReturnInvalidPixelBufferAttributes && refused == nil)
        let negative: CFDictionary = [kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA, kCVPixelBufferWidthKey: -1, kCVPixelBufferHeightKey: 3]
        #expect(CVPixelBufferPoolCreate(nil, nil, negative, &refused) == kCVReturnInvalidSize)
        let pixelsOnly: CFDictionary = [kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA, kCVPixelBufferWidthKey: 4, kCVPixelBufferHeightKey: 3]
        #expect(CVPixelBufferPoolCreate(nil, ["MinimumBufferCount": "three"], pixelsOnly, &refused) == kCVReturnInvalidPoolAttributes)
    }

    @Test func createWithBytesCopiesRowsAndReleasesOnce() throws {
        // 3 × 2 BGRA rows padded to 16 bytes; the padding holds 0xEE, which must not reach the buffer.
        let stride = 16
        let base = UnsafeMutableRawPointer.allocate(byteCount: stride * 2, alignment: 16)
        for i in 0..<(stride * 2) { base.storeBytes(of: i % stride < 12 ? UInt8(i) : 0xEE, toByteOffset: i, as: UInt8.self) }
        let released = Mutex(0)
        var out: CVPixelBuffer?
        let status = CVPixelBufferCreateWithBytes(
            nil, 3, 2, kCVPixelFormatType_32BGRA, base, stride, { refCon, address in
                released.withLock { $0 += 1 }
                address.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
                _ = refCon
            }, nil, nil, &out)
        #expect(status == kCVReturnSuccess)
        var buffer = out
        out = nil
        let made = try #require(buffer)
        CVPixelBufferLockBaseAddress(made, .readOnly)
        let row = CVPixelBufferGetBytesPerRow(made), pixels = try #require(CVPixelBufferGetBaseAddress(made))
        for y in 0..<2 {
            for x in 0..<12 { #expect(pixels.load(fromByteOffset: y * row + x, as: UInt8.self) == UInt8(y * stride + x)) }
        }
        CVPixelBufferUnlockBaseAddress(made, .readOnly)
        #expect(released.withLock { $0 } == 0)
        buffer = nil
        _ = consume made
        #expect(released.withLock { $0 } == 1)

        let scratch = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { scratch.deallocate() }
        #expect(CVPixelBufferCreateWithBytes(nil, 4, 2, kCVPixelFormatType_32BGRA, scratch, 8, nil, nil, nil, &out) == kCVReturnInvalidArgument)
        #expect(
            CVPixelBufferCreateWithBytes(nil, 4, 2, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, scratch, 8, nil, nil, nil, &out)
                == kCVReturnInvalidPixelFormat && out == nil)
    }

    @Test func planesAndDataSize() throws {
        var chunky: CVPixelBuffer?, planar: CVPixelBuffer?
        CVPixelBufferCreate(nil, 40, 30, kCVPixelFormatType_32BGRA, nil, &chunky)
        CVPixelBufferCreate(nil, 40, 30, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &planar)
        let c = try #require(chunky), p = try #require(planar)
        #expect(CVPixelBufferGetDataSize(c) == CVPixelBufferGetBytesPerRow(c) * 30)
        #expect(CVPixelBufferGetPlaneCount(c) == 0 && CVPixelBufferGetWidthOfPlane(c, 0) == 0 && CVPixelBufferGetBaseAddressOfPlane(c, 0) == nil)
        #expect(CVPixelBufferGetPlaneCount(p) == 2 && CVPixelBufferIsPlanar(p))
        #expect(CVPixelBufferGetWidthOfPlane(p, 1) == 20 && CVPixelBufferGetHeightOfPlane(p, 1) == 15 && CVPixelBufferGetWidthOfPlane(p, 2) == 0)
        #expect(CVPixelBufferGetBaseAddressOfPlane(p, 1) != nil && CVPixelBufferGetBaseAddressOfPlane(p, -1) == nil)
        let expected = CVPixelBufferGetBytesPerRowOfPlane(p, 0) * 30 + CVPixelBufferGetBytesPerRowOfPlane(p, 1) * 15
        #expect(CVPixelBufferGetDataSize(p) == expected)
        #expect(CVImageBufferGetEncodedSize(p) == CGSize(width: 40, height: 30) && CVImageBufferGetCleanRect(p).width == 40)
        #expect(!CVImageBufferIsFlipped(p))
    }

    @Test func attachments() throws {
        var out: CVPixelBuffer?
        CVPixelBufferCreate(nil, 2, 2, kCVPixelFormatType_OneComponent8, nil, &out)
        let buffer: CVImageBuffer = try #require(out)
        CVBufferSetAttachment(buffer, "CVImageBufferColorPrimaries", "ITU_R_709_2" as NSString, .shouldPropagate)
        CVBufferSetAttachment(buffer, "Note", NSNumber(value: 3), .shouldNotPropagate)
        var mode = CVAttachmentMode.shouldNotPropagate
        #expect((CVBufferCopyAttachment(buffer, "CVImageBufferColorPrimaries", &mode) as? NSString) == "ITU_R_709_2")
        #expect(mode == .shouldPropagate)
        #expect(CVBufferCopyAttachments(buffer, .shouldNotPropagate)?.count == 1)
        CVBufferRemoveAttachment(buffer, "Note")
        #expect(CVBufferCopyAttachment(buffer, "Note", nil) == nil && CVBufferCopyAttachments(buffer, .shouldNotPropagate) == nil)
        CVBufferRemoveAllAttachments(buffer)
        #expect(CVBufferCopyAttachments(buffer, .shouldPropagate) == nil)
    }
}

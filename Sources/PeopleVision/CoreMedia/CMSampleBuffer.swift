import Foundation

/// A sample's times, as Core Media's `CMSampleTimingInfo`.
public struct CMSampleTimingInfo: Sendable, Hashable {
    /// How long the sample is shown.
    public var duration: CMTime
    /// When the sample is shown.
    public var presentationTimeStamp: CMTime
    /// When the sample is decoded (invalid when it equals the presentation time).
    public var decodeTimeStamp: CMTime

    /// Every time invalid, as C's zero-initialised `CMSampleTimingInfo`.
    public init() {
        duration = CMTime()
        presentationTimeStamp = CMTime()
        decodeTimeStamp = CMTime()
    }

    public init(duration: CMTime, presentationTimeStamp: CMTime, decodeTimeStamp: CMTime) {
        self.duration = duration
        self.presentationTimeStamp = presentationTimeStamp
        self.decodeTimeStamp = decodeTimeStamp
    }

    /// Every time invalid.
    public static let invalid = CMSampleTimingInfo()
}

/// Makes a sample buffer's data ready on request, as Core Media's `CMSampleBufferMakeDataReadyCallback`
/// (a Swift closure here; return 0 on success).
public typealias CMSampleBufferMakeDataReadyCallback = (CMSampleBuffer, UnsafeMutableRawPointer?) -> OSStatus

// Core Media's sample-buffer result codes.

/// Memory could not be allocated.
public var kCMSampleBufferError_AllocationFailed: OSStatus { -12730 }
/// A required argument is missing.
public var kCMSampleBufferError_RequiredParameterMissing: OSStatus { -12731 }
/// The buffer's data is not ready.
public var kCMSampleBufferError_BufferNotReady: OSStatus { -12733 }
/// A sample index is out of range.
public var kCMSampleBufferError_SampleIndexOutOfRange: OSStatus { -12734 }
/// The buffer has no timing.
public var kCMSampleBufferError_BufferHasNoSampleTimingInfo: OSStatus { -12736 }
/// The timing is not valid for the operation.
public var kCMSampleBufferError_SampleTimingInfoInvalid: OSStatus { -12740 }
/// The format description does not describe the image buffer.
public var kCMSampleBufferError_InvalidMediaFormat: OSStatus { -12743 }
/// The buffer was invalidated.
public var kCMSampleBufferError_Invalidated: OSStatus { -12744 }

/// One video frame with its format and timing, as Core Media's `CMSampleBuffer` (a reference type, as
/// Core Foundation objects are).
///
/// PeopleVision makes sample buffers around image buffers only, for passing camera or video
/// frames to Vision (`VNImageRequestHandler(cmSampleBuffer:orientation:options:)`):
///
/// ```swift
/// var format: CMVideoFormatDescription?
/// CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: pixels, formatDescriptionOut: &format)
/// var timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 30),
///                                 presentationTimeStamp: CMTime(value: 7, timescale: 30), decodeTimeStamp: .invalid)
/// var sample: CMSampleBuffer?
/// CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: pixels, formatDescription: format!,
///                                          sampleTiming: &timing, sampleBufferOut: &sample)
/// ```
public final class CMSampleBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var image: CVImageBuffer?
    private let format: CMFormatDescription?
    private let timing: CMSampleTimingInfo
    private var ready: Bool
    private var valid = true
    private var makeReady: CMSampleBufferMakeDataReadyCallback?
    private let refcon: UnsafeMutableRawPointer?
    private var sampleAttachments: NSArray?
    /// The buffer-level attachments (``CMSetAttachment(_:key:value:attachmentMode:)``).
    let attachments = Attachments()

    init(
        image: CVImageBuffer?, format: CMFormatDescription?, timing: CMSampleTimingInfo, ready: Bool,
        makeReady: CMSampleBufferMakeDataReadyCallback?, refcon: UnsafeMutableRawPointer?
    ) {
        self.image = image
        self.format = format
        self.timing = timing
        self.ready = ready
        self.makeReady = makeReady
        self.refcon = refcon
    }

    /// A ready sample buffer for an image buffer, as Core Media's `CMSampleBuffer(imageBuffer:formatDescription:sampleTiming:)`.
    ///
    /// - Throws: an `NSError` in `NSOSStatusErrorDomain` with
    ///   ``kCMSampleBufferError_InvalidMediaFormat`` when `formatDescription` does not describe `imageBuffer`.
    public convenience init(imageBuffer: CVImageBuffer, formatDescription: CMVideoFormatDescription, sampleTiming: CMSampleTimingInfo) throws {
        guard CMVideoFormatDescriptionMatchesImageBuffer(formatDescription, imageBuffer: imageBuffer) else {
            throw CMSampleBuffer.error(kCMSampleBufferError_InvalidMediaFormat)
        }
        self.init(image: imageBuffer, format: formatDescription, timing: sampleTiming, ready: true, makeReady: nil, refcon: nil)
    }

    /// The frame's pixels (nil once invalidated).
    public var imageBuffer: CVImageBuffer? { lock.withLock { valid ? image : nil } }
    /// The frame's format.
    public var formatDescription: CMFormatDescription? { format }
    /// When the frame is shown.
    public var presentationTimeStamp: CMTime { timing.presentationTimeStamp }
    /// When the frame is shown after any trimming or speed change (here always the presentation time).
    public var outputPresentationTimeStamp: CMTime { timing.presentationTimeStamp }
    /// When the frame is decoded (``CMTime/invalid`` when not given).
    public var decodeTimeStamp: CMTime { timing.decodeTimeStamp }
    /// How long the frame is shown.
    public var duration: CMTime { timing.duration }
    /// The number of samples: 1 (one frame).
    public var numSamples: Int { 1 }
    /// Whether the buffer has not been invalidated.
    public var isValid: Bool { lock.withLock { valid } }
    /// Whether the buffer's data is ready.
    public var dataIsReady: Bool { lock.withLock { ready } }

    /// The timing of sample `sampleIndex` (0 only).
    ///
    /// - Throws: an `NSError` in `NSOSStatusErrorDomain`: ``kCMSampleBufferError_SampleIndexOutOfRange``.
    public func sampleTimingInfo(at sampleIndex: CMItemIndex) throws -> CMSampleTimingInfo {
        var out = CMSampleTimingInfo()
        let status = CMSampleBufferGetSampleTimingInfo(self, at: sampleIndex, timingInfoOut: &out)
        guard status == noErr32 else { throw CMSampleBuffer.error(status) }
        return out
    }

    /// Drops the buffer's data, as Core Media's `CMSampleBuffer.invalidate()`.
    ///
    /// - Throws: an `NSError` in `NSOSStatusErrorDomain` with ``kCMSampleBufferError_Invalidated``
    ///   when it already was.
    public func invalidate() throws {
        let status = CMSampleBufferInvalidate(self)
        guard status == noErr32 else { throw CMSampleBuffer.error(status) }
    }

    /// Marks the data ready; false when it already was invalidated.
    func setReady() -> Bool {
        lock.withLock {
            guard valid else { return false }
            ready = true
            makeReady = nil
            return true
        }
    }

    /// Runs the make-data-ready callback, if the data is not ready.
    func makeDataReady() -> OSStatus {
        let state: (valid: Bool, ready: Bool, callback: CMSampleBufferMakeDataReadyCallback?) = lock.withLock {
            (valid, ready, makeReady)
        }
        guard state.valid else { return kCMSampleBufferError_Invalidated }
        if state.ready { return noErr32 }
        guard let callback = state.callback else { return kCMSampleBufferError_BufferNotReady }
        let status = callback(self, refcon)
        if status == noErr32 { _ = setReady() }
        return status
    }

    /// Invalidates; false when it already was.
    func invalidateOnce() -> Bool {
        lock.withLock {
            guard valid else { return false }
            valid = false
            image = nil
            return true
        }
    }

    /// The per-sample attachment dictionaries, made on first request when asked to.
    func attachments(create: Bool) -> NSArray? {
        lock.withLock {
            if sampleAttachments == nil, create { sampleAttachments = NSArray(object: NSMutableDictionary()) }
            return sampleAttachments
        }
    }

    static func error(_ status: OSStatus) -> NSError { NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
}

/// A ready sample buffer for an image buffer, as Core Media's `CMSampleBufferCreateReadyWithImageBuffer`.
///
/// Returns ``kCMSampleBufferError_InvalidMediaFormat`` when `formatDescription` does not describe
/// `imageBuffer` (video, same pixel format and size), as ``CMVideoFormatDescriptionMatchesImageBuffer(_:imageBuffer:)``.
@discardableResult
public func CMSampleBufferCreateReadyWithImageBuffer(
    allocator: CFAllocator?, imageBuffer: CVImageBuffer, formatDescription: CMVideoFormatDescription,
    sampleTiming: UnsafePointer<CMSampleTimingInfo>, sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>
) -> OSStatus {
    CMSampleBufferCreateForImageBuffer(
        allocator: allocator, imageBuffer: imageBuffer, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
        formatDescription: formatDescription, sampleTiming: sampleTiming, sampleBufferOut: sampleBufferOut)
}

/// A sample buffer for an image buffer, ready or not, as Core Media's `CMSampleBufferCreateForImageBuffer`.
///
/// A buffer made with `dataReady: false` becomes ready through ``CMSampleBufferSetDataReady(_:)`` or
/// ``CMSampleBufferMakeDataReady(_:)`` (which runs `makeDataReadyCallback` with `refcon`).
/// Returns ``kCMSampleBufferError_InvalidMediaFormat`` when `formatDescription` does not describe `imageBuffer`.
@discardableResult
public func CMSampleBufferCreateForImageBuffer(
    allocator: CFAllocator?, imageBuffer: CVImageBuffer, dataReady: Bool,
    makeDataReadyCallback: CMSampleBufferMakeDataReadyCallback?, refcon makeDataReadyRefcon: UnsafeMutableRawPointer?,
    formatDescription: CMVideoFormatDescription, sampleTiming: UnsafePointer<CMSampleTimingInfo>,
    sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>
) -> OSStatus {
    guard CMVideoFormatDescriptionMatchesImageBuffer(formatDescription, imageBuffer: imageBuffer) else {
        sampleBufferOut.pointee = nil
        return kCMSampleBufferError_InvalidMediaFormat
    }
    sampleBufferOut.pointee = CMSampleBuffer(
        image: imageBuffer, format: formatDescription, timing: sampleTiming.pointee, ready: dataReady,
        makeReady: makeDataReadyCallback, refcon: makeDataReadyRefcon)
    return noErr32
}

/// The frame's pixels, or nil once invalidated, as Core Media's `CMSampleBufferGetImageBuffer`.
public func CMSampleBufferGetImageBuffer(_ sbuf: CMSampleBuffer) -> CVImageBuffer? { sbuf.imageBuffer }
/// The frame's format, as Core Media's `CMSampleBufferGetFormatDescription`.
public func CMSampleBufferGetFormatDescription(_ sbuf: CMSampleBuffer) -> CMFormatDescription? { sbuf.formatDescription }
/// When the frame is shown, as Core Media's `CMSampleBufferGetPresentationTimeStamp`.
public func CMSampleBufferGetPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.presentationTimeStamp }
/// When the frame is shown after trimming (the presentation time), as Core Media's `CMSampleBufferGetOutputPresentationTimeStamp`.
public func CMSampleBufferGetOutputPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.outputPresentationTimeStamp }
/// When the frame is decoded, as Core Media's `CMSampleBufferGetDecodeTimeStamp`.
public func CMSampleBufferGetDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.decodeTimeStamp }
/// How long the frame is shown, as Core Media's `CMSampleBufferGetDuration`.
public func CMSampleBufferGetDuration(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.duration }
/// The number of samples (1), as Core Media's `CMSampleBufferGetNumSamples`.
public func CMSampleBufferGetNumSamples(_ sbuf: CMSampleBuffer) -> CMItemCount { sbuf.numSamples }
/// Whether the buffer has not been invalidated, as Core Media's `CMSampleBufferIsValid`.
public func CMSampleBufferIsValid(_ sbuf: CMSampleBuffer) -> Bool { sbuf.isValid }
/// Whether the buffer's data is ready, as Core Media's `CMSampleBufferDataIsReady`.
public func CMSampleBufferDataIsReady(_ sbuf: CMSampleBuffer) -> Bool { sbuf.dataIsReady }

/// The type identifier every sample buffer shares, as Core Media's `CMSampleBufferGetTypeID`.
public func CMSampleBufferGetTypeID() -> CFTypeID { 0x434D_5342 }

/// Sample `sampleIndex`'s timing (index 0 only), as Core Media's `CMSampleBufferGetSampleTimingInfo`.
///
/// Returns ``kCMSampleBufferError_SampleIndexOutOfRange`` for another index.
@discardableResult
public func CMSampleBufferGetSampleTimingInfo(
    _ sbuf: CMSampleBuffer, at sampleIndex: CMItemIndex, timingInfoOut: UnsafeMutablePointer<CMSampleTimingInfo>
) -> OSStatus {
    guard sampleIndex == 0 else { return kCMSampleBufferError_SampleIndexOutOfRange }
    timingInfoOut.pointee = CMSampleTimingInfo(
        duration: sbuf.duration, presentationTimeStamp: sbuf.presentationTimeStamp, decodeTimeStamp: sbuf.decodeTimeStamp)
    return noErr32
}

/// The per-sample attachment dictionaries (one `NSMutableDictionary`, for the one sample), as Core
/// Media's `CMSampleBufferGetSampleAttachmentsArray`; nil when there are none and `createIfNecessary` is false.
///
/// Difference from Apple platforms: Linux's Foundation hands an `NSArray`'s dictionaries back as
/// Swift dictionaries (copies), so attachments set on a fetched element are not kept. Nothing in
/// PeopleVision reads sample attachments.
public func CMSampleBufferGetSampleAttachmentsArray(_ sbuf: CMSampleBuffer, createIfNecessary: Bool) -> CFArray? {
    sbuf.attachments(create: createIfNecessary)
}

/// Marks the data ready, as Core Media's `CMSampleBufferSetDataReady` (``kCMSampleBufferError_Invalidated``
/// once invalidated).
@discardableResult
public func CMSampleBufferSetDataReady(_ sbuf: CMSampleBuffer) -> OSStatus {
    sbuf.setReady() ? noErr32 : kCMSampleBufferError_Invalidated
}

/// Makes the data ready through the buffer's callback, as Core Media's `CMSampleBufferMakeDataReady`:
/// 0 when it already was or the callback succeeded, the callback's error, or
/// ``kCMSampleBufferError_BufferNotReady`` when there is no callback.
@discardableResult
public func CMSampleBufferMakeDataReady(_ sbuf: CMSampleBuffer) -> OSStatus { sbuf.makeDataReady() }

/// Drops the buffer's data (its image buffer is then nil), as Core Media's `CMSampleBufferInvalidate`;
/// ``kCMSampleBufferError_Invalidated`` when it already was.
@discardableResult
public func CMSampleBufferInvalidate(_ sbuf: CMSampleBuffer) -> OSStatus {
    sbuf.invalidateOnce() ? noErr32 : kCMSampleBufferError_Invalidated
}

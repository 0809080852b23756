import Foundation
import PeopleVision
import PVImaging
import PVTestSupport
import Synchronization
import Testing

/// Sample buffers made around pixel buffers, and camera frames through Vision.
@Suite("CMSampleBuffer", .serialized)
struct CoreMediaSampleBufferTests {
    static let timing = CMSampleTimingInfo(
        duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: CMTime(value: 7, timescale: 30), decodeTimeStamp: .invalid)

    static func frame(_ pixels: CVPixelBuffer, timing: CMSampleTimingInfo = timing) throws -> CMSampleBuffer {
        var format: CMVideoFormatDescription?
        #expect(CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: pixels, formatDescriptionOut: &format) == 0)
        var timing = timing
        var sample: CMSampleBuffer?
        let status = CMSampleBufferCreateReadyWithImageBuffer(
            allocator: kCFAllocatorDefault, imageBuffer: pixels, formatDescription: try #require(format), sampleTiming: &timing,
            sampleBufferOut: &sample)
        #expect(status == 0)
        return try #require(sample)
    }

    static func pixels(_ width: Int, _ height: Int, _ format: OSType = kCVPixelFormatType_32BGRA) throws -> CVPixelBuffer {
        var out: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, width, height, format, nil, &out) == kCVReturnSuccess)
        return try #require(out)
    }

    /// The Vision error code of a failure, or nil.
    static func visionCode(_ body: () throws -> Void) -> Int? {
        do { try body(); return nil } catch let e as NSError { return e.domain == VNErrorDomain ? e.code : -1 }
    }

    @Test func timingAndFormatSurvive() throws {
        let pixels = try Self.pixels(64, 48, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange)
        let sample = try Self.frame(pixels)
        #expect(CMSampleBufferGetImageBuffer(sample) === pixels && sample.imageBuffer === pixels)
        #expect(CMSampleBufferGetPresentationTimeStamp(sample) == CMTime(value: 7, timescale: 30))
        #expect(sample.presentationTimeStamp.value == 7 && sample.presentationTimeStamp.timescale == 30)
        #expect(CMSampleBufferGetDuration(sample) == CMTime(value: 1, timescale: 30) && sample.duration.timescale == 30)
        #expect(!CMSampleBufferGetDecodeTimeStamp(sample).isValid && !sample.decodeTimeStamp.isValid)
        #expect(CMSampleBufferGetOutputPresentationTimeStamp(sample) == sample.presentationTimeStamp)
        #expect(CMSampleBufferGetNumSamples(sample) == 1 && sample.numSamples == 1)
        #expect(CMSampleBufferIsValid(sample) && sample.isValid && CMSampleBufferDataIsReady(sample))

        let format = try #require(CMSampleBufferGetFormatDescription(sample))
        #expect(CMVideoFormatDescriptionGetDimensions(format) == CMVideoDimensions(width: 64, height: 48))
        #expect(sample.formatDescription?.dimensions.width == 64)
        #expect(format.mediaType == .video && CMFormatDescriptionGetMediaType(format) == kCMMediaType_Video)
        #expect(format.mediaSubType.rawValue == kCVPixelFormatType_420YpCbCr8BiPlanarFullRange)

        var info = CMSampleTimingInfo()
        #expect(CMSampleBufferGetSampleTimingInfo(sample, at: 0, timingInfoOut: &info) == 0)
        let overlay = try sample.sampleTimingInfo(at: 0)
        #expect(info == Self.timing && overlay == Self.timing)
        #expect(CMSampleBufferGetSampleTimingInfo(sample, at: 1, timingInfoOut: &info) == kCMSampleBufferError_SampleIndexOutOfRange)
        do {
            _ = try sample.sampleTimingInfo(at: 1)
            Issue.record("index 1 of a one-sample buffer did not throw")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.code == Int(kCMSampleBufferError_SampleIndexOutOfRange))
        }
    }

    @Test func mismatchedFormatIsRefused() throws {
        let pixels = try Self.pixels(64, 48)
        var other: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: try Self.pixels(32, 48), formatDescriptionOut: &other)
        var timing = Self.timing
        var sample: CMSampleBuffer? = try Self.frame(pixels)
        let status = CMSampleBufferCreateReadyWithImageBuffer(
            allocator: nil, imageBuffer: pixels, formatDescription: try #require(other), sampleTiming: &timing, sampleBufferOut: &sample)
        #expect(status == kCMSampleBufferError_InvalidMediaFormat && sample == nil)
        #expect(throws: NSError.self) { try CMSampleBuffer(imageBuffer: pixels, formatDescription: other!, sampleTiming: timing) }
        var described: CMVideoFormatDescription?
        #expect(
            CMVideoFormatDescriptionCreate(
                allocator: nil, codecType: kCVPixelFormatType_32BGRA, width: 64, height: 48, extensions: nil,
                formatDescriptionOut: &described) == 0)
        #expect(CMVideoFormatDescriptionMatchesImageBuffer(try #require(described), imageBuffer: pixels))
        #expect(!CMVideoFormatDescriptionMatchesImageBuffer(other!, imageBuffer: pixels))
        let made = try CMSampleBuffer(imageBuffer: pixels, formatDescription: described!, sampleTiming: .invalid)
        #expect(!made.presentationTimeStamp.isValid && made.imageBuffer === pixels)
    }

    @Test func dataReadyCallbackAndInvalidation() throws {
        let pixels = try Self.pixels(16, 16)
        var format: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: pixels, formatDescriptionOut: &format)
        let calls = Mutex(0)
        var timing = Self.timing
        var sample: CMSampleBuffer?
        let status = CMSampleBufferCreateForImageBuffer(
            allocator: nil, imageBuffer: pixels, dataReady: false, makeDataReadyCallback: { _, _ in calls.withLock { $0 += 1 }; return 0 },
            refcon: nil, formatDescription: format!, sampleTiming: &timing, sampleBufferOut: &sample)
        let buffer = try #require(sample)
        #expect(status == 0 && !CMSampleBufferDataIsReady(buffer))
        #expect(CMSampleBufferMakeDataReady(buffer) == 0 && CMSampleBufferDataIsReady(buffer))
        #expect(CMSampleBufferMakeDataReady(buffer) == 0 && calls.withLock { $0 } == 1)

        #expect(CMSampleBufferInvalidate(buffer) == 0)
        #expect(!CMSampleBufferIsValid(buffer) && CMSampleBufferGetImageBuffer(buffer) == nil)
        #expect(CMSampleBufferInvalidate(buffer) == kCMSampleBufferError_Invalidated)
        #expect(throws: NSError.self) { try buffer.invalidate() }
        // One dictionary per sample, in an array the buffer makes once, on request.
        let withAttachments = try Self.frame(pixels)
        #expect(CMSampleBufferGetSampleAttachmentsArray(withAttachments, createIfNecessary: false) == nil)
        let attachments = try #require(CMSampleBufferGetSampleAttachmentsArray(withAttachments, createIfNecessary: true))
        #expect(attachments.count == 1 && (attachments.object(at: 0) as? [AnyHashable: Any])?.isEmpty == true)
        #expect(CMSampleBufferGetSampleAttachmentsArray(withAttachments, createIfNecessary: false) === attachments)
    }

    @Test func framesWithoutUsablePixelsGiveVisionErrors() throws {
        let pixels = try Self.pixels(64, 64)
        let invalidated = try Self.frame(pixels)
        CMSampleBufferInvalidate(invalidated)
        let request = VNDetectFaceRectanglesRequest()
        #expect(Self.visionCode { try VNImageRequestHandler(cmSampleBuffer: invalidated).perform([request]) } == VNErrorCode.invalidImage.rawValue)
        #expect(Self.visionCode { try VNSequenceRequestHandler().perform([request], on: invalidated) } == VNErrorCode.invalidImage.rawValue)

        // Data that never becomes ready: the callback's failure reaches the request as Vision's error.
        var format: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: pixels, formatDescriptionOut: &format)
        var timing = Self.timing
        var sample: CMSampleBuffer?
        CMSampleBufferCreateForImageBuffer(
            allocator: nil, imageBuffer: pixels, dataReady: false, makeDataReadyCallback: { _, _ in -1 }, refcon: nil,
            formatDescription: format!, sampleTiming: &timing, sampleBufferOut: &sample)
        let handler = VNImageRequestHandler(cmSampleBuffer: try #require(sample), orientation: .up)
        #expect(Self.visionCode { try handler.perform([request]) } == VNErrorCode.invalidImage.rawValue)
    }

    @Test func rotatedCameraFrameMatchesTheUprightImage() throws {
        let upright = try HumanTestImages.astronaut()
        let body = VNDetectHumanBodyPoseRequest(), face = VNDetectFaceRectanglesRequest()
        try VNImageRequestHandler(cgImage: HumanTestImages.cgImage(upright)).perform([body, face])
        let uprightBody = try #require(body.results?.first), uprightFace = try #require(face.results?.first)
        #expect(uprightBody.timeRange == .zero)

        // A portrait back-camera frame: stored turned a quarter counter-clockwise, shown with `.right`.
        let stored = try CVPixelBuffer(upright.applying(.right.inverse).converted(to: .bgra32))
        #expect(CVPixelBufferGetWidth(stored) == upright.height && CVPixelBufferGetHeight(stored) == upright.width)
        let sample = try Self.frame(stored)
        let body2 = VNDetectHumanBodyPoseRequest(), face2 = VNDetectFaceRectanglesRequest()
        try VNImageRequestHandler(cmSampleBuffer: sample, orientation: .right, options: [:]).perform([body2, face2])
        let frameBody = try #require(body2.results?.first), frameFace = try #require(face2.results?.first)
        for joint in [VNHumanBodyPoseObservation.JointName.nose, .leftShoulder, .rightShoulder, .leftHip] {
            let a = try uprightBody.recognizedPoint(joint), b = try frameBody.recognizedPoint(joint)
            #expect(abs(a.x - b.x) < 0.01 && abs(a.y - b.y) < 0.01, "\(joint)")
        }
        let (a, b) = (uprightFace.boundingBox, frameFace.boundingBox)
        #expect(abs(a.midX - b.midX) < 0.01 && abs(a.midY - b.midY) < 0.01 && abs(a.width - b.width) < 0.01)
        // Observations of a frame carry its presentation time and duration.
        #expect(frameBody.timeRange == CMTimeRange(start: CMTime(value: 7, timescale: 30), duration: CMTime(value: 1, timescale: 30)))
        #expect(frameFace.timeRange.start == CMTime(value: 7, timescale: 30))

        // The sequence handler takes the same frame.
        let sequenced = VNDetectHumanBodyPoseRequest()
        try VNSequenceRequestHandler().perform([sequenced], on: sample, orientation: .right)
        let nose = try #require(sequenced.results?.first).recognizedPoint(.nose)
        #expect(abs(nose.x - (try uprightBody.recognizedPoint(.nose).x)) < 0.01)
    }
}

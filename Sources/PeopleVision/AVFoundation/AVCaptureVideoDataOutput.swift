import Foundation

/// A kind of media, as AVFoundation's `AVMediaType`.
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Video.
    public static let video = AVMediaType(rawValue: "vide")
    /// Audio.
    public static let audio = AVMediaType(rawValue: "soun")
    /// Depth data.
    public static let depthData = AVMediaType(rawValue: "zdep")
    /// Metadata.
    public static let metadata = AVMediaType(rawValue: "meta")
}

/// How a connection turns its frames, as AVFoundation's `AVCaptureVideoOrientation` (raw values match).
public enum AVCaptureVideoOrientation: Int, Sendable {
    case portrait = 1, portraitUpsideDown = 2, landscapeRight = 3, landscapeLeft = 4
}

/// A capture device, as AVFoundation's `AVCaptureDevice`: here only its nested types, which capture code passes
/// around (the front or back camera decides how frames are mirrored). No camera is opened on Linux.
public final class AVCaptureDevice: NSObject, @unchecked Sendable {
    /// Where a camera faces, as `AVCaptureDevice.Position`.
    public enum Position: Int, Sendable {
        case unspecified = 0, back = 1, front = 2
    }

    /// The device's position.
    public let position: Position

    private init(position: Position) { self.position = position }
}

/// Where a capture output's frames come from and how they are turned, as AVFoundation's `AVCaptureConnection`.
open class AVCaptureConnection: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var _orientation = AVCaptureVideoOrientation.landscapeRight
    private var _mirrored = false
    private var _intrinsics = false
    private var _angle: CGFloat = 0

    /// A connection for frames delivered to an output (there are no input ports without a camera).
    public override init() {}

    /// Whether the connection is active.
    open var isEnabled = true
    /// Whether frames can be turned (true).
    open var isVideoOrientationSupported: Bool { true }
    /// Whether frames can be mirrored (true).
    open var isVideoMirroringSupported: Bool { true }
    /// Whether the mirroring follows the camera in use.
    open var automaticallyAdjustsVideoMirroring = true
    /// Whether intrinsic matrices can be attached to frames (true).
    open var isCameraIntrinsicMatrixDeliverySupported: Bool { true }

    /// How the frames are turned. Frames handed to ``AVCaptureVideoDataOutput/deliver(_:)`` are passed on as they are:
    /// set this to describe them, as a camera would turn them before delivering.
    open var videoOrientation: AVCaptureVideoOrientation {
        get { lock.withLock { _orientation } }
        set { lock.withLock { _orientation = newValue } }
    }
    /// Whether the frames are mirrored (front cameras).
    open var isVideoMirrored: Bool {
        get { lock.withLock { _mirrored } }
        set { lock.withLock { _mirrored = newValue } }
    }
    /// Whether frames carry ``kCMSampleBufferAttachmentKey_CameraIntrinsicMatrix``.
    open var isCameraIntrinsicMatrixDeliveryEnabled: Bool {
        get { lock.withLock { _intrinsics } }
        set { lock.withLock { _intrinsics = newValue } }
    }
    /// The frames' rotation in degrees (iOS 17's replacement for ``videoOrientation``).
    open var videoRotationAngle: CGFloat {
        get { lock.withLock { _angle } }
        set { lock.withLock { _angle = newValue } }
    }
    /// Whether `angle` is 0, 90, 180 or 270.
    open func isVideoRotationAngleSupported(_ angle: CGFloat) -> Bool { [0, 90, 180, 270].contains(angle) }
}

/// A destination of captured media, as AVFoundation's `AVCaptureOutput`.
open class AVCaptureOutput: NSObject, @unchecked Sendable {
    /// The output's connections (one video connection).
    open private(set) var connections: [AVCaptureConnection] = [AVCaptureConnection()]

    /// The first connection for `mediaType` (the video connection for `.video`).
    open func connection(with mediaType: AVMediaType) -> AVCaptureConnection? {
        mediaType == .video ? connections.first : nil
    }
}

/// Receives frames from a video data output, as AVFoundation's `AVCaptureVideoDataOutputSampleBufferDelegate`.
/// Both methods have empty default implementations (Apple's are optional).
public protocol AVCaptureVideoDataOutputSampleBufferDelegate: NSObjectProtocol {
    /// A frame arrived.
    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection)
    /// A frame was dropped because the delegate was still busy with the previous one.
    func captureOutput(_ output: AVCaptureOutput, didDrop sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection)
}

extension AVCaptureVideoDataOutputSampleBufferDelegate {
    public func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {}
    public func captureOutput(_ output: AVCaptureOutput, didDrop sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {}
}

/// Hands video frames to a delegate on a queue, as AVFoundation's `AVCaptureVideoDataOutput`.
///
/// Linux has no capture session here: frames come from your own source (a decoded file, a network stream, a V4L2
/// device) through ``deliver(_:)``, a PeopleVision addition, and then reach the delegate exactly as a camera's
/// would — on the callback queue, one at a time, late frames dropped when ``alwaysDiscardsLateVideoFrames``.
open class AVCaptureVideoDataOutput: AVCaptureOutput, @unchecked Sendable {
    private let lock = NSLock()
    private weak var delegate: AVCaptureVideoDataOutputSampleBufferDelegate?
    private var queue: DispatchQueue?
    private var busy = false

    /// The output's pixel settings (`kCVPixelBufferPixelFormatTypeKey` …); informational.
    open var videoSettings: [String: Any]! = [:]
    /// Whether a frame that arrives while the delegate is busy is dropped (true, as Apple's default).
    open var alwaysDiscardsLateVideoFrames = true
    /// The pixel formats frames can have.
    open var availableVideoPixelFormatTypes: [OSType] {
        [kCVPixelFormatType_32BGRA, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange]
    }

    public override init() {}

    /// The delegate (held weakly, as Apple's).
    open var sampleBufferDelegate: AVCaptureVideoDataOutputSampleBufferDelegate? { lock.withLock { delegate } }
    /// The queue the delegate is called on.
    open var sampleBufferCallbackQueue: DispatchQueue? { lock.withLock { queue } }

    /// Sets the delegate and the serial queue it is called on (nil removes the delegate).
    open func setSampleBufferDelegate(_ sampleBufferDelegate: AVCaptureVideoDataOutputSampleBufferDelegate?, queue: DispatchQueue?) {
        lock.withLock {
            delegate = sampleBufferDelegate
            self.queue = sampleBufferDelegate == nil ? nil : (queue ?? DispatchQueue(label: "AVCaptureVideoDataOutput"))
        }
    }

    /// Delivers a frame to the delegate on its queue (PeopleVision: the camera's part). When the connection delivers
    /// intrinsics and the frame has none, none are invented.
    /// - Returns: false when the frame was dropped (the delegate's `didDrop` is called) or there is no delegate.
    @discardableResult
    open func deliver(_ sampleBuffer: CMSampleBuffer) -> Bool {
        let (target, queue, drop): (AVCaptureVideoDataOutputSampleBufferDelegate?, DispatchQueue?, Bool) = lock.withLock {
            let drop = busy && alwaysDiscardsLateVideoFrames
            if delegate != nil, !drop { busy = true }
            return (delegate, self.queue, drop)
        }
        guard let target, let queue, let connection = connection(with: .video) else { return false }
        let frame = UncheckedFrame(output: self, delegate: target, sample: sampleBuffer, connection: connection)
        if drop {
            queue.async { frame.delegate.captureOutput(frame.output, didDrop: frame.sample, from: frame.connection) }
            return false
        }
        queue.async {
            frame.delegate.captureOutput(frame.output, didOutput: frame.sample, from: frame.connection)
            frame.output.finished()
        }
        return true
    }

    private func finished() { lock.withLock { busy = false } }
}

/// A frame and where it goes, carried to the delegate's queue (the delegate is used only there, as Apple's is).
private struct UncheckedFrame: @unchecked Sendable {
    let output: AVCaptureVideoDataOutput
    let delegate: AVCaptureVideoDataOutputSampleBufferDelegate
    let sample: CMSampleBuffer
    let connection: AVCaptureConnection
}

import Foundation

/// Whether an attachment is copied to buffers made from this one, as Core Media's `CMAttachmentMode`.
public typealias CMAttachmentMode = UInt32

/// The attachment stays with this buffer (Core Media's `kCMAttachmentMode_ShouldNotPropagate`).
public var kCMAttachmentMode_ShouldNotPropagate: CMAttachmentMode { 0 }
/// The attachment is copied to derived buffers (Core Media's `kCMAttachmentMode_ShouldPropagate`).
public var kCMAttachmentMode_ShouldPropagate: CMAttachmentMode { 1 }

/// The camera's 3×3 intrinsic matrix for a frame, as Core Media's `kCMSampleBufferAttachmentKey_CameraIntrinsicMatrix`:
/// `Data` holding a `matrix_float3x3` (48 bytes, column-major, each column padded to four floats), which
/// `VNImageOption.cameraIntrinsics` accepts as it is.
public let kCMSampleBufferAttachmentKey_CameraIntrinsicMatrix: CFString = "CameraIntrinsicMatrix"

/// Something that carries attachments, as Core Media's `CMAttachmentBearer`: ``CMSampleBuffer`` and ``CVBuffer``.
public protocol CMAttachmentBearer: AnyObject {}

extension CMSampleBuffer: CMAttachmentBearer {}
extension CVBuffer: CMAttachmentBearer {}

private func attachments(of target: CMAttachmentBearer) -> Attachments? {
    switch target {
    case let sample as CMSampleBuffer: return sample.attachments
    case let buffer as CVBuffer: return buffer.attachments
    default: return nil
    }
}

private func mode(_ raw: CMAttachmentMode) -> CVAttachmentMode { raw == 0 ? .shouldNotPropagate : .shouldPropagate }

/// Attaches `value` under `key`, replacing any earlier value, as Core Media's `CMSetAttachment`.
///
/// `value` is `Any?` where Apple's is `CFTypeRef?`: `CFData` and `CFDictionary` are Swift values here, and this keeps
/// `value: data as CFData` compiling. Values read back as their Swift type (`CMGetAttachment(…) as? Data`).
public func CMSetAttachment(_ target: CMAttachmentBearer, key: CFString, value: Any?, attachmentMode: CMAttachmentMode) {
    guard let store = attachments(of: target) else { return }
    if let value { store.set(key, value as AnyObject, mode(attachmentMode)) } else { store.remove(key) }
}

/// The value attached under `key`, or nil, as Core Media's `CMGetAttachment`; `attachmentModeOut` receives its mode.
public func CMGetAttachment(
    _ target: CMAttachmentBearer, key: CFString, attachmentModeOut: UnsafeMutablePointer<CMAttachmentMode>?
) -> CFTypeRef? {
    guard let entry = attachments(of: target)?.get(key) else { return nil }
    attachmentModeOut?.pointee = entry.mode.rawValue
    return entry.value
}

/// The same as ``CMGetAttachment(_:key:attachmentModeOut:)`` (Core Media's `CMCopyAttachment`, iOS 15).
public func CMCopyAttachment(
    _ target: CMAttachmentBearer, key: CFString, attachmentModeOut: UnsafeMutablePointer<CMAttachmentMode>?
) -> CFTypeRef? {
    CMGetAttachment(target, key: key, attachmentModeOut: attachmentModeOut)
}

/// Removes the attachment under `key`, as Core Media's `CMRemoveAttachment`.
public func CMRemoveAttachment(_ target: CMAttachmentBearer, key: CFString) { attachments(of: target)?.remove(key) }

/// Removes every attachment, as Core Media's `CMRemoveAllAttachments`.
public func CMRemoveAllAttachments(_ target: CMAttachmentBearer) { attachments(of: target)?.remove(nil) }

/// The attachments of one mode, or nil when there are none, as Core Media's `CMCopyDictionaryOfAttachments`.
public func CMCopyDictionaryOfAttachments(
    allocator: CFAllocator?, target: CMAttachmentBearer, attachmentMode: CMAttachmentMode
) -> CFDictionary? {
    guard let all = attachments(of: target)?.all(mode(attachmentMode)), !all.isEmpty else { return nil }
    return all
}

/// Adds attachments from a dictionary, as Core Media's `CMSetAttachments`.
public func CMSetAttachments(_ target: CMAttachmentBearer, attachments dictionary: CFDictionary, attachmentMode: CMAttachmentMode) {
    for (key, value) in dictionary {
        guard let key = key as? String else { continue }
        CMSetAttachment(target, key: key, value: value, attachmentMode: attachmentMode)
    }
}

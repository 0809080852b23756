import Foundation

/// Any Core Foundation object, as Core Foundation's `CFTypeRef`.
public typealias CFTypeRef = AnyObject

/// Whether an attachment is copied to buffers made from this one, as Core Video's `CVAttachmentMode`.
public enum CVAttachmentMode: UInt32, Sendable {
    /// Stays with this buffer.
    case shouldNotPropagate = 0
    /// Copied to derived buffers.
    case shouldPropagate = 1
}

/// A buffer's attachments (metadata by key), safe to use from any thread.
final class Attachments: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (value: CFTypeRef, mode: CVAttachmentMode)] = [:]

    func set(_ key: String, _ value: CFTypeRef, _ mode: CVAttachmentMode) { lock.withLock { entries[key] = (value, mode) } }
    func get(_ key: String) -> (value: CFTypeRef, mode: CVAttachmentMode)? { lock.withLock { entries[key] } }
    func remove(_ key: String?) { lock.withLock { if let key { entries[key] = nil } else { entries.removeAll() } } }
    func all(_ mode: CVAttachmentMode) -> [String: CFTypeRef] {
        lock.withLock { entries.filter { $0.value.mode == mode }.mapValues(\.value) }
    }
}

/// Attaches `value` under `key`, replacing any earlier value, as Core Video's `CVBufferSetAttachment`.
public func CVBufferSetAttachment(_ buffer: CVBuffer, _ key: CFString, _ value: CFTypeRef, _ attachmentMode: CVAttachmentMode) {
    buffer.attachments.set(key, value, attachmentMode)
}

/// The value attached under `key` (and its mode), or nil, as Core Video's `CVBufferCopyAttachment`.
public func CVBufferCopyAttachment(
    _ buffer: CVBuffer, _ key: CFString, _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?
) -> CFTypeRef? {
    guard let entry = buffer.attachments.get(key) else { return nil }
    attachmentMode?.pointee = entry.mode
    return entry.value
}

/// The attachments of one mode, or nil when there are none, as Core Video's `CVBufferCopyAttachments`.
public func CVBufferCopyAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> CFDictionary? {
    let all = buffer.attachments.all(attachmentMode)
    return all.isEmpty ? nil : all
}

/// Removes the attachment under `key`, as Core Video's `CVBufferRemoveAttachment`.
public func CVBufferRemoveAttachment(_ buffer: CVBuffer, _ key: CFString) { buffer.attachments.remove(key) }

/// Removes every attachment, as Core Video's `CVBufferRemoveAllAttachments`.
public func CVBufferRemoveAllAttachments(_ buffer: CVBuffer) { buffer.attachments.remove(nil) }

/// The buffer's size in pixels, as Core Video's `CVImageBufferGetEncodedSize`.
public func CVImageBufferGetEncodedSize(_ imageBuffer: CVImageBuffer) -> CGSize {
    CGSize(width: imageBuffer.width, height: imageBuffer.height)
}

/// The size to display the buffer at, as Core Video's `CVImageBufferGetDisplaySize` (its pixel size:
/// buffers here have square pixels and no aperture attachments).
public func CVImageBufferGetDisplaySize(_ imageBuffer: CVImageBuffer) -> CGSize {
    CGSize(width: imageBuffer.width, height: imageBuffer.height)
}

/// The part of the buffer holding picture, as Core Video's `CVImageBufferGetCleanRect` (all of it).
public func CVImageBufferGetCleanRect(_ imageBuffer: CVImageBuffer) -> CGRect {
    CGRect(x: 0, y: 0, width: imageBuffer.width, height: imageBuffer.height)
}

/// Whether row 0 is the bottom row, as Core Video's `CVImageBufferIsFlipped` (never: row 0 is the top).
public func CVImageBufferIsFlipped(_ imageBuffer: CVImageBuffer) -> Bool { false }

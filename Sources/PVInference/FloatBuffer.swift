/// A 64-byte-aligned float allocation with the tail padding XNNPACK may read past the end
/// (`XNN_EXTRA_BYTES`). Immutable after creation when used for constants.
final class FloatBuffer: @unchecked Sendable {
    let count: Int
    let pointer: UnsafeMutablePointer<Float>

    /// XNNPACK kernels may read up to 16 bytes beyond a tensor; we pad by a full cache line.
    static let padding = 16

    /// Set for a view into another buffer's memory, which it keeps alive (and does not free).
    private let owner: FloatBuffer?

    init(count: Int) {
        self.count = count
        owner = nil
        let raw = UnsafeMutableRawPointer.allocate(byteCount: (count + Self.padding) * 4, alignment: 64)
        pointer = raw.bindMemory(to: Float.self, capacity: count + Self.padding)
        pointer.initialize(repeating: 0, count: count + Self.padding)
    }

    convenience init(_ values: [Float]) {
        self.init(count: values.count)
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: values.count) }
    }

    var buffer: UnsafeMutableBufferPointer<Float> { UnsafeMutableBufferPointer(start: pointer, count: count) }

    /// A view of `count` floats at `offset` floats into `owner`, which must hold them and the padding.
    init(viewing owner: FloatBuffer, offset: Int, count: Int) {
        precondition(offset >= 0 && offset + count <= owner.count)
        self.count = count
        self.owner = owner
        pointer = owner.pointer + offset
    }

    deinit { if owner == nil { pointer.deallocate() } }
}

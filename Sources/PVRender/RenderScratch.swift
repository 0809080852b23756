// Memory the renderer evaluates into: materialised float images and per-thread scratch buffers.

/// A materialised float image: premultiplied RGBA over `rect`, rows bottom-up, stride `rect.w`.
/// Written once while it is made, then only read (which is what makes it Sendable).
final class FloatImage: @unchecked Sendable {
    let rect: PixelRect
    let pixels: UnsafeMutablePointer<FloatPixel>

    init(rect: PixelRect) {
        self.rect = rect
        pixels = .allocate(capacity: max(1, rect.area))
    }

    deinit { pixels.deallocate() }

    @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<FloatPixel> { pixels + (y - rect.y) * rect.w }
}

/// Per-thread scratch memory, one growable buffer per slot. A plan node owns its slots, so a
/// buffer is never regrown while a pointer into it is in use.
final class RenderScratch {
    private var buffers: [UnsafeMutableRawPointer?]
    private var capacities: [Int]
    private var keys: [SIMD4<Int>]
    private let fallbackSlot: Int

    /// `slots` for the plan's nodes, plus one for tiles and one for ``fallback(_:)``.
    init(slots: Int) {
        buffers = Array(repeating: nil, count: slots + 2)
        capacities = Array(repeating: 0, count: slots + 2)
        keys = Array(repeating: SIMD4(repeating: Int.min), count: slots + 2)
        fallbackSlot = slots + 1
    }

    /// Whether `slot` still holds what was computed for `key` (then it may be reused as is);
    /// otherwise records `key` for the contents the caller is about to compute. Call after
    /// ``raw(_:bytes:)`` for the same slot.
    @inline(__always) func reuse(_ slot: Int, key: SIMD4<Int>) -> Bool {
        if keys[slot] == key { return true }
        keys[slot] = key
        return false
    }

    /// Float scratch for a node converting its float output to another path. Float rendering
    /// never calls the other paths, so one buffer per thread suffices.
    @inline(__always) func fallback(_ count: Int) -> UnsafeMutablePointer<FloatPixel> { pixels(fallbackSlot, count) }

    deinit { for b in buffers { b?.deallocate() } }

    /// At least `bytes` bytes, 64-byte aligned; the contents are undefined.
    @inline(__always) func raw(_ slot: Int, bytes: Int) -> UnsafeMutableRawPointer {
        if capacities[slot] < bytes { grow(slot, bytes) }
        return buffers[slot]!
    }

    @inline(__always) func pixels(_ slot: Int, _ count: Int) -> UnsafeMutablePointer<FloatPixel> {
        raw(slot, bytes: max(1, count) * MemoryLayout<FloatPixel>.stride).bindMemory(to: FloatPixel.self, capacity: max(1, count))
    }

    private func grow(_ slot: Int, _ bytes: Int) {
        keys[slot] = SIMD4(repeating: Int.min)
        buffers[slot]?.deallocate()
        let size = max(bytes, capacities[slot] * 3 / 2, 4096)
        buffers[slot] = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        capacities[slot] = size
    }
}

/// Carries a value to other threads; each use argues why sharing it is sound.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}


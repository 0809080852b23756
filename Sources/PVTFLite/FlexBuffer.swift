/// The root map of a FlexBuffer: how custom operators (MediaPipe's among them) store their options.
///
/// Only what operator options use is read: integers, floats and vectors of them, looked up by key. Every read is
/// bounds-checked and throws ``ModelError`` `.malformed` instead of trapping.
///
/// ```swift
/// let options = try FlexBufferMap(op.customOptions)
/// let width = try options.int("output_width")
/// ```
import PVCore
public struct FlexBufferMap: Sendable {
    /// A value's type, the upper six bits of a packed type byte (FlexBuffers' `Type` enumeration).
    private enum Kind: UInt8 {
        case null = 0, int = 1, uint = 2, float = 3, key = 4, string = 5
        case indirectInt = 6, indirectUInt = 7, indirectFloat = 8, map = 9, vector = 10
        case vectorInt = 11, vectorUInt = 12, vectorFloat = 13, vectorKey = 14
        case bool = 26, vectorBool = 36
    }

    /// A value in the buffer: where it is stored, with what width, and what it is.
    private struct Reference {
        var position: Int
        var width: Int
        var packed: UInt8
        var kind: UInt8 { packed >> 2 }
        /// Byte width of what an offset value points to (its elements, or an indirect scalar).
        var childWidth: Int { 1 << Int(packed & 3) }
    }

    private let bytes: [UInt8]
    /// Keys and their values, in the buffer's (sorted) order.
    private let entries: [(key: String, value: Reference)]

    /// Reads the root map of `bytes`.
    /// - Throws: ``ModelError`` `.malformed` when the bytes are not a FlexBuffer whose root is a map.
    public init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        guard bytes.count >= 3 else { throw ModelError(.malformed, "custom options of \(bytes.count) bytes are not a FlexBuffer") }
        let rootWidth = Int(bytes[bytes.count - 1])
        guard [1, 2, 4, 8].contains(rootWidth), bytes.count >= 2 + rootWidth else {
            throw ModelError(.malformed, "custom options: root width \(rootWidth) is not 1, 2, 4 or 8")
        }
        let root = Reference(position: bytes.count - 2 - rootWidth, width: rootWidth, packed: bytes[bytes.count - 2])
        guard root.kind == Kind.map.rawValue else {
            throw ModelError(.malformed, "custom options: the root is of FlexBuffer type \(root.kind), not a map")
        }
        let start = try Self.target(of: root, in: bytes)
        let width = root.childWidth
        let count = try Self.unsigned(bytes, at: start - width, width: width)
        let keysAt = start - 3 * width
        let keysStart = keysAt - (try Self.unsigned(bytes, at: keysAt, width: width))
        let keyWidth = try Self.unsigned(bytes, at: start - 2 * width, width: width)
        guard count <= bytes.count, [1, 2, 4, 8].contains(keyWidth) else {
            throw ModelError(.malformed, "custom options: map of \(count) entries with key width \(keyWidth)")
        }
        var entries: [(String, Reference)] = []
        for i in 0..<count {
            let keyAt = keysStart + i * keyWidth
            var end = keyAt - (try Self.unsigned(bytes, at: keyAt, width: keyWidth))
            let keyStart = end
            while true {
                guard end >= 0, end < bytes.count else { throw ModelError(.malformed, "custom options: unterminated key") }
                if bytes[end] == 0 { break }
                end += 1
            }
            let typeAt = start + count * width + i
            guard typeAt >= 0, typeAt < bytes.count else { throw ModelError(.malformed, "custom options: map types out of range") }
            let key = String(decoding: bytes[keyStart..<end], as: UTF8.self)
            entries.append((key, Reference(position: start + i * width, width: width, packed: bytes[typeAt])))
        }
        self.entries = entries
    }

    /// The keys, in the buffer's order.
    public var keys: [String] { entries.map(\.key) }

    /// The integer at `key` (an integer, unsigned or boolean value, direct or indirect).
    /// - Throws: ``ModelError`` `.malformed` when the key is missing or holds something else.
    public func int(_ key: String) throws -> Int {
        let r = try reference(key)
        switch Kind(rawValue: r.kind) {
        case .int?: return try Self.signed(bytes, at: r.position, width: r.width)
        case .uint?, .bool?: return try Self.unsigned(bytes, at: r.position, width: r.width)
        case .indirectInt?: return try Self.signed(bytes, at: try Self.target(of: r, in: bytes), width: r.childWidth)
        case .indirectUInt?: return try Self.unsigned(bytes, at: try Self.target(of: r, in: bytes), width: r.childWidth)
        default: throw ModelError(.malformed, "custom option '\(key)' is of FlexBuffer type \(r.kind), not an integer")
        }
    }

    /// The number at `key` (a float, or an integer converted).
    /// - Throws: ``ModelError`` `.malformed` when the key is missing or holds something else.
    public func double(_ key: String) throws -> Double {
        let r = try reference(key)
        switch Kind(rawValue: r.kind) {
        case .float?: return try Self.float(bytes, at: r.position, width: r.width)
        case .indirectFloat?: return try Self.float(bytes, at: try Self.target(of: r, in: bytes), width: r.childWidth)
        case .int?, .uint?, .indirectInt?, .indirectUInt?: return Double(try int(key))
        default: throw ModelError(.malformed, "custom option '\(key)' is of FlexBuffer type \(r.kind), not a number")
        }
    }

    /// The integers at `key` (a typed integer vector, or an untyped vector of integers).
    /// - Throws: ``ModelError`` `.malformed` when the key is missing or holds something else.
    public func ints(_ key: String) throws -> [Int] {
        let r = try reference(key)
        let kind = Kind(rawValue: r.kind)
        guard kind == .vectorInt || kind == .vectorUInt || kind == .vector else {
            throw ModelError(.malformed, "custom option '\(key)' is of FlexBuffer type \(r.kind), not an integer vector")
        }
        let start = try Self.target(of: r, in: bytes)
        let width = r.childWidth
        let count = try Self.unsigned(bytes, at: start - width, width: width)
        guard count <= bytes.count else { throw ModelError(.malformed, "custom option '\(key)': \(count) elements") }
        return try (0..<count).map { i in
            let at = start + i * width
            switch kind {
            case .vectorInt?: return try Self.signed(bytes, at: at, width: width)
            case .vectorUInt?: return try Self.unsigned(bytes, at: at, width: width)
            default:
                let typeAt = start + count * width + i
                guard typeAt < bytes.count, let k = Kind(rawValue: bytes[typeAt] >> 2), k == .int || k == .uint else {
                    throw ModelError(.malformed, "custom option '\(key)': element \(i) is not an integer")
                }
                return k == .int ? try Self.signed(bytes, at: at, width: width) : try Self.unsigned(bytes, at: at, width: width)
            }
        }
    }

    private func reference(_ key: String) throws -> Reference {
        guard let r = entries.first(where: { $0.key == key })?.value else {
            throw ModelError(.malformed, "custom options have no '\(key)' (keys: \(keys.joined(separator: ", ")))")
        }
        return r
    }

    /// Where an offset value points: its own position minus the stored offset.
    private static func target(of r: Reference, in bytes: [UInt8]) throws -> Int {
        let offset = try unsigned(bytes, at: r.position, width: r.width)
        let at = r.position - offset
        guard offset <= r.position, at >= 0 else { throw ModelError(.malformed, "custom options: offset \(offset) points outside") }
        return at
    }

    /// The `width` little-endian bytes at `position`.
    private static func raw(_ bytes: [UInt8], at position: Int, width: Int) throws -> UInt64 {
        guard [1, 2, 4, 8].contains(width), position >= 0, position + width <= bytes.count else {
            throw ModelError(.malformed, "custom options: \(width)-byte value at \(position) lies outside \(bytes.count) bytes")
        }
        var v: UInt64 = 0
        for k in 0..<width { v |= UInt64(bytes[position + k]) << (8 * UInt64(k)) }
        return v
    }

    private static func unsigned(_ bytes: [UInt8], at position: Int, width: Int) throws -> Int {
        let v = try raw(bytes, at: position, width: width)
        guard v <= UInt64(Int.max) else { throw ModelError(.malformed, "custom options: value \(v) is too large") }
        return Int(v)
    }

    private static func signed(_ bytes: [UInt8], at position: Int, width: Int) throws -> Int {
        let v = try raw(bytes, at: position, width: width)
        let shift = UInt64(64 - 8 * width)
        return Int(Int64(bitPattern: v << shift) >> Int64(shift))
    }

    private static func float(_ bytes: [UInt8], at position: Int, width: Int) throws -> Double {
        guard width == 4 || width == 8 else { throw ModelError(.malformed, "custom options: a \(width)-byte float") }
        let bits = try raw(bytes, at: position, width: width)
        return width == 4 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits)
    }
}

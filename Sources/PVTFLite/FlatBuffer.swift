/// A bounds-checked view of a FlatBuffer.
///
/// Every read checks its offset and length against the buffer and throws ``ModelError`` rather
/// than trapping, so a truncated or hostile file can never read outside the bytes it was given.
/// Vector lengths are checked against the bytes that remain before anything is allocated.
import PVCore
struct FlatBuffer {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    @inline(__always)
    func check(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String) throws {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw ModelError(.malformed, "\(what()) at byte \(offset) (+\(length)) lies outside the \(bytes.count)-byte file")
        }
    }

    func u8(_ offset: Int) throws -> UInt8 {
        try check(offset, 1, "a byte")
        return bytes[offset]
    }

    func u16(_ offset: Int) throws -> UInt16 {
        try check(offset, 2, "a 16-bit value")
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    func u32(_ offset: Int) throws -> UInt32 {
        try check(offset, 4, "a 32-bit value")
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    func i32(_ offset: Int) throws -> Int32 { Int32(bitPattern: try u32(offset)) }

    func u64(_ offset: Int) throws -> UInt64 {
        UInt64(try u32(offset)) | UInt64(try u32(offset + 4)) << 32
    }

    /// The root table, whose offset is the buffer's first 32-bit word.
    func root() throws -> Table {
        try check(0, 8, "the root offset")
        let offset = Int(try u32(0))
        return try table(at: offset)
    }

    func table(at position: Int) throws -> Table {
        try check(position, 4, "a table")
        // The table starts with a signed offset back to its vtable.
        let vtable = position - Int(try i32(position))
        try check(vtable, 4, "a vtable")
        let vtableSize = Int(try u16(vtable))
        let tableSize = Int(try u16(vtable + 2))
        guard vtableSize >= 4, vtableSize % 2 == 0 else {
            throw ModelError(.malformed, "vtable at byte \(vtable) has an invalid size \(vtableSize)")
        }
        try check(vtable, vtableSize, "a vtable")
        try check(position, max(tableSize, 4), "a table body")
        return Table(buffer: self, position: position, vtable: vtable, vtableSize: vtableSize, tableSize: tableSize)
    }
}

/// A table inside a ``FlatBuffer``. Fields are addressed by their index in the schema.
struct Table {
    let buffer: FlatBuffer
    let position: Int
    let vtable: Int
    let vtableSize: Int
    let tableSize: Int

    /// The absolute position of field `index`, or nil when the field is absent (default value).
    func fieldPosition(_ index: Int) throws -> Int? {
        let entry = 4 + 2 * index
        guard entry + 2 <= vtableSize else { return nil }
        let rel = Int(try buffer.u16(vtable + entry))
        guard rel != 0 else { return nil }
        guard rel < max(tableSize, 4) else {
            throw ModelError(.malformed, "field \(index) of the table at byte \(position) lies outside the table")
        }
        return position + rel
    }

    func u8(_ index: Int, default value: UInt8 = 0) throws -> UInt8 {
        guard let p = try fieldPosition(index) else { return value }
        return try buffer.u8(p)
    }

    func i8(_ index: Int, default value: Int8 = 0) throws -> Int8 {
        Int8(bitPattern: try u8(index, default: UInt8(bitPattern: value)))
    }

    func bool(_ index: Int, default value: Bool = false) throws -> Bool {
        try u8(index, default: value ? 1 : 0) != 0
    }

    func i32(_ index: Int, default value: Int32 = 0) throws -> Int32 {
        guard let p = try fieldPosition(index) else { return value }
        return try buffer.i32(p)
    }

    func u32(_ index: Int, default value: UInt32 = 0) throws -> UInt32 {
        guard let p = try fieldPosition(index) else { return value }
        return try buffer.u32(p)
    }

    func u64(_ index: Int, default value: UInt64 = 0) throws -> UInt64 {
        guard let p = try fieldPosition(index) else { return value }
        return try buffer.u64(p)
    }

    /// Follows the unsigned offset stored in field `index`.
    private func indirect(_ index: Int) throws -> Int? {
        guard let p = try fieldPosition(index) else { return nil }
        let target = p + Int(try buffer.u32(p))
        try buffer.check(target, 4, "the target of field \(index)")
        return target
    }

    func table(_ index: Int) throws -> Table? {
        guard let p = try indirect(index) else { return nil }
        return try buffer.table(at: p)
    }

    func string(_ index: Int) throws -> String? {
        guard let v = try vector(index, elementSize: 1) else { return nil }
        return String(decoding: buffer.bytes[v.start..<(v.start + v.count)], as: UTF8.self)
    }

    /// A vector of scalars: the position of its first element and its element count.
    func vector(_ index: Int, elementSize: Int) throws -> (start: Int, count: Int)? {
        guard let p = try indirect(index) else { return nil }
        let n = Int(try buffer.u32(p))
        let start = p + 4
        // Checked before anything is allocated: a huge length in a small file is refused here.
        guard n <= (buffer.count - start) / max(elementSize, 1) else {
            throw ModelError(.malformed, "vector in field \(index) claims \(n) elements beyond the end of the file")
        }
        return (start, n)
    }

    func int32Vector(_ index: Int) throws -> [Int32]? {
        guard let v = try vector(index, elementSize: 4) else { return nil }
        return try (0..<v.count).map { try buffer.i32(v.start + 4 * $0) }
    }

    func uint16Vector(_ index: Int) throws -> [UInt16]? {
        guard let v = try vector(index, elementSize: 2) else { return nil }
        return try (0..<v.count).map { try buffer.u16(v.start + 2 * $0) }
    }

    func bytesVector(_ index: Int) throws -> Range<Int>? {
        guard let v = try vector(index, elementSize: 1) else { return nil }
        return v.start..<(v.start + v.count)
    }

    /// A vector of tables.
    func tables(_ index: Int) throws -> [Table] {
        guard let v = try vector(index, elementSize: 4) else { return [] }
        return try (0..<v.count).map { i in
            let slot = v.start + 4 * i
            let target = slot + Int(try buffer.u32(slot))
            return try buffer.table(at: target)
        }
    }
}

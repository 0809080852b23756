// A small, bounds-checked ISO base media file format (ISO/IEC 14496-12) reader and writer:
// just enough of HEIF's `meta` box (ISO/IEC 23008-12) to list items and their properties and to
// add auxiliary images to a file libheif wrote (libheif 1.15 cannot write auxiliary images).
// Every read checks its bounds and throws `.corruptData`; nothing here trusts a size field.
import PVCore

/// A four-character box or item type.
struct FourCC: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    let value: UInt32

    init(_ value: UInt32) { self.value = value }

    init(stringLiteral text: StaticString) {
        let bytes = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        precondition(bytes.count == 4, "a FourCC has four characters")
        value = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    var description: String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }, as: UTF8.self)
    }
}

/// Reads big-endian fields from a byte range, throwing instead of reading past its end.
struct ISOReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer, from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.position = start
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var remaining: Int { max(0, end - position) }

    mutating func need(_ count: Int) throws {
        guard count >= 0, count <= remaining else {
            throw ImagingError(.corruptData, "HEIF box ends early (needed \(count) bytes at offset \(position))")
        }
    }

    mutating func u8() throws -> UInt8 {
        try need(1)
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() throws -> UInt16 { UInt16(try uint(2)) }
    mutating func u32() throws -> UInt32 { UInt32(try uint(4)) }
    mutating func fourCC() throws -> FourCC { FourCC(try u32()) }

    /// An unsigned big-endian integer of 0…8 bytes (0 bytes reads as 0).
    mutating func uint(_ size: Int) throws -> UInt64 {
        guard (0...8).contains(size) else { throw ImagingError(.corruptData, "HEIF field size \(size) is invalid") }
        try need(size)
        var value: UInt64 = 0
        for index in 0..<size { value = value << 8 | UInt64(bytes[position + index]) }
        position += size
        return value
    }

    mutating func skip(_ count: Int) throws {
        try need(count)
        position += count
    }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        try need(count)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func rest() -> [UInt8] {
        defer { position = end }
        return position < end ? Array(bytes[position..<end]) : []
    }
}

/// One box: its type and where its header, payload and end are in the file.
struct ISOBox {
    let type: FourCC
    let start: Int
    let payload: Int
    let end: Int

    /// Splits `start..<end` of `bytes` into boxes; with `wanted`, stops after the first box of that type (so a box
    /// after it that is invalid does not matter, as to a reader looking for that box).
    static func list(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, until wanted: FourCC? = nil) throws
        -> [ISOBox]
    {
        var boxes: [ISOBox] = []
        var reader = ISOReader(bytes, from: start, to: end)
        while reader.remaining > 0 {
            let boxStart = reader.position
            var size = UInt64(try reader.u32())
            let type = try reader.fourCC()
            if size == 1 {
                size = try reader.uint(8)
            } else if size == 0 {
                size = UInt64(end - boxStart)
            }
            if type == "uuid" { try reader.skip(16) }
            let header = reader.position - boxStart
            guard size >= UInt64(header), size <= UInt64(end - boxStart) else {
                throw ImagingError(.corruptData, "HEIF box '\(type)' at offset \(boxStart) has an invalid size \(size)")
            }
            boxes.append(ISOBox(type: type, start: boxStart, payload: reader.position, end: boxStart + Int(size)))
            if type == wanted { return boxes }
            try reader.skip(boxStart + Int(size) - reader.position)
            if boxes.count > 100_000 { throw ImagingError(.corruptData, "HEIF file has too many boxes") }
        }
        return boxes
    }
}

/// Appends big-endian fields and boxes.
struct ISOWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { uint(UInt64(value), 2) }
    mutating func u32(_ value: UInt32) { uint(UInt64(value), 4) }
    mutating func fourCC(_ value: FourCC) { u32(value.value) }

    mutating func uint(_ value: UInt64, _ size: Int) {
        for index in stride(from: size - 1, through: 0, by: -1) { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    mutating func append<S: Sequence>(_ more: S) where S.Element == UInt8 { bytes.append(contentsOf: more) }

    /// Writes a box (a full box when `version` is given), patching its 32-bit size afterwards.
    mutating func box(_ type: FourCC, version: UInt8? = nil, flags: UInt32 = 0, _ body: (inout ISOWriter) throws -> Void)
        rethrows
    {
        let start = bytes.count
        u32(0)
        fourCC(type)
        if let version {
            u8(version)
            uint(UInt64(flags), 3)
        }
        try body(&self)
        let size = UInt32(bytes.count - start)
        for index in 0..<4 { bytes[start + index] = UInt8(truncatingIfNeeded: size >> (8 * (3 - index))) }
    }
}

/// The parts of a HEIF `meta` box the codecs use, parsed into editable values.
struct HEIFMeta {
    /// An `infe` entry; `tail` is everything after the item ID, kept verbatim.
    struct Item {
        var id: UInt32
        var version: UInt8
        var flags: UInt32
        var type: FourCC?
        var tail: [UInt8]
    }

    struct Extent {
        var offset: UInt64
        var length: UInt64
    }

    /// An `iloc` entry: method 0 = file offsets, 1 = offsets into `idat`.
    struct Location {
        var constructionMethod: UInt8
        var dataReferenceIndex: UInt16
        var baseOffset: UInt64
        var extents: [Extent]
    }

    struct Reference {
        var type: FourCC
        var from: UInt32
        var to: [UInt32]
    }

    /// A property association: a 1-based index into `properties` (0 = none).
    struct Association {
        var essential: Bool
        var index: Int
    }

    var handler: [UInt8] = []
    var primaryItemID: UInt32 = 0
    var items: [Item] = []
    var locations: [UInt32: Location] = [:]
    var references: [Reference] = []
    /// Whole property boxes from `ipco`, in order.
    var properties: [[UInt8]] = []
    var associations: [UInt32: [Association]] = [:]
    var idat: [UInt8] = []
    /// Other children of `meta` (e.g. `dinf`), whole boxes, kept verbatim.
    var otherBoxes: [[UInt8]] = []

    /// Parses the `meta` box payload at `box`.
    init(_ bytes: UnsafeRawBufferPointer, box: ISOBox) throws {
        // `meta` is a full box: skip version and flags.
        let children = try ISOBox.list(bytes, from: box.payload + 4, to: box.end)
        var sawPrimary = false
        for child in children {
            var reader = ISOReader(bytes, from: child.payload, to: child.end)
            switch child.type {
            case "hdlr": handler = Array(bytes[child.start..<child.end])
            case "pitm":
                let version = try reader.u8()
                try reader.skip(3)
                primaryItemID = version == 0 ? UInt32(try reader.u16()) : try reader.u32()
                sawPrimary = true
            case "iinf": try parseItemInfo(&reader, bytes)
            case "iloc": try parseLocations(&reader)
            case "iref": try parseReferences(&reader, bytes, child)
            case "iprp": try parseProperties(bytes, child)
            case "idat": idat = reader.rest()
            default: otherBoxes.append(Array(bytes[child.start..<child.end]))
            }
        }
        guard sawPrimary, !handler.isEmpty else {
            throw ImagingError(.corruptData, "HEIF meta box lacks its handler or primary item")
        }
    }

    private mutating func parseItemInfo(_ reader: inout ISOReader, _ bytes: UnsafeRawBufferPointer) throws {
        let version = try reader.u8()
        try reader.skip(3)
        _ = version == 0 ? UInt32(try reader.u16()) : try reader.u32()
        for entry in try ISOBox.list(bytes, from: reader.position, to: reader.end) where entry.type == "infe" {
            var infe = ISOReader(bytes, from: entry.payload, to: entry.end)
            let version = try infe.u8()
            let flags = UInt32(try infe.uint(3))
            let id = version >= 3 ? try infe.u32() : UInt32(try infe.u16())
            let tail = infe.rest()
            var type: FourCC?
            if version >= 2, tail.count >= 6 {  // protection index (2), item type (4)
                type = FourCC(tail[2...5].reduce(0) { $0 << 8 | UInt32($1) })
            }
            items.append(Item(id: id, version: version, flags: flags, type: type, tail: tail))
        }
    }

    private mutating func parseLocations(_ reader: inout ISOReader) throws {
        let version = try reader.u8()
        try reader.skip(3)
        guard version <= 2 else { throw ImagingError(.unsupportedFormat, "HEIF iloc version \(version) is not supported") }
        let sizes = try reader.u8(), more = try reader.u8()
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseSize = Int(more >> 4)
        let indexSize = version >= 1 ? Int(more & 15) : 0
        for size in [offsetSize, lengthSize, baseSize, indexSize] where ![0, 4, 8].contains(size) {
            throw ImagingError(.corruptData, "HEIF iloc field size \(size) is invalid")
        }
        let count = version < 2 ? Int(try reader.u16()) : Int(try reader.u32())
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try reader.u16()) : try reader.u32()
            let method = version >= 1 ? UInt8(try reader.u16() & 15) : 0
            let reference = try reader.u16()
            let base = try reader.uint(baseSize)
            let extentCount = Int(try reader.u16())
            try reader.need(extentCount * (indexSize + offsetSize + lengthSize))
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                _ = try reader.uint(indexSize)
                extents.append(Extent(offset: try reader.uint(offsetSize), length: try reader.uint(lengthSize)))
            }
            locations[id] = Location(
                constructionMethod: method, dataReferenceIndex: reference, baseOffset: base, extents: extents)
        }
    }

    private mutating func parseReferences(_ reader: inout ISOReader, _ bytes: UnsafeRawBufferPointer, _ box: ISOBox)
        throws
    {
        let version = try reader.u8()
        try reader.skip(3)
        for entry in try ISOBox.list(bytes, from: reader.position, to: box.end) {
            var body = ISOReader(bytes, from: entry.payload, to: entry.end)
            let from = version == 0 ? UInt32(try body.u16()) : try body.u32()
            let count = Int(try body.u16())
            try body.need(count * (version == 0 ? 2 : 4))
            var to: [UInt32] = []
            for _ in 0..<count { to.append(version == 0 ? UInt32(try body.u16()) : try body.u32()) }
            references.append(Reference(type: entry.type, from: from, to: to))
        }
    }

    private mutating func parseProperties(_ bytes: UnsafeRawBufferPointer, _ box: ISOBox) throws {
        for child in try ISOBox.list(bytes, from: box.payload, to: box.end) {
            if child.type == "ipco" {
                for property in try ISOBox.list(bytes, from: child.payload, to: child.end) {
                    properties.append(Array(bytes[property.start..<property.end]))
                }
            } else if child.type == "ipma" {
                var reader = ISOReader(bytes, from: child.payload, to: child.end)
                let version = try reader.u8()
                let flags = try reader.uint(3)
                let count = Int(try reader.u32())
                for _ in 0..<count {
                    let id = version < 1 ? UInt32(try reader.u16()) : try reader.u32()
                    let associationCount = Int(try reader.u8())
                    var list = associations[id] ?? []
                    for _ in 0..<associationCount {
                        if flags & 1 != 0 {
                            let value = try reader.u16()
                            list.append(Association(essential: value & 0x8000 != 0, index: Int(value & 0x7FFF)))
                        } else {
                            let value = try reader.u8()
                            list.append(Association(essential: value & 0x80 != 0, index: Int(value & 0x7F)))
                        }
                    }
                    associations[id] = list
                }
            }
        }
    }

    /// The property boxes (whole, header included) associated with `item`.
    func properties(of item: UInt32) -> [[UInt8]] {
        (associations[item] ?? []).compactMap { $0.index >= 1 && $0.index <= properties.count ? properties[$0.index - 1] : nil }
    }

    /// The number of channels in the item's `pixi` property, if it has one.
    func channelCount(of item: UInt32) -> Int? {
        for box in properties(of: item) where box.count >= 13 && box[4...7].elementsEqual(Array("pixi".utf8)) {
            return Int(box[12])
        }
        return nil
    }

    /// The bytes of an item, read through its `iloc` entry (file offsets or `idat`).
    func data(of item: UInt32, in file: UnsafeRawBufferPointer) throws -> [UInt8] {
        guard let location = locations[item] else { throw ImagingError(.corruptData, "HEIF item \(item) has no location") }
        guard location.dataReferenceIndex == 0 else {
            throw ImagingError(.unsupportedFormat, "HEIF item \(item) refers to data outside the file")
        }
        guard location.constructionMethod <= 1 else {
            throw ImagingError(
                .unsupportedFormat, "HEIF item \(item) uses construction method \(location.constructionMethod)")
        }
        let inFile = location.constructionMethod == 0
        let available = UInt64(inFile ? file.count : idat.count)
        var output: [UInt8] = []
        for extent in location.extents {
            let (start, overflow) = location.baseOffset.addingReportingOverflow(extent.offset)
            guard !overflow, start <= available else {
                throw ImagingError(.truncatedData, "HEIF item \(item) points past the end of the data")
            }
            let length = extent.length == 0 ? available - start : extent.length
            guard length <= available - start, UInt64(output.count) + length <= UInt64(Int32.max) else {
                throw ImagingError(.truncatedData, "HEIF item \(item) extends past the end of the data")
            }
            let range = Int(start)..<Int(start + length)
            if inFile { output.append(contentsOf: file[range]) } else { output.append(contentsOf: idat[range]) }
        }
        return output
    }
}

/// A parsed HEIF file: where its `ftyp` is and its `meta`.
struct HEIFFile {
    var fileType: [UInt8]
    var meta: HEIFMeta

    init(_ bytes: UnsafeRawBufferPointer) throws {
        let boxes = try ISOBox.list(bytes, from: 0, to: bytes.count)
        guard let ftyp = boxes.first, ftyp.type == "ftyp" else {
            throw ImagingError(.corruptData, "HEIF file does not start with an ftyp box")
        }
        let metas = boxes.filter { $0.type == "meta" }
        guard metas.count == 1, let meta = metas.first else {
            throw ImagingError(.corruptData, "HEIF file has \(metas.count) top-level meta boxes, not one")
        }
        fileType = Array(bytes[ftyp.start..<ftyp.end])
        self.meta = try HEIFMeta(bytes, box: meta)
    }
}

// Adds auxiliary images to a HEIC that libheif wrote. libheif 1.15 can read auxiliary images
// but not write them, so each auxiliary image is encoded by libheif as its own HEIC and then
// grafted into the primary file here:
//
//   1. every item of the auxiliary file (its coded image, and for libheif's default output the
//      `grid` item wrapping it, plus any metadata items) is copied under a fresh item ID;
//   2. its properties (hvcC, ispe, pixi, …) are appended to the primary's `ipco`, and one new
//      `auxC` property carrying the type URN is associated (essential) with its primary item;
//   3. its `iref` entries (e.g. `dimg` grid → tile, `cdsc` metadata → image) are copied with the
//      new IDs, and an `auxl` reference from the auxiliary image to the primary image is added;
//   4. the file is re-laid out as `ftyp`, `meta`, one `mdat` holding every item's bytes, with
//      `iloc` rewritten to the new offsets (`idat` data is concatenated and its offsets shifted).
import PVCore

/// Writes HEIF auxiliary images into a libheif-encoded file.
enum HEIFAuxiliaryWriter {
    struct Auxiliary {
        /// A complete HEIC file whose primary image becomes the auxiliary image.
        var file: [UInt8]
        /// The `auxC` type URN.
        var type: String
    }

    /// Returns `primary` with every auxiliary image attached to its primary item.
    static func merge(primary: [UInt8], auxiliaries: [Auxiliary]) throws -> [UInt8] {
        var payload: [UInt8] = []
        var (fileType, meta) = try primary.withUnsafeBytes { raw -> ([UInt8], HEIFMeta) in
            let file = try HEIFFile(raw)
            var meta = file.meta
            meta.locations = try relocate(file.meta, in: raw, idatShift: 0, payload: &payload)
            return (file.fileType, meta)
        }
        // Counted wide: a file may already use the largest 32-bit ID.
        var nextID = UInt64((meta.items.map(\.id) + Array(meta.locations.keys) + [meta.primaryItemID]).max()!) + 1
        for auxiliary in auxiliaries {
            try auxiliary.file.withUnsafeBytes { raw in
                let source = try HEIFFile(raw).meta
                var newID: [UInt32: UInt32] = [:]
                for item in source.items.sorted(by: { $0.id < $1.id }) {
                    guard newID[item.id] == nil else { throw corrupt("item \(item.id) is declared twice") }
                    guard let id = UInt32(exactly: nextID) else { throw corrupt("no 32-bit item ID is left for item \(item.id)") }
                    newID[item.id] = id
                    nextID += 1
                }
                func mapped(_ id: UInt32) throws -> UInt32 {
                    guard let id = newID[id] else { throw corrupt("a box refers to undeclared item \(id)") }
                    return id
                }
                let auxiliaryPrimary = try mapped(source.primaryItemID)

                let propertyBase = meta.properties.count
                meta.properties += source.properties
                meta.properties.append(auxiliaryTypeProperty(auxiliary.type))
                let typeIndex = meta.properties.count

                let idatShift = UInt64(meta.idat.count)
                meta.idat += source.idat
                for item in source.items {
                    var copy = item
                    copy.id = try mapped(item.id)
                    if copy.id > 0xFFFF {
                        guard copy.version >= 2 else { throw corrupt("item info version \(copy.version) needs 16-bit IDs") }
                        copy.version = 3
                    }
                    meta.items.append(copy)
                }
                for (id, location) in try relocate(source, in: raw, idatShift: idatShift, payload: &payload) {
                    meta.locations[try mapped(id)] = location
                }
                for (id, list) in source.associations {
                    var associations = list.map {
                        HEIFMeta.Association(essential: $0.essential, index: $0.index == 0 ? 0 : $0.index + propertyBase)
                    }
                    if id == source.primaryItemID { associations.append(.init(essential: true, index: typeIndex)) }
                    meta.associations[try mapped(id)] = associations
                }
                for reference in source.references {
                    meta.references.append(
                        HEIFMeta.Reference(type: reference.type, from: try mapped(reference.from), to: try reference.to.map(mapped)))
                }
                meta.references.append(HEIFMeta.Reference(type: "auxl", from: auxiliaryPrimary, to: [meta.primaryItemID]))
            }
        }
        return try layOut(fileType: fileType, meta: meta, payload: payload)
    }

    /// The `auxC` property: a full box holding the NUL-terminated type URN (no subtype).
    static func auxiliaryTypeProperty(_ urn: String) -> [UInt8] {
        var writer = ISOWriter()
        writer.box("auxC", version: 0) {
            $0.append(urn.utf8)
            $0.u8(0)
        }
        return writer.bytes
    }

    /// Moves every file-offset item's bytes into `payload` (locations become payload-relative,
    /// one extent each) and shifts `idat` locations by `idatShift`.
    private static func relocate(
        _ meta: HEIFMeta, in file: UnsafeRawBufferPointer, idatShift: UInt64, payload: inout [UInt8]
    ) throws -> [UInt32: HEIFMeta.Location] {
        var moved: [UInt32: HEIFMeta.Location] = [:]
        for (id, location) in meta.locations.sorted(by: { $0.key < $1.key }) {
            switch location.constructionMethod {
            case 0:
                let bytes = try meta.data(of: id, in: file)
                let extents = bytes.isEmpty ? [] : [HEIFMeta.Extent(offset: UInt64(payload.count), length: UInt64(bytes.count))]
                payload += bytes
                moved[id] = HEIFMeta.Location(constructionMethod: 0, dataReferenceIndex: 0, baseOffset: 0, extents: extents)
            case 1:
                let size = UInt64(meta.idat.count)
                var extents: [HEIFMeta.Extent] = []
                for extent in location.extents {
                    let (start, overflow) = location.baseOffset.addingReportingOverflow(extent.offset)
                    guard !overflow, start <= size else { throw corrupt("item \(id) points past its idat") }
                    let length = extent.length == 0 ? size - start : extent.length
                    guard length <= size - start else { throw corrupt("item \(id) extends past its idat") }
                    extents.append(HEIFMeta.Extent(offset: start + idatShift, length: length))
                }
                moved[id] = HEIFMeta.Location(constructionMethod: 1, dataReferenceIndex: 0, baseOffset: 0, extents: extents)
            default:
                throw ImagingError(
                    .unsupportedFormat, "HEIF item \(id) uses construction method \(location.constructionMethod)")
            }
        }
        return moved
    }

    /// `ftyp`, `meta`, `mdat`, with file-offset locations made absolute.
    private static func layOut(fileType: [UInt8], meta: HEIFMeta, payload: [UInt8]) throws -> [UInt8] {
        let mdatHeader = payload.count + 8 > Int(UInt32.max) ? 16 : 8
        var metaBytes = try serialize(meta, payloadStart: 0, wide: false)
        var payloadStart = UInt64(fileType.count + metaBytes.count + mdatHeader)
        let wide = payloadStart + UInt64(payload.count) > UInt64(UInt32.max)
        metaBytes = try serialize(meta, payloadStart: payloadStart, wide: wide)
        payloadStart = UInt64(fileType.count + metaBytes.count + mdatHeader)
        metaBytes = try serialize(meta, payloadStart: payloadStart, wide: wide)  // same size as the pass before
        var writer = ISOWriter()
        writer.append(fileType)
        writer.append(metaBytes)
        if mdatHeader == 16 {
            writer.u32(1)
            writer.fourCC("mdat")
            writer.uint(UInt64(payload.count + 16), 8)
        } else {
            writer.u32(UInt32(payload.count + 8))
            writer.fourCC("mdat")
        }
        writer.append(payload)
        return writer.bytes
    }

    private static func serialize(_ meta: HEIFMeta, payloadStart: UInt64, wide: Bool) throws -> [UInt8] {
        let ids = meta.items.map(\.id) + Array(meta.locations.keys) + [meta.primaryItemID]
        let largeIDs = (ids.max() ?? 0) > 0xFFFF
        func id(_ value: UInt32, _ writer: inout ISOWriter) {
            if largeIDs { writer.u32(value) } else { writer.u16(UInt16(value)) }
        }
        var writer = ISOWriter()
        try writer.box("meta", version: 0) { container in
            container.append(meta.handler)
            container.box("pitm", version: largeIDs ? 1 : 0) { id(meta.primaryItemID, &$0) }

            let fieldSize = wide ? 8 : 4
            container.box("iloc", version: largeIDs ? 2 : 1) { iloc in
                iloc.u8(UInt8(fieldSize << 4 | fieldSize))  // offset size, length size
                iloc.u8(0)  // base offset size 0, index size 0
                if largeIDs { iloc.u32(UInt32(meta.locations.count)) } else { iloc.u16(UInt16(meta.locations.count)) }
                for (item, location) in meta.locations.sorted(by: { $0.key < $1.key }) {
                    id(item, &iloc)
                    iloc.u16(UInt16(location.constructionMethod))
                    iloc.u16(0)
                    iloc.u16(UInt16(location.extents.count))
                    for extent in location.extents {
                        let offset = location.constructionMethod == 0 ? extent.offset + payloadStart : extent.offset
                        iloc.uint(offset, fieldSize)
                        iloc.uint(extent.length, fieldSize)
                    }
                }
            }

            container.box("iinf", version: meta.items.count > 0xFFFF ? 1 : 0) { iinf in
                if meta.items.count > 0xFFFF { iinf.u32(UInt32(meta.items.count)) } else { iinf.u16(UInt16(meta.items.count)) }
                for item in meta.items.sorted(by: { $0.id < $1.id }) {
                    iinf.box("infe", version: item.version, flags: item.flags) { infe in
                        if item.version >= 3 { infe.u32(item.id) } else { infe.u16(UInt16(item.id)) }
                        infe.append(item.tail)
                    }
                }
            }

            if !meta.references.isEmpty {
                container.box("iref", version: largeIDs ? 1 : 0) { iref in
                    for reference in meta.references {
                        iref.box(reference.type) { entry in
                            id(reference.from, &entry)
                            entry.u16(UInt16(reference.to.count))
                            for target in reference.to { id(target, &entry) }
                        }
                    }
                }
            }

            let wideIndices = meta.properties.count > 127
            try container.box("iprp") { iprp in
                iprp.box("ipco") { ipco in
                    for property in meta.properties { ipco.append(property) }
                }
                try iprp.box("ipma", version: largeIDs ? 1 : 0, flags: wideIndices ? 1 : 0) { ipma in
                    ipma.u32(UInt32(meta.associations.count))
                    for (item, list) in meta.associations.sorted(by: { $0.key < $1.key }) {
                        guard list.count <= 255 else { throw corrupt("item \(item) has more than 255 properties") }
                        id(item, &ipma)
                        ipma.u8(UInt8(list.count))
                        for association in list {
                            if wideIndices {
                                ipma.u16((association.essential ? 0x8000 : 0) | UInt16(association.index))
                            } else {
                                ipma.u8((association.essential ? 0x80 : 0) | UInt8(association.index))
                            }
                        }
                    }
                }
            }

            if !meta.idat.isEmpty { container.box("idat") { $0.append(meta.idat) } }
            for box in meta.otherBoxes { container.append(box) }
        }
        return writer.bytes
    }

    private static func corrupt(_ message: String) -> ImagingError {
        ImagingError(.corruptData, "cannot merge HEIF auxiliary image: \(message)")
    }
}

/// The little of EXIF the codecs need: the orientation tag of IFD0.
///
/// EXIF is a TIFF structure: a byte-order mark (`II` little-endian, `MM` big-endian), the magic
/// number 42, the offset of the first image file directory (IFD0), then 12-byte entries
/// `tag, type, count, value`. Orientation is tag 0x0112, a SHORT whose value sits in the entry.
/// Every read is bounds-checked: malformed EXIF yields nil, never an error, because a broken
/// metadata block must not stop an image from decoding.
enum EXIF {
    static let orientationTag: UInt16 = 0x0112

    /// The orientation in a TIFF/EXIF block (an optional `Exif\0\0` prefix is skipped), or nil
    /// when there is no valid orientation tag.
    static func orientation(in block: UnsafeRawBufferPointer) -> Orientation? {
        var tiff = block
        if tiff.count >= 6, tiff[0] == 0x45, tiff[1] == 0x78, tiff[2] == 0x69, tiff[3] == 0x66, tiff[4] == 0,
            tiff[5] == 0
        {
            tiff = UnsafeRawBufferPointer(rebasing: tiff[6...])
        }
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        func u16(_ at: Int) -> UInt16? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = UInt16(tiff[at]), b = UInt16(tiff[at + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> UInt32? {
            guard let hi = u16(bigEndian ? at : at + 2), let lo = u16(bigEndian ? at + 2 : at) else { return nil }
            return UInt32(hi) << 16 | UInt32(lo)
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(Int(ifd)) else { return nil }
        for index in 0..<Int(count) {
            let entry = Int(ifd) + 2 + 12 * index
            guard let tag = u16(entry), let type = u16(entry + 2), let values = u32(entry + 4) else { return nil }
            guard tag == orientationTag else { continue }
            guard values >= 1 else { return nil }
            switch type {
            case 3: return u16(entry + 8).flatMap { Orientation(exifValue: Int($0)) }  // SHORT
            case 4: return u32(entry + 8).flatMap { Orientation(exifValue: Int($0)) }  // LONG (non-standard)
            default: return nil
            }
        }
        return nil
    }

    /// The 35 mm-equivalent focal length (tag 0xA405 of the Exif IFD, which IFD0's tag 0x8769 points to), in
    /// millimetres, or nil when absent, zero or malformed.
    static func focalLengthIn35mmFilm(in block: UnsafeRawBufferPointer) -> Double? {
        var tiff = block
        if tiff.count >= 6, tiff[0] == 0x45, tiff[1] == 0x78, tiff[2] == 0x69, tiff[3] == 0x66, tiff[4] == 0, tiff[5] == 0 {
            tiff = UnsafeRawBufferPointer(rebasing: tiff[6...])
        }
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        func u16(_ at: Int) -> UInt16? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = UInt16(tiff[at]), b = UInt16(tiff[at + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u32(_ at: Int) -> UInt32? {
            guard let hi = u16(bigEndian ? at : at + 2), let lo = u16(bigEndian ? at + 2 : at) else { return nil }
            return UInt32(hi) << 16 | UInt32(lo)
        }
        /// The value-or-offset field of `tag` in the IFD at `ifd`, with its type.
        func entry(_ tag: UInt16, in ifd: Int) -> (type: UInt16, at: Int)? {
            guard let count = u16(ifd), count < 1000 else { return nil }
            for index in 0..<Int(count) {
                let e = ifd + 2 + 12 * index
                guard let t = u16(e), let type = u16(e + 2) else { return nil }
                if t == tag { return (type, e + 8) }
            }
            return nil
        }
        guard u16(2) == 42, let ifd0 = u32(4), let pointer = entry(0x8769, in: Int(ifd0)), pointer.type == 4,
            let exifIFD = u32(pointer.at), let focal = entry(0xA405, in: Int(exifIFD)), focal.type == 3,
            let millimetres = u16(focal.at), millimetres > 0
        else { return nil }
        return Double(millimetres)
    }

    static func orientation(in block: [UInt8]?) -> Orientation? {
        guard let block else { return nil }
        return block.withUnsafeBytes { orientation(in: $0) }
    }
}

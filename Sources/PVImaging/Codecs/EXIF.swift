/// The little of EXIF the codecs need: the orientation tag of IFD0 and the Exif IFD's 35 mm-equivalent focal
/// length.
///
/// EXIF is a TIFF structure: a byte-order mark (`II` little-endian, `MM` big-endian), the magic
/// number 42, the offset of the first image file directory (IFD0), then 12-byte entries
/// `tag, type, count, value`. Orientation is tag 0x0112, a SHORT whose value sits in the entry.
/// Every read is bounds-checked: malformed EXIF yields nil, never an error, because a broken
/// metadata block must not stop an image from decoding.
package enum EXIF {
    static let orientationTag: UInt16 = 0x0112
    /// IFD0's pointer to the Exif IFD.
    static let exifIFDTag: UInt16 = 0x8769
    /// The Exif IFD's `FocalLengthIn35mmFilm`.
    static let focalLength35mmTag: UInt16 = 0xA405

    /// A TIFF structure read with bounds checks: every accessor returns nil past the end. Also the layout of a JPEG's
    /// multi-picture index (`MPF`).
    package struct TIFF {
        package let bytes: UnsafeRawBufferPointer
        package let bigEndian: Bool

        /// The TIFF in a block (an optional `Exif\0\0` prefix is skipped), or nil without a valid header.
        package init?(_ block: UnsafeRawBufferPointer) {
            var tiff = block
            if tiff.count >= 6, tiff[0] == 0x45, tiff[1] == 0x78, tiff[2] == 0x69, tiff[3] == 0x66, tiff[4] == 0,
                tiff[5] == 0
            {
                tiff = UnsafeRawBufferPointer(rebasing: tiff[6...])
            }
            guard tiff.count >= 8 else { return nil }
            switch (tiff[0], tiff[1]) {
            case (0x49, 0x49): bigEndian = false
            case (0x4D, 0x4D): bigEndian = true
            default: return nil
            }
            bytes = tiff
            guard u16(2) == 42 else { return nil }
        }

        package func u16(_ at: Int) -> UInt16? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[at]), b = UInt16(bytes[at + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        package func u32(_ at: Int) -> UInt32? {
            guard let hi = u16(bigEndian ? at : at + 2), let lo = u16(bigEndian ? at + 2 : at) else { return nil }
            return UInt32(hi) << 16 | UInt32(lo)
        }

        /// IFD0's offset.
        package var firstIFD: Int? { u32(4).map(Int.init) }

        /// The type, count and value-or-offset field of `tag`'s first entry in the IFD at `ifd`; nil when the IFD
        /// is unreadable before the tag is found, or has no such entry.
        package func entry(_ tag: UInt16, inIFD ifd: Int) -> (type: UInt16, count: UInt32, value: Int)? {
            guard let count = u16(ifd) else { return nil }
            for index in 0..<Int(count) {
                let e = ifd + 2 + 12 * index
                guard let t = u16(e), let type = u16(e + 2), let values = u32(e + 4) else { return nil }
                if t == tag { return (type, values, e + 8) }
            }
            return nil
        }
    }

    /// The orientation in a TIFF/EXIF block (an optional `Exif\0\0` prefix is skipped), or nil
    /// when there is no valid orientation tag.
    static func orientation(in block: UnsafeRawBufferPointer) -> Orientation? {
        guard let tiff = TIFF(block), let ifd = tiff.firstIFD, let e = tiff.entry(orientationTag, inIFD: ifd), e.count >= 1
        else { return nil }
        switch e.type {
        case 3: return tiff.u16(e.value).flatMap { Orientation(exifValue: Int($0)) }  // SHORT
        case 4: return tiff.u32(e.value).flatMap { Orientation(exifValue: Int($0)) }  // LONG (non-standard)
        default: return nil
        }
    }

    /// The 35 mm-equivalent focal length (tag 0xA405 of the Exif IFD, which IFD0's tag 0x8769 points to), in
    /// millimetres, or nil when absent, zero or malformed.
    static func focalLengthIn35mmFilm(in block: UnsafeRawBufferPointer) -> Double? {
        guard let tiff = TIFF(block), let ifd0 = tiff.firstIFD, let pointer = tiff.entry(exifIFDTag, inIFD: ifd0),
            pointer.type == 4, let exifIFD = tiff.u32(pointer.value),
            let focal = tiff.entry(focalLength35mmTag, inIFD: Int(exifIFD)), focal.type == 3,
            let millimetres = tiff.u16(focal.value), millimetres > 0
        else { return nil }
        return Double(millimetres)
    }

    /// A little-endian TIFF block whose IFD0 holds only the orientation tag, for an encoder to embed.
    static func orientationBlock(_ orientation: Orientation) -> [UInt8] {
        // Header (byte order, 42, IFD0 at 8), one entry: tag 0x0112, SHORT, count 1, value; no next IFD.
        [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation.rawValue), 0, 0, 0, 0, 0, 0, 0]
    }

    static func orientation(in block: [UInt8]?) -> Orientation? {
        guard let block else { return nil }
        return block.withUnsafeBytes { orientation(in: $0) }
    }
}

import Foundation

/// Minimal EXIF blocks for tests.
public enum EXIFBlocks {
    /// A TIFF block whose IFD0 points (tag 0x8769) to an Exif IFD holding `FocalLengthIn35mmFilm` (0xA405) = `mm`.
    public static func focalLength35mm(_ mm: UInt16, bigEndian: Bool = false) -> [UInt8] {
        var b: [UInt8] = []
        func u16(_ v: UInt16) { b += bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) {
            let bytes = [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
            b += bigEndian ? bytes.reversed() : bytes
        }
        b += bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        u16(42); u32(8)
        u16(1); u16(0x8769); u16(4); u32(1); u32(26); u32(0)  // IFD0: the Exif IFD's offset
        u16(1); u16(0xA405); u16(3); u32(1); u16(mm); u16(0); u32(0)  // Exif IFD: the focal length, a SHORT
        return b
    }

    /// A JPEG with `tiff` spliced in as its APP1 `Exif` segment, right after the start-of-image marker.
    public static func jpeg(_ jpeg: Data, withEXIF tiff: [UInt8]) -> Data {
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(payload.count + 2)
        var out = Data(jpeg.prefix(2))
        out += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        out += jpeg.dropFirst(2)
        return out
    }
}

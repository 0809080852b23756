import Foundation
@testable import PVImaging

/// Valid files of every flavour the encoders write, plus EXIF variants and the installed samples.
func fuzzSeeds(_ format: FuzzFormat) throws -> [(String, Data)] {
    func pattern(_ width: Int, _ height: Int, _ pixelFormat: PixelFormat) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: pixelFormat)
        let row = buffer.bytesPerRow(), bpp = pixelFormat.bytesPerPixel
        buffer.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width * bpp { bytes[y * row + x] = UInt8(truncatingIfNeeded: x * 7 + y * 13 + (x * y) % 31) }
            }
        }
        return buffer
    }
    let tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
    let gray = try pattern(23, 17, .oneComponent8), color = try pattern(31, 19, .rgba32), rgb = try pattern(16, 16, .rgb24)
    var seeds: [(String, Data)] = []
    switch format {
    case .jpeg:
        for quality in [20, 75, 95] {
            seeds.append(("gray\(quality).jpg", try JPEGCodec.encode(gray, quality: quality)))
            seeds.append(("color\(quality).jpg", try JPEGCodec.encode(color, quality: quality, exif: tiff)))
        }
        seeds.append(("rgb.jpg", try JPEGCodec.encode(rgb, quality: 50)))
        seeds.append(("progressive.jpg", try JPEGCodec.encode(color, quality: 80, progressive: true)))
        seeds.append(("cmyk.jpg", try JPEGCodec.encode(color, quality: 80, cmyk: true)))
        // Small files with restart markers at MCU-row starts, for the banded decoder (4:2:0, 4:4:4, grey).
        seeds.append(("banded420.jpg", try joinedBands((0..<4).map { _ in try pattern(40, 16, .rgba32) }, quality: 60, mcu: 16)))
        seeds.append(("banded444.jpg", try joinedBands((0..<3).map { _ in try pattern(24, 8, .rgb24) }, quality: 95, mcu: 8)))
        seeds.append(("bandedgray.jpg", try joinedBands((0..<5).map { _ in try pattern(16, 8, .oneComponent8) }, quality: 50, mcu: 8)))
    case .png:
        seeds.append(("gray.png", try PNGCodec.encode(gray)))
        seeds.append(("color.png", try PNGCodec.encode(color, exif: tiff)))
        seeds.append(("rgb.png", try PNGCodec.encode(rgb)))
        var floats = try PixelBuffer(width: 9, height: 7, format: .oneComponent32Float)
        let row = floats.bytesPerRow()
        floats.withUnsafeMutableBytes { bytes in
            for y in 0..<7 { for x in 0..<9 { bytes.storeBytes(of: Float(x * y) / 48, toByteOffset: y * row + 4 * x, as: Float.self) } }
        }
        seeds.append(("gray16.png", try PNGCodec.encode(floats)))
    case .webp:
        seeds.append(("lossy.webp", try WebPCodec.encode(color, lossless: false, quality: 60)))
        seeds.append(("lossless.webp", try WebPCodec.encode(color, lossless: true, quality: 100)))
        seeds.append(("rgb.webp", try WebPCodec.encode(rgb, lossless: false, quality: 90)))
    case .heic:
        seeds.append(("color.heic", try ImageEncoder.encode(color, as: .heic(quality: 50))))
        seeds.append(("gray.heic", try ImageEncoder.encode(gray, as: .heic(quality: 50))))
        seeds.append(("rotated.heic", Data(try HEICCodec.encode(.color(color), quality: 40, orientation: .right, exif: tiff))))
        var depth = try PixelBuffer(width: 8, height: 6, format: .oneComponent32Float)
        let row = depth.bytesPerRow()
        depth.withUnsafeMutableBytes { bytes in
            for y in 0..<6 { for x in 0..<8 { bytes.storeBytes(of: Float(1 + x + y), toByteOffset: y * row + 4 * x, as: Float.self) } }
        }
        seeds.append((
            "mattes.heic",
            try ImageEncoder.encodeHEIC(
                color, quality: 40, auxiliaryImages: [HEICAuxiliaryImage(type: .hairMatte, pixels: gray)],
                depth: HEICDepthMap(values: depth))
        ))
    case .any:
        for other in [FuzzFormat.jpeg, .png, .webp, .heic] { seeds += try fuzzSeeds(other) }
    }
    return seeds
}

/// One JPEG made of bands encoded apart, joined as the banded encoder joins its own (which takes only images of at least
/// 512×512 pixels, too slow to decode thousands of times a second): the first band's headers with a restart interval of
/// one band and the whole height, each band's entropy-coded data after a restart marker, then EOI.
private func joinedBands(_ bands: [PixelBuffer], quality: Int, mcu: Int) throws -> Data {
    let files = try bands.map { [UInt8](try JPEGCodec.encode($0, quality: quality, threads: 1)) }
    // Offsets of the SOF and SOS markers, and of the entropy-coded data after the SOS segment.
    func layout(_ b: [UInt8]) -> (sof: Int, sos: Int, data: Int) {
        var i = 2, sof = 0
        while i + 4 <= b.count, b[i] == 0xFF {
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xC2).contains(b[i + 1]) { sof = i }
            if b[i + 1] == 0xDA { return (sof, i, i + 2 + length) }
            i += 2 + length
        }
        return (sof, 0, 0)
    }
    let first = layout(files[0])
    let height = bands.reduce(0) { $0 + $1.height }
    let interval = (bands[0].width + mcu - 1) / mcu * (bands[0].height / mcu)
    var out = Array(files[0][..<first.sos])
    out[first.sof + 5] = UInt8(height >> 8)
    out[first.sof + 6] = UInt8(height & 0xFF)
    out += [0xFF, 0xDD, 0, 4, UInt8(interval >> 8), UInt8(interval & 0xFF)]
    out += files[0][first.sos..<(files[0].count - 2)]
    for (k, file) in files.enumerated().dropFirst() {
        out += [0xFF, UInt8(0xD0 + (k - 1) % 8)]
        out += file[layout(file).data..<(file.count - 2)]
    }
    return Data(out + [0xFF, 0xD9])
}

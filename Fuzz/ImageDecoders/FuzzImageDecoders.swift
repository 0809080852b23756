// libFuzzer target for the image decoders. Compiled into the PVImaging module by run.sh (so it
// can call each format's decoder directly, past the sniffing that would reject most mutants).
// Every input must decode or throw ImagingError; a trap, a sanitizer report, a leak or a
// time-out is a finding.
//
// FUZZ_FORMAT=jpeg|png|webp|heic|any picks the decoder (`any` goes through ImageDecoder).
// FUZZ_MAKE_SEEDS=<dir> writes a seed corpus for FUZZ_FORMAT into <dir> and exits.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

private enum FuzzFormat: String { case jpeg, png, webp, heic, any }

private let fuzzFormat: FuzzFormat = {
    let name = ProcessInfo.processInfo.environment["FUZZ_FORMAT"] ?? "any"
    guard let format = FuzzFormat(rawValue: name) else {
        fputs("FUZZ_FORMAT must be jpeg, png, webp, heic or any (got \(name))\n", stderr)
        exit(2)
    }
    return format
}()

/// Small limits keep mutated headers that declare huge images from spending the run on memset.
private let fuzzLimits = ImageLimits(maximumPixelCount: 4_000_000, maximumSide: 8192)

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    _ = fuzzFormat
    if let directory = ProcessInfo.processInfo.environment["FUZZ_MAKE_SEEDS"] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, data) in try fuzzSeeds(fuzzFormat) {
                try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
            }
            exit(0)
        } catch {
            fputs("cannot write seeds: \(error)\n", stderr)
            exit(1)
        }
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageDecoders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    // Vary the options with the input so every path (scaling, orientation, 16-bit) gets inputs.
    let options = ImageDecoder.Options(
        limits: fuzzLimits, minimumSize: size % 3 == 0 ? (size % 97, size % 89) : nil,
        applyOrientation: size % 2 == 0, keepsGrayscale: size % 5 != 0, keepsSixteenBitGray: size % 7 == 0)
    var image: DecodedImage?
    switch fuzzFormat {
    case .jpeg:
        _ = try? JPEGCodec.info(bytes)
        image = try? JPEGCodec.decode(bytes, options: options)
    case .png:
        _ = try? PNGCodec.info(bytes)
        image = try? PNGCodec.decode(bytes, options: options)
    case .webp:
        _ = try? WebPCodec.info(bytes)
        image = try? WebPCodec.decode(bytes, options: options)
    case .heic:
        image = try? HEICCodec.decode(bytes, options: options)
        _ = HEICCodec.looksTruncated(bytes)
        if let meta = try? HEIFFile(bytes).meta {
            for id in meta.locations.keys.prefix(8) { _ = try? meta.data(of: id, in: bytes) }
            // The auxiliary-image writer parses both files with the same reader; feed it mutants too.
            let file = Array(bytes)
            _ = try? HEIFAuxiliaryWriter.merge(primary: file, auxiliaries: [.init(file: file, type: "urn:fuzz")])
        }
        if let reader = try? HEICReader(data: Data(bytes), limits: fuzzLimits) {
            for info in reader.auxiliaryImages.prefix(4) { _ = try? reader.auxiliaryImage(info) }
            _ = try? reader.depthMap()
        }
    case .any:
        _ = try? ImageDecoder.info(data: Data(bytes))
        image = try? ImageDecoder.decode(data: Data(bytes), options: options)
    }
    if let image, image.orientation != .up { _ = try? image.pixels.applying(image.orientation) }
    return 0
}

/// Valid files of every flavour the encoders write, plus EXIF variants and the installed samples.
private func fuzzSeeds(_ format: FuzzFormat) throws -> [(String, Data)] {
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
        // Large enough to be encoded, and decoded, in bands joined by restart markers.
        seeds.append(("banded.jpg", try JPEGCodec.encode(try pattern(512, 520, .rgba32), quality: 30, threads: 2)))
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

/// The fuzz build compiles the codecs without the kernels, whose thread budget this stands in for: two threads, so
/// large files with restart markers take the banded decoder.
enum ImagingThreads {
    static let maximum = 2
    static func quietPool() {}
}

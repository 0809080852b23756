// The image decoders' fuzz target (see Fuzz/README.md). Every input must decode or throw ImagingError; a trap, a
// sanitizer report, a leak or a time-out is a finding.
//
// FUZZ_FORMAT=jpeg|png|webp|heic|any picks the decoder (`any` goes through ImageDecoder's sniffing; the others call
// the format's codec directly, so mutants that break the magic bytes still reach it).
// FUZZ_MAKE_SEEDS=<dir> writes a seed corpus for FUZZ_FORMAT into <dir> and exits.
import Foundation
import FuzzDriver
// The codecs are internal to PVImaging; both builds of this target compile PVImaging with testing enabled.
@testable import PVImaging

enum FuzzFormat: String { case jpeg, png, webp, heic, any }

let fuzzFormat: FuzzFormat = {
    let name = ProcessInfo.processInfo.environment["FUZZ_FORMAT"] ?? "any"
    guard let format = FuzzFormat(rawValue: name) else {
        fuzzReport("FUZZ_FORMAT must be jpeg, png, webp, heic or any (got \(name))\n")
        exit(2)
    }
    return format
}()

/// Small limits keep mutated headers that declare huge images from spending the run on memset.
private let fuzzLimits = ImageLimits(maximumPixelCount: 4_000_000, maximumSide: 8192)

@main
enum FuzzImageDecoders {
    static func main() {
        _ = fuzzFormat
        if let directory = ProcessInfo.processInfo.environment["FUZZ_MAKE_SEEDS"] {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for (name, data) in try fuzzSeeds(fuzzFormat) {
                    try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
                }
                exit(0)
            } catch {
                fuzzReport("cannot write seeds: \(error)\n")
                exit(1)
            }
        }
        exit(fuzzMain(decodeOneInput))
    }
}

/// The fuzz body: one input through the chosen decoder, with options that vary with the input.
func decodeOneInput(_ bytes: UnsafeRawBufferPointer) {
    let size = bytes.count
    // Vary the options with the input so every path (scaling, orientation, 16-bit) gets inputs.
    let options = ImageDecoder.Options(
        limits: fuzzLimits, minimumSize: size % 3 == 0 ? (size % 97, size % 89) : nil,
        applyOrientation: size % 2 == 0, keepsGrayscale: size % 5 != 0, keepsSixteenBitGray: size % 7 == 0)
    var image: DecodedImage?
    switch fuzzFormat {
    case .jpeg:
        _ = try? JPEGCodec.info(bytes)
        image = try? JPEGCodec.decode(bytes, options: options, threads: 1)
        // The banded decoder takes only large files by default; run it on every input with a restart interval (a DRI
        // marker), and hold it to the pixels of the single-stream decode.
        if hasRestartInterval(bytes), let banded = try? JPEGCodec.decode(bytes, options: options, threads: 3, bandedArea: 0),
            let image
        {
            precondition(samePixels(image.pixels, banded.pixels), "the banded decode differs from the single-stream one")
        }
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
}

private func hasRestartInterval(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.indices.dropLast().contains { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDD }
}

private func samePixels(_ a: PixelBuffer, _ b: PixelBuffer) -> Bool {
    guard a.width == b.width, a.height == b.height, a.format == b.format else { return false }
    let row = a.width * a.format.bytesPerPixel
    return a.withUnsafeBytes { p in
        b.withUnsafeBytes { q in
            (0..<a.height).allSatisfy { y in
                memcmp(p.baseAddress! + y * a.bytesPerRow(), q.baseAddress! + y * b.bytesPerRow(), row) == 0
            }
        }
    }
}

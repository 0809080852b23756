import CImageCodecs
import Foundation
import PVCore
import PVThreads

/// JPEG through libjpeg-turbo, via the `cimg_jpeg_*` shim (which owns every setjmp).
enum JPEGCodec {
    /// Decodes a JPEG; a baseline file of at least `bandedArea` pixels with restart markers at MCU-row starts is
    /// decoded in up to `threads` bands side by side (same pixels).
    static func decode(
        _ bytes: UnsafeRawBufferPointer, options: ImageDecoder.Options, threads: Int = ImagingThreads.maximum,
        bandedArea: Int = Self.bandedArea
    ) throws -> DecodedImage {
        let decoder = try Decoder(bytes)
        let header = try decoder.header()
        let width = Int(header.width), height = Int(header.height)
        try options.limits.check(width: width, height: height)
        let exif = header.exif.map { Array(UnsafeBufferPointer(start: $0, count: header.exif_size)) }
        let fileOrientation = EXIF.orientation(in: exif)
        let pending = fileOrientation ?? .up
        let gray = header.is_gray != 0 && options.keepsGrayscale
        // `minimumSize` is asked of the returned image, which is upright only if we rotate it.
        let minimum = options.minimumSize.map {
            options.applyOrientation && pending.swapsDimensions ? (width: $0.height, height: $0.width) : $0
        }
        let denominator = ImageDecoder.scaleDenominator(width: width, height: height, minimum: minimum)
        var outWidth: UInt32 = 0, outHeight: UInt32 = 0
        try decoder.check(cimg_jpeg_prepare(decoder.handle, Int32(denominator), gray ? 1 : 0, &outWidth, &outHeight))
        // libjpeg writes every pixel of every row (alpha as 255).
        var pixels = try PixelBuffer(
            uninitializedWidth: Int(outWidth), height: Int(outHeight), format: gray ? .oneComponent8 : .rgba32,
            limits: options.limits)
        let row = pixels.bytesPerRow()
        try pixels.withUnsafeMutableBytes { target in
            let out = target.baseAddress!.assumingMemoryBound(to: UInt8.self)
            // A large file with restart markers at MCU-row starts decodes in bands, one per core; any other file, or a
            // band that fails (the ordinary decode then reports why), the ordinary way.
            if denominator == 1, threads > 1, width * height >= bandedArea,
                decodeInBands(bytes, gray: gray, into: out, bytesPerRow: row, width: outWidth, height: outHeight, threads: threads)
                    == CIMG_OK
            {
                return
            }
            try decoder.check(cimg_jpeg_decode(decoder.handle, out, row, outWidth, outHeight))
        }
        return DecodedImage(
            pixels: pixels, format: .jpeg, orientation: pending, exifOrientation: fileOrientation,
            scaleDenominator: denominator, storedWidth: width, storedHeight: height, hasAlpha: false,
            exif: exif.map { Data($0) })
    }

    /// Decodes a whole file at full size in up to `threads` (≤ 8) bands side by side on the worker pool, when its
    /// restart markers allow (`cimg_jpeg_find_bands`): `CIMG_OK` once every band has decoded (exactly the pixels of
    /// one stream), `CIMG_UNSUPPORTED` when the file does not split (nothing written), another status when a band
    /// failed (rows may be partly written).
    static func decodeInBands(
        _ bytes: UnsafeRawBufferPointer, gray: Bool, into pixels: UnsafeMutablePointer<UInt8>, bytesPerRow: Int,
        width: UInt32, height: UInt32, threads: Int
    ) -> cimg_status {
        guard let data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return CIMG_UNSUPPORTED }
        var bands = cimg_jpeg_bands()
        let found = cimg_jpeg_find_bands(data, bytes.count, width, height, Int32(min(8, threads)), &bands)
        guard found == CIMG_OK else { return found }
        let plan = bands
        var statuses = [cimg_status](repeating: CIMG_OK, count: Int(plan.count))
        statuses.withUnsafeMutableBufferPointer { statuses in
            // Each band writes its own rows of `pixels` and its own status, and `forEach` returns after every band.
            WorkerPool.shared.forEach(count: statuses.count) { k in
                statuses[k] = withUnsafePointer(to: plan) {
                    cimg_jpeg_decode_band(data, bytes.count, $0, Int32(k), gray ? 1 : 0, pixels, bytesPerRow, width, height)
                }
            }
        }
        return statuses.first { $0 != CIMG_OK } ?? CIMG_OK
    }

    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let decoder = try Decoder(bytes)
        let header = try decoder.header()
        let orientation = header.exif.flatMap {
            EXIF.orientation(in: UnsafeRawBufferPointer(start: $0, count: header.exif_size))
        }
        let width = Int(header.width), height = Int(header.height)
        return ImageInfo(
            format: .jpeg, width: width, height: height, orientation: orientation ?? .up, hasAlpha: false,
            isGray: header.is_gray != 0,
            decodesInBands: header.restart_interval > 0 && header.progressive == 0 && width * height >= Self.bandedArea
                && ImagingThreads.maximum > 1)
    }

    /// Encodes 8-bit grey or colour pixels (alpha is dropped; one-component float is quantized).
    /// `progressive` and `cmyk` (the four bytes of an `.rgba32` buffer read as Adobe-inverted
    /// C, M, Y, K) exist so tests and the fuzz seeds can produce those variants.
    static func encode(
        _ image: PixelBuffer, quality: Int, exif: [UInt8]? = nil, progressive: Bool = false, cmyk: Bool = false,
        threads: Int = ImagingThreads.maximum
    ) throws -> Data {
        guard (1...100).contains(quality) else {
            throw ImagingError(.invalidArgument, "JPEG quality \(quality) is outside 1…100")
        }
        let source = try codecEightBit(
            image, accepted: [.oneComponent8, .rgb24, .rgba32, .bgra32, .argb32], what: "JPEG")
        let layout = cmyk && source.format == .rgba32 ? CIMG_LAYOUT_CMYK8 : codecLayout(source.format)
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: Int(CIMG_MESSAGE_MAX))
        let status = source.withUnsafeBytes { pixels in
            (exif ?? []).withUnsafeBufferPointer { exifBytes in
                cimg_jpeg_encode(
                    pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), source.bytesPerRow(),
                    UInt32(source.width), UInt32(source.height), layout, Int32(quality), progressive ? 1 : 0,
                    exif == nil ? nil : exifBytes.baseAddress, exifBytes.count, Int32(max(1, min(8, threads))),
                    codecRunJobs, nil, &out, &size, &message)
            }
        }
        return try codecTakeOutput(status: status, out: out, size: size, message: message, format: "JPEG")
    }

    /// Smallest image (pixels) decoded in bands.
    static let bandedArea = 512 * 512

    /// Owns one `cimg_jpeg_decoder`; the bytes it reads must outlive it.
    private final class Decoder {
        let handle: OpaquePointer

        init(_ bytes: UnsafeRawBufferPointer) throws {
            guard let base = bytes.baseAddress,
                let handle = cimg_jpeg_decoder_create(base.assumingMemoryBound(to: UInt8.self), bytes.count)
            else { throw ImagingError(.corruptData, "cannot start a JPEG decoder (out of memory or empty data)") }
            self.handle = handle
        }

        deinit { cimg_jpeg_decoder_destroy(handle) }

        func header() throws -> cimg_jpeg_header {
            var header = cimg_jpeg_header()
            try check(cimg_jpeg_read_header(handle, &header))
            return header
        }

        func check(_ status: cimg_status) throws {
            guard status != CIMG_OK else { return }
            throw codecError(status, format: "JPEG", message: String(cString: cimg_jpeg_decoder_message(handle)))
        }
    }
}

/// The runner of the encoders' bands (`cimg_run_fn`): the jobs run on the worker pool, the shim starts no threads.
func codecRunJobs(_ runner: UnsafeMutableRawPointer?, _ count: Int32, _ job: cimg_job_fn?, _ items: UnsafeMutableRawPointer?) {
    guard let job else { return }
    // Each job touches only its own item and band, and `forEach` returns after every job.
    WorkerPool.shared.forEach(count: Int(count)) { k in job(items, Int32(k)) }
}

/// The shim's layout code for an 8-bit pixel format.
func codecLayout(_ format: PixelFormat) -> cimg_layout {
    switch format {
    case .oneComponent8: return CIMG_LAYOUT_GRAY8
    case .rgb24: return CIMG_LAYOUT_RGB8
    case .bgra32: return CIMG_LAYOUT_BGRA8
    case .argb32: return CIMG_LAYOUT_ARGB8
    default: return CIMG_LAYOUT_RGBA8
    }
}

/// Converts a shim status to the matching ``ImagingError``.
func codecError(_ status: cimg_status, format: String, message: String) -> ImagingError {
    let detail = message.isEmpty ? "" : ": \(message)"
    switch status {
    case CIMG_TRUNCATED: return ImagingError(.truncatedData, "\(format) data is truncated\(detail)")
    case CIMG_EMPTY_IMAGE: return ImagingError(.invalidDimensions, "\(format) image has a zero width or height\(detail)")
    case CIMG_TOO_LARGE: return ImagingError(.tooLarge, "\(format) image is too large\(detail)")
    case CIMG_NO_MEMORY: return ImagingError(.tooLarge, "\(format) decoder ran out of memory\(detail)")
    case CIMG_UNSUPPORTED: return ImagingError(.unsupportedFormat, "\(format) variant is not supported\(detail)")
    case CIMG_BAD_ARGUMENT: return ImagingError(.invalidArgument, "\(format) codec rejected its arguments\(detail)")
    case CIMG_ENCODE_FAILED: return ImagingError(.encodingFailed, "\(format) encoding failed\(detail)")
    default: return ImagingError(.corruptData, "\(format) data is corrupt\(detail)")
    }
}

/// Copies an encoder's malloc'd output into `Data` and frees it, or throws for a failed status.
func codecTakeOutput(
    status: cimg_status, out: UnsafeMutablePointer<UInt8>?, size: Int, message: [CChar], format: String
) throws -> Data {
    defer { cimg_free(out) }
    guard status == CIMG_OK, let out else {
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw codecError(status == CIMG_OK ? CIMG_ENCODE_FAILED : status, format: format, message: text)
    }
    return Data(bytes: out, count: size)
}

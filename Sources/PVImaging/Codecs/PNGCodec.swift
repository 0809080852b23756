import CImageCodecs
import Foundation
import PVCore

/// PNG through libpng, via the `cimg_png_*` shim (which owns every setjmp).
enum PNGCodec {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageDecoder.Options) throws -> DecodedImage {
        let decoder = try Decoder(bytes)
        let header = try decoder.header()
        let width = Int(header.width), height = Int(header.height)
        try options.limits.check(width: width, height: height)
        let plainGray = header.color_type == 0 && header.has_trns == 0 && options.keepsGrayscale
        let hasAlpha = header.color_type & 4 != 0 || header.has_trns != 0
        var pixels: PixelBuffer
        if plainGray && header.bit_depth == 16 && options.keepsSixteenBitGray {
            pixels = try decodeSixteenBitGray(decoder, width: width, height: height, limits: options.limits)
        } else {
            pixels = try PixelBuffer(
                width: width, height: height, format: plainGray ? .oneComponent8 : .rgba32, limits: options.limits)
            let row = pixels.bytesPerRow()
            try pixels.withUnsafeMutableBytes { target in
                try decoder.check(
                    cimg_png_decode(
                        decoder.handle, plainGray ? CIMG_PNG_GRAY8 : CIMG_PNG_RGBA8,
                        target.baseAddress!.assumingMemoryBound(to: UInt8.self), row))
            }
        }
        let exif = decoder.exif()
        let fileOrientation = EXIF.orientation(in: exif)
        return DecodedImage(
            pixels: pixels, format: .png, orientation: fileOrientation ?? .up, exifOrientation: fileOrientation,
            scaleDenominator: 1, storedWidth: width, storedHeight: height, hasAlpha: hasAlpha, exif: exif.map { Data($0) })
    }

    /// 16-bit grey kept exactly: decoded to native uint16, stored as Float in 0…1.
    private static func decodeSixteenBitGray(
        _ decoder: Decoder, width: Int, height: Int, limits: ImageLimits
    ) throws -> PixelBuffer {
        var pixels = try PixelBuffer(width: width, height: height, format: .oneComponent32Float, limits: limits)
        var samples = [UInt16](repeating: 0, count: width * height)
        try samples.withUnsafeMutableBytes { raw in
            try decoder.check(
                cimg_png_decode(
                    decoder.handle, CIMG_PNG_GRAY16, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), width * 2))
        }
        let row = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { target in
            for y in 0..<height {
                let line = (target.baseAddress! + y * row).assumingMemoryBound(to: Float.self)
                for x in 0..<width { line[x] = Float(samples[y * width + x]) / 65535 }
            }
        }
        return pixels
    }

    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let decoder = try Decoder(bytes)
        let header = try decoder.header()
        let orientation = header.exif.flatMap {
            EXIF.orientation(in: UnsafeRawBufferPointer(start: $0, count: header.exif_size))
        }
        return ImageInfo(
            format: .png, width: Int(header.width), height: Int(header.height), orientation: orientation ?? .up,
            hasAlpha: header.color_type & 4 != 0 || header.has_trns != 0,
            isGray: header.color_type == 0 || header.color_type == 4)
    }

    /// Encodes 8-bit grey, RGB, RGBA (BGRA/ARGB are reordered by libpng), or 16-bit grey from
    /// one-component half/float buffers (0…1; anything else is an error, never clamped).
    static func encode(
        _ image: PixelBuffer, exif: [UInt8]? = nil, compressionLevel: Int = 6, threads: Int = ImagingThreads.maximum
    ) throws -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: Int(CIMG_MESSAGE_MAX))
        let status: cimg_status
        switch image.format {
        case .oneComponent16Half, .oneComponent32Float:
            let samples = try codecUnitSamples(image, what: "16-bit PNG").map { UInt16(($0 * 65535).rounded()) }
            status = samples.withUnsafeBytes { pixels in
                (exif ?? []).withUnsafeBufferPointer { exifBytes in
                    cimg_png_encode(
                        pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), image.width * 2, UInt32(image.width),
                        UInt32(image.height), CIMG_LAYOUT_GRAY16, Int32(compressionLevel),
                        exif == nil ? nil : exifBytes.baseAddress, exifBytes.count, Int32(threads), codecRunJobs, nil, &out,
                        &size, &message)
                }
            }
        case .oneComponent8, .rgb24, .rgba32, .bgra32, .argb32:
            status = image.withUnsafeBytes { pixels in
                (exif ?? []).withUnsafeBufferPointer { exifBytes in
                    cimg_png_encode(
                        pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), image.bytesPerRow(),
                        UInt32(image.width), UInt32(image.height), codecLayout(image.format), Int32(compressionLevel),
                        exif == nil ? nil : exifBytes.baseAddress, exifBytes.count, Int32(min(threads, 8)), codecRunJobs,
                        nil, &out, &size, &message)
                }
            }
        case .yuv420BiPlanarFullRange, .yuv420BiPlanarVideoRange:
            throw ImagingError(.unsupportedPixelFormat, "PNG cannot encode \(image.format) pixels; convert to RGBA first")
        }
        return try codecTakeOutput(status: status, out: out, size: size, message: message, format: "PNG")
    }

    /// Owns one `cimg_png_decoder`; the bytes it reads must outlive it.
    private final class Decoder {
        let handle: OpaquePointer

        init(_ bytes: UnsafeRawBufferPointer) throws {
            guard let base = bytes.baseAddress,
                let handle = cimg_png_decoder_create(base.assumingMemoryBound(to: UInt8.self), bytes.count)
            else { throw ImagingError(.corruptData, "cannot start a PNG decoder (out of memory or empty data)") }
            self.handle = handle
        }

        deinit { cimg_png_decoder_destroy(handle) }

        func header() throws -> cimg_png_header {
            var header = cimg_png_header()
            try check(cimg_png_read_header(handle, &header))
            return header
        }

        func exif() -> [UInt8]? {
            var pointer: UnsafePointer<UInt8>?
            var size = 0
            guard cimg_png_exif(handle, &pointer, &size) != 0, let pointer else { return nil }
            return Array(UnsafeBufferPointer(start: pointer, count: size))
        }

        func check(_ status: cimg_status) throws {
            guard status != CIMG_OK else { return }
            throw codecError(status, format: "PNG", message: String(cString: cimg_png_decoder_message(handle)))
        }
    }
}

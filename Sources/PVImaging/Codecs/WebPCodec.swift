import CLibWebP
import Foundation
import PVCore

/// WebP through libwebp (decoding, encoding) and libwebpdemux (the EXIF chunk). libwebp reports
/// errors by status codes, so no shim is needed.
enum WebPCodec {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageDecoder.Options) throws -> DecodedImage {
        let features = try self.features(bytes)
        let data = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let width = Int(features.width), height = Int(features.height)
        try options.limits.check(width: width, height: height)
        var pixels = try PixelBuffer(width: width, height: height, format: .rgba32, limits: options.limits)
        let row = pixels.bytesPerRow()
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw ImagingError(.corruptData, "libwebp rejected its decoder configuration (version mismatch)")
        }
        let status = pixels.withUnsafeMutableBytes { target -> VP8StatusCode in
            config.output.colorspace = MODE_RGBA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = target.baseAddress!.assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(row)
            config.output.u.RGBA.size = target.count
            let status = WebPDecode(data, bytes.count, &config)
            WebPFreeDecBuffer(&config.output)
            return status
        }
        try check(status, "decoding")
        let exif = self.exif(bytes)
        let fileOrientation = EXIF.orientation(in: exif)
        return DecodedImage(
            pixels: pixels, format: .webp, orientation: fileOrientation ?? .up, exifOrientation: fileOrientation,
            scaleDenominator: 1, storedWidth: width, storedHeight: height, hasAlpha: features.has_alpha != 0,
            exif: exif.map { Data(codecStripExifPrefix($0)) })
    }

    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let features = try self.features(bytes)
        return ImageInfo(
            format: .webp, width: Int(features.width), height: Int(features.height),
            orientation: EXIF.orientation(in: exif(bytes)) ?? .up, hasAlpha: features.has_alpha != 0, isGray: false)
    }

    private static func features(_ bytes: UnsafeRawBufferPointer) throws -> WebPBitstreamFeatures {
        guard !bytes.isEmpty else { throw ImagingError(.truncatedData, "WebP data is empty") }
        var features = WebPBitstreamFeatures()
        try check(
            WebPGetFeatures(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, &features), "header")
        if features.has_animation != 0 {
            throw ImagingError(.unsupportedFormat, "animated WebP is not supported; extract a frame first")
        }
        if features.width <= 0 || features.height <= 0 {
            throw ImagingError(.invalidDimensions, "WebP image size \(features.width)×\(features.height) is empty")
        }
        return features
    }

    /// The payload of the EXIF chunk of an extended (VP8X) file, if any.
    private static func exif(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var data = WebPData(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let demux = WebPDemux(&data) else { return nil }
        defer { WebPDemuxDelete(demux) }
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, "EXIF", 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let chunk = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: chunk, count: iterator.chunk.size))
    }

    private static func check(_ status: VP8StatusCode, _ stage: String) throws {
        switch status {
        case VP8_STATUS_OK: return
        case VP8_STATUS_NOT_ENOUGH_DATA: throw ImagingError(.truncatedData, "WebP data is truncated (\(stage))")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            throw ImagingError(.unsupportedFormat, "WebP uses an unsupported feature (\(stage))")
        case VP8_STATUS_OUT_OF_MEMORY: throw ImagingError(.tooLarge, "WebP decoder ran out of memory (\(stage))")
        default: throw ImagingError(.corruptData, "WebP data is corrupt (\(stage), status \(status.rawValue))")
        }
    }

    /// Encodes lossy (`quality` 0…100) or lossless. Lossless keeps the RGB of fully transparent
    /// pixels (`exact`), so it round-trips bit for bit. Grey and float sources become RGBA.
    static func encode(_ image: PixelBuffer, lossless: Bool, quality: Float) throws -> Data {
        guard quality >= 0, quality <= 100 else {
            throw ImagingError(.invalidArgument, "WebP quality \(quality) is outside 0…100")
        }
        guard image.width <= Int(WEBP_MAX_DIMENSION), image.height <= Int(WEBP_MAX_DIMENSION) else {
            throw ImagingError(
                .invalidArgument, "WebP cannot store \(image.width)×\(image.height); sides are limited to \(WEBP_MAX_DIMENSION)")
        }
        let source = try codecEightBit(image, accepted: [.rgba32, .rgb24, .bgra32], what: "WebP")
        var config = WebPConfig()
        var picture = WebPPicture()
        guard WebPConfigInit(&config) != 0, WebPPictureInit(&picture) != 0 else {
            throw ImagingError(.encodingFailed, "libwebp rejected its encoder configuration (version mismatch)")
        }
        config.lossless = lossless ? 1 : 0
        config.quality = quality
        config.exact = lossless ? 1 : 0
        config.method = 4
        guard WebPValidateConfig(&config) != 0 else {
            throw ImagingError(.invalidArgument, "libwebp rejected the encoder settings")
        }
        picture.use_argb = 1
        picture.width = Int32(source.width)
        picture.height = Int32(source.height)
        defer { WebPPictureFree(&picture) }
        let imported = source.withUnsafeBytes { pixels -> Int32 in
            let base = pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride = Int32(source.bytesPerRow())
            switch source.format {
            case .rgb24: return WebPPictureImportRGB(&picture, base, stride)
            case .bgra32: return WebPPictureImportBGRA(&picture, base, stride)
            default: return WebPPictureImportRGBA(&picture, base, stride)
            }
        }
        guard imported != 0 else { throw ImagingError(.encodingFailed, "WebP could not import the pixels (out of memory)") }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let ok = withUnsafeMutablePointer(to: &writer) { writerPointer -> Int32 in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            return WebPEncode(&config, &picture)
        }
        guard ok != 0, let output = writer.mem else {
            throw ImagingError(.encodingFailed, "WebP encoding failed (error \(picture.error_code.rawValue))")
        }
        return Data(bytes: output, count: writer.size)
    }
}

/// EXIF payloads in WebP and HEIF sometimes keep JPEG's `Exif\0\0` prefix; drop it.
func codecStripExifPrefix(_ block: [UInt8]) -> [UInt8] {
    if block.count >= 6, block.prefix(6).elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) { return Array(block.dropFirst(6)) }
    return block
}

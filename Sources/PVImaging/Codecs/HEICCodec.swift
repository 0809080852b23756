import CLibHEIF
import Foundation
import PVCore

// HEIC through libheif 1.15 (Debian: x265 encoder, libde265 decoder built in). This is the only
// file that calls libheif.
//
// What libheif does that matters here (verified against 1.15.1):
// - Geometry: `heif_decode_image` applies the primary item's `clap` crop, `irot` rotation and
//   `imir` mirror, and `heif_image_handle_get_width/height` already report the transformed
//   size. libheif never looks at the EXIF orientation tag. In HEIF the transformative properties
//   (`irot`/`imir`/`clap`) are the geometry and the EXIF tag is only descriptive; iPhone files
//   commonly carry both. So we let libheif apply its transforms and never apply the EXIF tag,
//   which makes orientation happen exactly once (`ignore_transformations` stays off).
// - Encoding: with its default `macOS_compatibility_workaround`, libheif wraps every coded image
//   in a 1×1 `grid` item (grid descriptor in `idat`, tile padded to a multiple of 64 and
//   hidden). Monochrome images are coded as HEVC 4:0:0 with a one-channel `pixi`.
// - Decoding grids: the grid path only converts to RGB; asking for monochrome output fails
//   with "Unsupported color conversion". So every image (including grey auxiliary images) is
//   decoded to interleaved RGB(A), and grey ones keep the R channel (libheif maps Y to R = G = B).
// - Auxiliary images: `heif_image_handle_get_list_of_auxiliary_image_IDs` with filter 0 lists
//   every `auxl` image, alpha and depth included. An RGBA input is written with libheif's own
//   alpha auxiliary image (`urn:mpeg:hevc:2015:auxid:1`). libheif 1.15 cannot write others;
//   see ISOBMFFMerge.swift.
// - Thread safety: separate contexts may be used concurrently (libheif #55: "as long as each
//   thread works on its own heif_context"). Encoding is serialised anyway: libheif's x265 plugin
//   picks x265's 8-, 10- or 12-bit API through process-wide tables, and concurrent encoders with
//   mixed bit depths are unverified. Decoding is not serialised.

private let heifInitialized: Bool = heif_init(nil).code == heif_error_Ok
private let heifEncoderLock = NSLock()

enum HEICCodec {
    // MARK: Decoding

    static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageDecoder.Options) throws -> DecodedImage {
        try diagnosingTruncation(bytes) { try decodePrimary(bytes, options: options) }
    }

    private static func decodePrimary(_ bytes: UnsafeRawBufferPointer, options: ImageDecoder.Options) throws
        -> DecodedImage
    {
        let context = try Context(bytes, limits: options.limits)
        let handle = try context.primaryHandle()
        let width = Int(heif_image_handle_get_width(handle.pointer))
        let height = Int(heif_image_handle_get_height(handle.pointer))
        try options.limits.check(width: width, height: height)
        let hasAlpha = heif_image_handle_has_alpha_channel(handle.pointer) != 0
        let gray = !hasAlpha && options.keepsGrayscale && isMonochrome(bytes)
        let pixels = try decodePixels(
            handle, output: gray ? .oneComponent8 : .rgba32, alpha: hasAlpha, limits: options.limits)
        let exif = exifBlock(handle)
        return DecodedImage(
            pixels: pixels, format: .heic, orientation: .up, exifOrientation: EXIF.orientation(in: exif),
            scaleDenominator: 1, storedWidth: width, storedHeight: height, hasAlpha: hasAlpha,
            exif: exif.map { Data($0) })
    }

    static func info(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        try diagnosingTruncation(bytes) { try readInfo(bytes) }
    }

    private static func readInfo(_ bytes: UnsafeRawBufferPointer) throws -> ImageInfo {
        let context = try Context(bytes, limits: .default)
        let handle = try context.primaryHandle()
        let hasAlpha = heif_image_handle_has_alpha_channel(handle.pointer) != 0
        return ImageInfo(
            format: .heic, width: Int(heif_image_handle_get_width(handle.pointer)),
            height: Int(heif_image_handle_get_height(handle.pointer)), orientation: .up, hasAlpha: hasAlpha,
            isGray: !hasAlpha && isMonochrome(bytes))
    }

    /// Runs `body`; when it fails with `.corruptData` on data whose boxes or item extents run past
    /// its end, reports `.truncatedData` instead (libheif says only "invalid input" for both).
    static func diagnosingTruncation<T>(_ bytes: UnsafeRawBufferPointer, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ImagingError where error.code == .corruptData && looksTruncated(bytes) {
            throw ImagingError(.truncatedData, "HEIC data is truncated (\(error.message))")
        }
    }

    /// Whether a top-level box, or an item's data, extends past the end of `bytes`.
    static func looksTruncated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var position = 0
        while position < bytes.count {
            guard bytes.count - position >= 8 else { return true }
            var size = 0
            for index in 0..<4 { size = size << 8 | Int(bytes[position + index]) }
            if size == 0 { break }
            if size == 1 {
                guard bytes.count - position >= 16 else { return true }
                var large: UInt64 = 0
                for index in 8..<16 { large = large << 8 | UInt64(bytes[position + index]) }
                guard large <= UInt64(bytes.count - position) else { return true }
                size = Int(large)
            }
            guard size >= 8 else { return false }
            guard size <= bytes.count - position else { return true }
            position += size
        }
        guard let meta = try? HEIFFile(bytes).meta else { return false }
        for (item, location) in meta.locations where location.constructionMethod == 0 {
            do { _ = try meta.data(of: item, in: bytes) } catch { return true }
        }
        return false
    }

    /// Whether the primary item's `pixi` declares one channel (libheif 1.15 has no API for it).
    private static func isMonochrome(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let meta = try? HEIFFile(bytes).meta else { return false }
        return meta.channelCount(of: meta.primaryItemID) == 1
    }

    /// Decodes `handle` through interleaved RGB(A): into `.rgba32`, `.oneComponent8` (the R
    /// channel), or `.oneComponent32Float` (R of a 16-bit decode, scaled to 0…1).
    static func decodePixels(_ handle: Handle, output: PixelFormat, alpha: Bool, limits: ImageLimits) throws
        -> PixelBuffer
    {
        let width = Int(heif_image_handle_get_width(handle.pointer))
        let height = Int(heif_image_handle_get_height(handle.pointer))
        try limits.check(width: width, height: height)
        let deep = output == .oneComponent32Float
        let chroma =
            deep ? heif_chroma_interleaved_RRGGBB_LE : alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        guard let options = heif_decoding_options_alloc() else { throw ImagingError(.tooLarge, "out of memory") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = deep ? 0 : 1
        var decoded: OpaquePointer?
        try check(heif_decode_image(handle.pointer, &decoded, heif_colorspace_RGB, chroma, options), "decoding")
        guard let image = decoded else { throw ImagingError(.corruptData, "HEIC decoder returned no image") }
        defer { heif_image_release(image) }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
            Int(heif_image_get_width(image, heif_channel_interleaved)) == width,
            Int(heif_image_get_height(image, heif_channel_interleaved)) == height
        else { throw ImagingError(.corruptData, "HEIC decoder returned an image of an unexpected size") }
        let bits = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
        var pixels = try PixelBuffer(width: width, height: height, format: output, limits: limits)
        let row = pixels.bytesPerRow(), sourceRow = Int(stride)
        let channels = alpha ? 4 : 3
        pixels.withUnsafeMutableBytes { target in
            for y in 0..<height {
                let source = plane + y * sourceRow
                let line = target.baseAddress! + y * row
                switch output {
                case .oneComponent8:
                    for x in 0..<width { line.storeBytes(of: source[x * channels], toByteOffset: x, as: UInt8.self) }
                case .oneComponent32Float:
                    let scale = 1 / Float((1 << max(1, min(bits, 16))) - 1)
                    for x in 0..<width {
                        let sample = UInt16(source[x * 6]) | UInt16(source[x * 6 + 1]) << 8
                        line.storeBytes(of: Float(sample) * scale, toByteOffset: 4 * x, as: Float.self)
                    }
                default:
                    if alpha {
                        line.copyMemory(from: source, byteCount: 4 * width)
                    } else {
                        for x in 0..<width {
                            line.storeBytes(of: source[3 * x], toByteOffset: 4 * x, as: UInt8.self)
                            line.storeBytes(of: source[3 * x + 1], toByteOffset: 4 * x + 1, as: UInt8.self)
                            line.storeBytes(of: source[3 * x + 2], toByteOffset: 4 * x + 2, as: UInt8.self)
                            line.storeBytes(of: 255, toByteOffset: 4 * x + 3, as: UInt8.self)
                        }
                    }
                }
            }
        }
        return pixels
    }

    /// The TIFF structure of the image's Exif item. HEIF's Exif item starts with a 4-byte offset
    /// to the TIFF header.
    static func exifBlock(_ handle: Handle) -> [UInt8]? {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle.pointer, "Exif", &id, 1) == 1 else { return nil }
        let size = heif_image_handle_get_metadata_size(handle.pointer, id)
        guard size >= 4, size <= 16 << 20 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_metadata(handle.pointer, id, &block).code == heif_error_Ok else { return nil }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        guard offset <= size - 4 else { return nil }
        return codecStripExifPrefix(Array(block[(4 + offset)...]))
    }

    /// XMP packets (`mime` items of type application/rdf+xml) attached to an image.
    static func xmpBlocks(_ handle: Handle) -> [String] {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle.pointer, "mime"))
        guard count > 0, count < 1000 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let found = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle.pointer, "mime", &ids, Int32(count)))
        return ids.prefix(found).compactMap { id in
            let size = heif_image_handle_get_metadata_size(handle.pointer, id)
            guard size > 0, size <= 1 << 20 else { return nil }
            var block = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle.pointer, id, &block).code == heif_error_Ok else { return nil }
            return String(decoding: block, as: UTF8.self)
        }
    }

    // MARK: Auxiliary images

    /// Every auxiliary image of the primary image (alpha and depth included), in file order.
    static func auxiliaryImages(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws -> [HEICAuxiliaryImageInfo] {
        try diagnosingTruncation(bytes) { try listAuxiliaryImages(bytes, limits: limits) }
    }

    private static func listAuxiliaryImages(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws
        -> [HEICAuxiliaryImageInfo]
    {
        let context = try Context(bytes, limits: limits)
        let primary = try context.primaryHandle()
        let count = Int(heif_image_handle_get_number_of_auxiliary_images(primary.pointer, 0))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let found = Int(heif_image_handle_get_list_of_auxiliary_image_IDs(primary.pointer, 0, &ids, Int32(count)))
        return try ids.prefix(found).map { id in
            let handle = try primary.auxiliary(id)
            return HEICAuxiliaryImageInfo(
                itemID: id, type: try auxiliaryType(handle),
                width: Int(heif_image_handle_get_width(handle.pointer)),
                height: Int(heif_image_handle_get_height(handle.pointer)),
                bitDepth: Int(heif_image_handle_get_luma_bits_per_pixel(handle.pointer)))
        }
    }

    private static func auxiliaryType(_ handle: Handle) throws -> AuxiliaryImageType {
        var text: UnsafePointer<CChar>?
        try check(heif_image_handle_get_auxiliary_type(handle.pointer, &text), "reading an auxiliary type")
        defer { heif_image_handle_free_auxiliary_types(handle.pointer, &text) }
        return AuxiliaryImageType(rawValue: text.map { String(cString: $0) } ?? "")
    }

    /// Decodes one auxiliary image: `.oneComponent8` when 8-bit, else `.oneComponent32Float` in 0…1.
    static func decodeAuxiliary(_ bytes: UnsafeRawBufferPointer, itemID: UInt32, limits: ImageLimits) throws
        -> (pixels: PixelBuffer, xmp: [String])
    {
        let context = try Context(bytes, limits: limits)
        let handle = try context.primaryHandle().auxiliary(itemID)
        let bits = Int(heif_image_handle_get_luma_bits_per_pixel(handle.pointer))
        let pixels = try decodePixels(handle, output: bits > 8 ? .oneComponent32Float : .oneComponent8, alpha: false, limits: limits)
        return (pixels, xmpBlocks(handle))
    }

    /// The ID of the first depth image, through libheif's depth API.
    static func depthImageID(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws -> UInt32? {
        let context = try Context(bytes, limits: limits)
        let primary = try context.primaryHandle()
        guard heif_image_handle_has_depth_image(primary.pointer) != 0 else { return nil }
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_depth_image_IDs(primary.pointer, &id, 1) == 1 else { return nil }
        return id
    }

    /// Decodes the depth image `id` through libheif's depth API (`.oneComponent32Float`, 0…1).
    static func decodeDepth(_ bytes: UnsafeRawBufferPointer, id: UInt32, limits: ImageLimits) throws
        -> (pixels: PixelBuffer, xmp: [String])
    {
        let context = try Context(bytes, limits: limits)
        let primary = try context.primaryHandle()
        var depth: OpaquePointer?
        try check(heif_image_handle_get_depth_image_handle(primary.pointer, id, &depth), "reading the depth image")
        guard let depth else { throw ImagingError(.corruptData, "HEIC depth image \(id) has no handle") }
        let handle = Handle(depth, owner: context)
        return (try decodePixels(handle, output: .oneComponent32Float, alpha: false, limits: limits), xmpBlocks(handle))
    }

    // MARK: Encoding

    /// What to hand libheif: 8-bit RGB/RGBA/grey, or deeper grey samples (`bits` 9…12, what x265 codes).
    enum Source {
        case color(PixelBuffer)  // .rgba32
        case gray(PixelBuffer)  // .oneComponent8
        case grayDeep(samples: [UInt16], width: Int, height: Int, bits: Int)
    }

    /// Encodes one image as a complete HEIC file, optionally with XMP packets attached to it (each its own item),
    /// lossy at `quality` or, when `lossless`, exactly.
    /// `orientation` makes libheif write `irot`/`imir` properties and `exif` an Exif item (a TIFF
    /// structure); both exist so tests can build files like an iPhone's.
    static func encode(
        _ source: Source, quality: Int, xmp: [String] = [], orientation: Orientation = .up, exif: [UInt8]? = nil,
        lossless: Bool = false
    ) throws -> [UInt8] {
        guard (0...100).contains(quality) else {
            throw ImagingError(.invalidArgument, "HEIC quality \(quality) is outside 0…100")
        }
        _ = heifInitialized
        guard let context = heif_context_alloc() else { throw ImagingError(.encodingFailed, "out of memory") }
        defer { heif_context_free(context) }
        let image = try makeImage(source)
        defer { heif_image_release(image) }
        heifEncoderLock.lock()
        defer { heifEncoderLock.unlock() }
        var encoderPointer: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoderPointer), "finding an HEVC encoder")
        guard let encoder = encoderPointer else { throw ImagingError(.encodingFailed, "libheif has no HEVC encoder") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(quality)), "setting the quality")
        if lossless { try check(heif_encoder_set_lossless(encoder, 1), "asking for lossless coding") }
        guard let options = heif_encoding_options_alloc() else { throw ImagingError(.encodingFailed, "out of memory") }
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: orientation.rawValue)
        var handlePointer: OpaquePointer?
        try check(heif_context_encode_image(context, image, encoder, options, &handlePointer), "encoding")
        defer { heif_image_handle_release(handlePointer) }
        for packet in xmp {
            guard let handle = handlePointer else { break }
            let bytes = Array(packet.utf8)
            try check(heif_context_add_XMP_metadata(context, handle, bytes, Int32(bytes.count)), "adding XMP")
        }
        if let exif, let handle = handlePointer {
            try check(heif_context_add_exif_metadata(context, handle, exif, Int32(exif.count)), "adding EXIF")
        }
        return try write(context)
    }

    private static func makeImage(_ source: Source) throws -> OpaquePointer {
        let width: Int, height: Int, colorspace: heif_colorspace, chroma: heif_chroma, channel: heif_channel, depth: Int32
        switch source {
        case .color(let buffer):
            (width, height) = (buffer.width, buffer.height)
            let opaque = codecIsOpaque(buffer)
            (colorspace, chroma, channel, depth) =
                (heif_colorspace_RGB, opaque ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RGBA, heif_channel_interleaved, 8)
        case .gray(let buffer):
            (width, height) = (buffer.width, buffer.height)
            (colorspace, chroma, channel, depth) = (heif_colorspace_monochrome, heif_chroma_monochrome, heif_channel_Y, 8)
        case .grayDeep(_, let w, let h, let bits):
            (width, height) = (w, h)
            (colorspace, chroma, channel, depth) = (heif_colorspace_monochrome, heif_chroma_monochrome, heif_channel_Y, Int32(bits))
        }
        guard width <= 32768, height <= 32768 else {
            throw ImagingError(.invalidArgument, "HEIC encoding is limited to 32768 px per side, not \(width)×\(height)")
        }
        var created: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), colorspace, chroma, &created), "creating an image")
        guard let image = created else { throw ImagingError(.encodingFailed, "out of memory") }
        do {
            try check(heif_image_add_plane(image, channel, Int32(width), Int32(height), depth), "adding a plane")
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane(image, channel, &stride) else {
                throw ImagingError(.encodingFailed, "libheif returned no plane")
            }
            let target = Int(stride)
            switch source {
            case .color(let buffer):
                let channels = chroma == heif_chroma_interleaved_RGBA ? 4 : 3, row = buffer.bytesPerRow()
                buffer.withUnsafeBytes { pixels in
                    for y in 0..<height {
                        for x in 0..<width {
                            for c in 0..<channels { plane[y * target + x * channels + c] = pixels[y * row + 4 * x + c] }
                        }
                    }
                }
            case .gray(let buffer):
                let row = buffer.bytesPerRow()
                buffer.withUnsafeBytes { pixels in
                    for y in 0..<height {
                        (plane + y * target).update(from: pixels.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * row, count: width)
                    }
                }
            case .grayDeep(let samples, _, _, _):
                for y in 0..<height {
                    let line = UnsafeMutableRawPointer(plane + y * target)
                    for x in 0..<width { line.storeBytes(of: samples[y * width + x].littleEndian, toByteOffset: 2 * x, as: UInt16.self) }
                }
            }
        } catch {
            heif_image_release(image)
            throw error
        }
        return image
    }

    /// Serialises a context through libheif's writer callback.
    private static func write(_ context: OpaquePointer) throws -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var writer = heif_writer(
            writer_api_version: 1,
            write: { _, data, size, userData in
                let sink = Unmanaged<Sink>.fromOpaque(userData!).takeUnretainedValue()
                if let data { sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size)) }
                let ok = UnsafeRawPointer(("Success" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
                return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: ok)
            })
        try withExtendedLifetime(sink) {
            try check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()), "writing")
        }
        return sink.bytes
    }

    // MARK: libheif plumbing

    /// Owns a `heif_context` reading `bytes` without copying them: use it only while they live.
    /// Refuses files whose items depend on each other in a cycle. Decoding an item needs the items it is derived from
    /// (`dimg`: a grid's tiles) and its auxiliary images (`auxl`: an alpha plane), and libheif 1.15 follows both
    /// without checking for cycles: a grid that was also the alpha of its own tile made it start threads within
    /// threads until memory ran out (found by fuzzing). The references are read field by field, as libheif reads
    /// them, whatever sizes their boxes declare.
    static func checkReferenceCycles(_ bytes: UnsafeRawBufferPointer) throws {
        var needs: [UInt32: [UInt32]] = [:]
        for (type, from, to) in itemReferences(bytes) {
            if type == "dimg" { needs[from, default: []] += to }
            if type == "auxl" { for image in to { needs[image, default: []].append(from) } }
        }
        // Depth-first; `path` holds the items being visited.
        var done = Set<UInt32>(), path = Set<UInt32>()
        func visit(_ item: UInt32) throws {
            if done.contains(item) { return }
            guard path.insert(item).inserted else {
                throw ImagingError(.corruptData, "HEIC item \(item) depends on itself through its derived or auxiliary images")
            }
            for next in needs[item] ?? [] { try visit(next) }
            path.remove(item)
            done.insert(item)
        }
        for item in needs.keys.sorted() { try visit(item) }
    }

    /// The `iref` entries of the file's `meta` box (empty when it has none or cannot be found). Boxes after `meta`
    /// (an `mdat` whose size runs past the end) or after `iref` do not hide them: libheif reads them all the same.
    private static func itemReferences(_ bytes: UnsafeRawBufferPointer) -> [(FourCC, UInt32, [UInt32])] {
        guard let meta = (try? ISOBox.list(bytes, from: 0, to: bytes.count, until: "meta"))?.last, meta.type == "meta",
            let iref = (try? ISOBox.list(bytes, from: meta.payload + 4, to: meta.end, until: "iref"))?.last,
            iref.type == "iref"
        else { return [] }
        var reader = ISOReader(bytes, from: iref.payload, to: iref.end)
        var found: [(FourCC, UInt32, [UInt32])] = []
        guard let version = try? reader.u8(), (try? reader.skip(3)) != nil else { return [] }
        let idSize = version == 0 ? 2 : 4
        while reader.remaining >= 8 + idSize + 2 {
            guard (try? reader.skip(4)) != nil, let type = try? reader.fourCC(), let from = try? reader.uint(idSize),
                let count = try? reader.u16(), reader.remaining >= Int(count) * idSize
            else { break }
            let to = (0..<Int(count)).compactMap { _ in (try? reader.uint(idSize)).map(UInt32.init) }
            found.append((type, UInt32(from), to))
        }
        return found
    }

    final class Context {
        let pointer: OpaquePointer

        init(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws {
            guard !bytes.isEmpty else { throw ImagingError(.truncatedData, "HEIC data is empty") }
            _ = heifInitialized
            guard let pointer = heif_context_alloc() else { throw ImagingError(.tooLarge, "out of memory") }
            self.pointer = pointer
            heif_context_set_maximum_image_size_limit(pointer, Int32(clamping: limits.maximumSide))
            try HEICCodec.checkReferenceCycles(bytes)
            try HEICCodec.check(
                heif_context_read_from_memory_without_copy(pointer, bytes.baseAddress, bytes.count, nil), "reading")
        }

        deinit { heif_context_free(pointer) }

        func primaryHandle() throws -> Handle {
            var handle: OpaquePointer?
            try HEICCodec.check(heif_context_get_primary_image_handle(pointer, &handle), "finding the primary image")
            guard let handle else { throw ImagingError(.corruptData, "HEIC file has no primary image") }
            return Handle(handle, owner: self)
        }
    }

    /// Owns a `heif_image_handle` (and keeps its context alive).
    final class Handle {
        let pointer: OpaquePointer
        let owner: Context

        init(_ pointer: OpaquePointer, owner: Context) {
            self.pointer = pointer
            self.owner = owner
        }

        deinit { heif_image_handle_release(pointer) }

        func auxiliary(_ id: UInt32) throws -> Handle {
            var handle: OpaquePointer?
            try HEICCodec.check(heif_image_handle_get_auxiliary_image_handle(pointer, id, &handle), "reading auxiliary image \(id)")
            guard let handle else { throw ImagingError(.corruptData, "HEIC auxiliary image \(id) has no handle") }
            return Handle(handle, owner: owner)
        }
    }

    /// Converts a libheif error to ``ImagingError``.
    static func check(_ error: heif_error, _ stage: String) throws {
        guard error.code != heif_error_Ok else { return }
        let detail = error.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
        let message = "HEIC \(stage) failed: \(detail ?? "unknown error")"
        switch error.code {
        case heif_error_Invalid_input where error.subcode == heif_suberror_End_of_data:
            throw ImagingError(.truncatedData, message)
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            throw ImagingError(.unsupportedFormat, message)
        case heif_error_Memory_allocation_error:
            throw ImagingError(.tooLarge, message)
        case heif_error_Encoder_plugin_error, heif_error_Encoding_error:
            throw ImagingError(.encodingFailed, message)
        case heif_error_Usage_error where error.subcode == heif_suberror_Invalid_parameter_value:
            throw ImagingError(.invalidArgument, message)
        default:
            throw ImagingError(.corruptData, message)
        }
    }
}

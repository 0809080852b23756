#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H
// C shim over libjpeg-turbo and libpng.
//
// Why this target exists: both libraries report errors by calling an error handler that must
// not return, which in practice means longjmp. A longjmp must never cross Swift frames (it
// would skip Swift's cleanups and corrupt reference counts), so every libjpeg/libpng call that
// can fail lives in a C function below that owns its own setjmp and returns a status code plus
// the library's message. Swift (Sources/PVImaging/Codecs/JPEGCodec.swift, PNGCodec.swift)
// calls only these functions, never libjpeg/libpng directly.
//
// Memory: decoders are opaque handles created and destroyed here. Encoders return a buffer
// allocated with malloc; release it with cimg_free. Pixel memory for decoding is allocated by
// the caller (after it has checked the header's size against its limits) and passed in.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes returned by every fallible shim function.
typedef enum cimg_status {
    CIMG_OK = 0,
    /// The codec rejected the data.
    CIMG_CORRUPT = 1,
    /// The data ended before the image did.
    CIMG_TRUNCATED = 2,
    /// The header declares a zero width or height.
    CIMG_EMPTY_IMAGE = 3,
    /// The codec could not allocate memory (or a shim-side safety limit was hit).
    CIMG_NO_MEMORY = 4,
    /// A valid file using a feature the codec does not support.
    CIMG_UNSUPPORTED = 5,
    /// The caller passed inconsistent arguments (a bug on the Swift side).
    CIMG_BAD_ARGUMENT = 6,
    /// The encoder failed.
    CIMG_ENCODE_FAILED = 7,
    /// The header declares a size beyond what the codec can represent.
    CIMG_TOO_LARGE = 8,
} cimg_status;

/// Size of the message buffers (libjpeg's JMSG_LENGTH_MAX is 200).
#define CIMG_MESSAGE_MAX 256

/// Releases a buffer returned by an encoder.
void cimg_free(void *pointer);

/// Memory layouts of interleaved 8-bit pixels handed to the encoders.
typedef enum cimg_layout {
    CIMG_LAYOUT_GRAY8 = 0,
    CIMG_LAYOUT_RGB8 = 1,
    CIMG_LAYOUT_RGBA8 = 2,
    CIMG_LAYOUT_BGRA8 = 3,
    CIMG_LAYOUT_ARGB8 = 4,
    /// 16-bit grey, one native-endian uint16_t per pixel (PNG only).
    CIMG_LAYOUT_GRAY16 = 5,
    /// 8-bit C, M, Y, K in Adobe's inverted convention (255 = no ink) (JPEG only; for tests).
    CIMG_LAYOUT_CMYK8 = 6,
} cimg_layout;

// ---------------------------------------------------------------------------------------------
// JPEG (libjpeg-turbo)
// ---------------------------------------------------------------------------------------------

/// Opaque decoder: a jpeg_decompress_struct plus its error manager. One image per decoder.
typedef struct cimg_jpeg_decoder cimg_jpeg_decoder;

/// What `cimg_jpeg_read_header` learns before any pixel memory is needed.
typedef struct cimg_jpeg_header {
    uint32_t width;
    uint32_t height;
    /// Components in the file: 1 (grey), 3 (YCbCr/RGB) or 4 (CMYK/YCCK).
    int32_t components;
    /// 1 when the source is single-channel grey.
    int32_t is_gray;
    /// The TIFF structure of the first `Exif\0\0` APP1 segment (the 6-byte `Exif\0\0` prefix
    /// removed), or NULL. Points into memory owned by the decoder; valid until it is destroyed.
    const uint8_t *exif;
    size_t exif_size;
    /// The restart interval in MCUs (0: no restart markers) and whether the file is progressive.
    uint32_t restart_interval;
    int32_t progressive;
} cimg_jpeg_header;

/// Creates a decoder over `data`, which must stay valid and unchanged until the decoder is
/// destroyed. Returns NULL only when malloc fails.
cimg_jpeg_decoder *cimg_jpeg_decoder_create(const uint8_t *data, size_t size);
void cimg_jpeg_decoder_destroy(cimg_jpeg_decoder *decoder);
/// The library's message for the last failure (empty when none).
const char *cimg_jpeg_decoder_message(const cimg_jpeg_decoder *decoder);

/// Reads the markers up to the first scan (keeping APP1 segments so EXIF can be parsed).
/// Allocates nothing proportional to the image size.
cimg_status cimg_jpeg_read_header(cimg_jpeg_decoder *decoder, cimg_jpeg_header *out);

/// Chooses DCT-domain downscaling (`scale_denominator` 1, 2, 4 or 8: libjpeg-turbo decodes at
/// 1/denominator of the size for a fraction of the work) and the output layout (`gray` = 1:
/// one byte per pixel, only for grey sources; otherwise 4 bytes R, G, B, 255). Reports the
/// output size, which the caller allocates before calling `cimg_jpeg_decode`.
cimg_status cimg_jpeg_prepare(cimg_jpeg_decoder *decoder, int scale_denominator, int gray,
                              uint32_t *out_width, uint32_t *out_height);

/// Decodes every row into `pixels` (`height` rows of `bytes_per_row` bytes, sized for the
/// dimensions `cimg_jpeg_prepare` reported). A file that ends early fails with CIMG_TRUNCATED
/// instead of libjpeg's default of padding the image with grey. Progressive files with more
/// than CIMG_JPEG_MAX_SCANS scans are refused (a known denial-of-service pattern).
cimg_status cimg_jpeg_decode(cimg_jpeg_decoder *decoder, uint8_t *pixels, size_t bytes_per_row,
                             uint32_t width, uint32_t height);

#define CIMG_JPEG_MAX_SCANS 500

/// Where a baseline file splits into bands that decode side by side (`cimg_jpeg_find_bands`).
typedef struct cimg_jpeg_bands {
    /// Number of bands (2…8).
    int32_t count;
    /// Offsets of the SOF marker and of the entropy-coded data (just past the SOS segment).
    size_t sof;
    size_t scan;
    /// Per band: the offset of the restart marker it starts at, and its first image row (both 0 for the first band).
    size_t start[8];
    uint32_t first_row[8];
} cimg_jpeg_bands;

/// Finds up to `threads` (≤ 8) bands of about equal height in a baseline file of `width` × `height` pixels, when its
/// restart markers allow: one scan with every component, and markers at the start of MCU rows to split at (as
/// `cimg_jpeg_encode`'s banded files and some cameras' have). Returns CIMG_UNSUPPORTED when they do not.
cimg_status cimg_jpeg_find_bands(const uint8_t *data, size_t size, uint32_t width, uint32_t height, int threads,
                                 cimg_jpeg_bands *bands);

/// Decodes band `k` of `bands` at full size (as `cimg_jpeg_prepare` with scale 1 and `gray`, then `cimg_jpeg_decode`),
/// as a standalone stream from its restart marker, into its own rows of `pixels` (the whole image: `height` rows of
/// `bytes_per_row` bytes). Once every band has returned CIMG_OK, the pixels are exactly those of a single-stream
/// decode: a band's first row, whose chroma depends on the row above, is stored by the band above, which decodes one
/// row further. Bands of one image write disjoint rows and may run side by side. After a failure (rows may be partly
/// written), decode the file the ordinary way, which reports the error.
cimg_status cimg_jpeg_decode_band(const uint8_t *data, size_t size, const cimg_jpeg_bands *bands, int k, int gray,
                                  uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height);

/// One job of a banded encode: item `k` of `items`.
typedef void (*cimg_job_fn)(void *items, int k);
/// Calls `job(items, k)` for every `k` in 0..<`count` and returns when all calls have returned; the calls may run side
/// by side. The encoders start no threads: the caller's runner decides where their bands run (NULL: one after the
/// other on the calling thread).
typedef void (*cimg_run_fn)(void *runner, int count, cimg_job_fn job, void *items);

/// Encodes 8-bit pixels (`layout` GRAY8, RGB8, RGBA8, BGRA8, ARGB8 or CMYK8; alpha is ignored)
/// as a JPEG with 4:2:0 chroma (4:4:4 at quality >= 95), baseline unless `progressive`. `exif` (a
/// TIFF structure, may be NULL) is written as an APP1 `Exif\0\0` segment. With `threads` > 1, a
/// baseline image of at least 512×512 pixels is encoded as up to `threads` (≤ 8) bands of whole MCU
/// rows, run by `run` (see `cimg_run_fn`), joined with restart markers; it decodes to exactly the same
/// pixels. On success `*out` is a malloc'd buffer the caller releases with cimg_free.
cimg_status cimg_jpeg_encode(const uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                             cimg_layout layout, int quality, int progressive, const uint8_t *exif,
                             size_t exif_size, int threads, cimg_run_fn run, void *runner, uint8_t **out,
                             size_t *out_size, char message[CIMG_MESSAGE_MAX]);

// ---------------------------------------------------------------------------------------------
// PNG (libpng 1.6)
// ---------------------------------------------------------------------------------------------

typedef struct cimg_png_decoder cimg_png_decoder;

/// What `cimg_png_read_header` learns from the chunks before the first IDAT.
typedef struct cimg_png_header {
    uint32_t width;
    uint32_t height;
    /// 1, 2, 4, 8 or 16.
    int32_t bit_depth;
    /// PNG colour type: 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA.
    int32_t color_type;
    /// 1 when a tRNS chunk adds transparency.
    int32_t has_trns;
    int32_t interlaced;
    /// eXIf payload (a TIFF structure) if the chunk precedes IDAT, else NULL. Owned by the
    /// decoder. After a successful `cimg_png_decode`, `cimg_png_exif` also sees a trailing eXIf.
    const uint8_t *exif;
    size_t exif_size;
} cimg_png_header;

/// Output layouts for `cimg_png_decode`.
typedef enum cimg_png_output {
    /// One byte per pixel; only for grey sources without tRNS. 16-bit samples are scaled.
    CIMG_PNG_GRAY8 = 0,
    /// R, G, B, A bytes: palettes expanded, grey replicated, tRNS turned into alpha, 16-bit scaled.
    CIMG_PNG_RGBA8 = 1,
    /// One native-endian uint16_t per pixel; only for 16-bit grey sources.
    CIMG_PNG_GRAY16 = 2,
} cimg_png_output;

/// Creates a decoder over `data`, which must stay valid until the decoder is destroyed.
cimg_png_decoder *cimg_png_decoder_create(const uint8_t *data, size_t size);
void cimg_png_decoder_destroy(cimg_png_decoder *decoder);
const char *cimg_png_decoder_message(const cimg_png_decoder *decoder);

/// Validates the signature and reads every chunk before the first IDAT.
cimg_status cimg_png_read_header(cimg_png_decoder *decoder, cimg_png_header *out);

/// Decodes the image into `pixels` (`height` rows of `bytes_per_row` bytes) and reads the
/// chunks after it up to IEND (a missing IEND is CIMG_TRUNCATED).
cimg_status cimg_png_decode(cimg_png_decoder *decoder, cimg_png_output output, uint8_t *pixels,
                            size_t bytes_per_row);

/// The eXIf payload wherever it appeared (call after `cimg_png_decode`); 0 when absent.
int cimg_png_exif(cimg_png_decoder *decoder, const uint8_t **out, size_t *out_size);

/// Encodes pixels (`layout` GRAY8, RGB8, RGBA8, BGRA8, ARGB8 or GRAY16) as a non-interlaced PNG
/// (8-bit, or 16-bit grey for GRAY16) at zlib level `compression_level` (0-9). `exif` (may be
/// NULL) is written as an eXIf chunk. Rows are Paeth-filtered and compressed with run-length matching. An 8-bit image
/// of at least 512×512 pixels is written by our own writer (vectorised filter) in up to `threads` (≤ 8) bands of rows,
/// run by `run` (see `cimg_run_fn`), joined into one zlib stream; others by libpng. On success `*out` is a malloc'd
/// buffer (cimg_free).
cimg_status cimg_png_encode(const uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                            cimg_layout layout, int compression_level, const uint8_t *exif, size_t exif_size, int threads,
                            cimg_run_fn run, void *runner, uint8_t **out, size_t *out_size,
                            char message[CIMG_MESSAGE_MAX]);

#ifdef __cplusplus
}
#endif

#endif

import Foundation

/// A decoded image: its pixels plus what the file said about them.
///
/// Pixel formats (see ``ImageDecoder/Options``):
/// - `.rgba32` for colour sources, alpha straight (not premultiplied), 255 when the file has none;
/// - `.oneComponent8` for grey sources without alpha (grey JPEG, grey PNG, monochrome HEIC) when
///   ``ImageDecoder/Options/keepsGrayscale`` is true (the default), else `.rgba32` with R = G = B;
/// - `.oneComponent32Float` (0…1, exact) for 16-bit grey PNG when
///   ``ImageDecoder/Options/keepsSixteenBitGray`` is true. Other 16-bit sources are rounded to 8 bits.
///
/// WebP has no grey mode, so WebP always decodes to `.rgba32`.
public struct DecodedImage: Sendable {
    /// The pixels, at `1/scaleDenominator` of the stored size, oriented as ``orientation`` says.
    public var pixels: PixelBuffer
    /// The container format, as sniffed from the data.
    public var format: ImageFormat
    /// The transform still needed to show ``pixels`` upright: `.up` when the decoder applied the
    /// file's orientation (the default), the file's orientation when asked not to apply it.
    public var orientation: Orientation
    /// The EXIF orientation tag found in the file's metadata, if any. For HEIC this is
    /// informational only: HEIF's geometry is its `irot`/`imir` properties, which libheif always
    /// applies while decoding, so HEIC ``pixels`` are already upright and ``orientation`` is `.up`.
    public var exifOrientation: Orientation?
    /// 1, or 2, 4, 8 when a JPEG was decoded at reduced size in the DCT domain (``ImageDecoder/Options/minimumSize``).
    public var scaleDenominator: Int
    /// Width of the full-size image as stored, before scaling and orientation.
    public var storedWidth: Int
    /// Height of the full-size image as stored, before scaling and orientation.
    public var storedHeight: Int
    /// Whether the source has an alpha channel (or a PNG transparency chunk).
    public var hasAlpha: Bool
    /// The raw EXIF block (a TIFF structure, without the `Exif\0\0` prefix) when the file has one.
    public var exif: Data?

    /// The EXIF 35 mm-equivalent focal length in millimetres (`FocalLengthIn35mmFilm`), when the file has one.
    public var focalLengthIn35mmFilm: Double? {
        exif.flatMap { data in data.withUnsafeBytes { EXIF.focalLengthIn35mmFilm(in: $0) } }
    }
}

/// What a file's header says, read without decoding pixels (see ``ImageDecoder/info(data:)``).
public struct ImageInfo: Sendable, Equatable {
    /// The container format.
    public var format: ImageFormat
    /// Stored width in pixels (HEIC: after libheif's `irot`/`imir`/`clap`, see ``DecodedImage/exifOrientation``).
    public var width: Int
    /// Stored height in pixels.
    public var height: Int
    /// The transform needed to show the stored image upright (EXIF; `.up` for HEIC, whose own
    /// transforms are part of decoding). PNG's eXIf chunk is seen only if it precedes the image data.
    public var orientation: Orientation
    /// Whether the source has alpha.
    public var hasAlpha: Bool
    /// Whether the source is single-channel grey.
    public var isGray: Bool
    /// Whether decoding will most likely keep every core busy: a large baseline JPEG with restart markers, which is
    /// decoded in bands side by side when its markers fall at MCU-row starts. A scheduling hint (work meant to
    /// overlap the decode waits for it instead).
    public var decodesInBands: Bool = false

    /// The size after applying ``orientation``.
    public var orientedSize: (width: Int, height: Int) { orientation.orientedSize(width: width, height: height) }
}

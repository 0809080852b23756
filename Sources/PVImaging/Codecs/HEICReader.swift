import Foundation
import PVCore

/// Reads the auxiliary images of a HEIC: mattes, depth, alpha.
///
/// Listing parses only the container; each read decodes just the image asked for. The reader is
/// a value holding the file's bytes, so it is `Sendable` and cheap to pass around.
///
/// ```swift
/// let reader = try HEICReader(contentsOf: url)
/// for info in reader.auxiliaryImages { print(info.type, info.width, info.height) }
/// let hair = try reader.auxiliaryImage(.hairMatte)      // PixelBuffer? (.oneComponent8)
/// let depth = try reader.depthMap()                     // HEICDepthMap?
/// ```
public struct HEICReader: Sendable {
    /// The file's bytes.
    public let data: Data
    /// Limits applied to every image read.
    public let limits: ImageLimits
    /// Every auxiliary image of the primary image, alpha and depth included, in file order.
    public let auxiliaryImages: [HEICAuxiliaryImageInfo]

    /// Opens HEIC data.
    ///
    /// - Throws: ``ImagingError`` `.unsupportedFormat` when the data is not HEIC, otherwise as
    ///   ``ImageDecoder/decode(data:options:)``.
    public init(data: Data, limits: ImageLimits = .default) throws {
        let format = try ImageFormat(sniffing: data)
        guard format == .heic else {
            throw ImagingError(.unsupportedFormat, "auxiliary images are read from HEIC files, not \(format)")
        }
        self.data = data
        self.limits = limits
        auxiliaryImages = try data.withUnsafeBytes { try HEICCodec.auxiliaryImages($0, limits: limits) }
    }

    /// Opens a HEIC file.
    public init(contentsOf url: URL, limits: ImageLimits = .default) throws {
        try self.init(data: ImageDecoder.readFile(url), limits: limits)
    }

    /// Decodes the primary image (see ``ImageDecoder``), under this reader's ``limits`` (which
    /// replace `options.limits`).
    public func primaryImage(options: ImageDecoder.Options = ImageDecoder.Options()) throws -> DecodedImage {
        var options = options
        options.limits = limits
        return try ImageDecoder.decode(data: data, options: options)
    }

    /// The first auxiliary image of `type`, or nil when the file has none.
    ///
    /// - Returns: `.oneComponent8` for 8-bit images (Apple's mattes), `.oneComponent32Float`
    ///   in 0…1 for deeper ones.
    /// - Throws: ``ImagingError`` when the image exists but cannot be decoded.
    public func auxiliaryImage(_ type: AuxiliaryImageType) throws -> PixelBuffer? {
        guard let info = auxiliaryImages.first(where: { $0.type == type }) else { return nil }
        return try auxiliaryImage(info)
    }

    /// Decodes one listed auxiliary image.
    public func auxiliaryImage(_ info: HEICAuxiliaryImageInfo) throws -> PixelBuffer {
        try data.withUnsafeBytes { bytes in
            try HEICCodec.diagnosingTruncation(bytes) {
                try HEICCodec.decodeAuxiliary(bytes, itemID: info.itemID, limits: limits).pixels
            }
        }
    }

    /// The depth (or disparity) map, read through libheif's depth API, or nil when there is none.
    ///
    /// Values are restored to the units recorded by ``ImageEncoder/encodeHEIC(_:quality:auxiliaryImages:depth:)``;
    /// a depth image from another writer comes back normalized to 0…1 with ``HEICDepthMap/range`` nil.
    public func depthMap() throws -> HEICDepthMap? {
        try data.withUnsafeBytes { bytes in
            guard let id = try HEICCodec.depthImageID(bytes, limits: limits) else { return nil }
            let (pixels, xmp) = try HEICCodec.diagnosingTruncation(bytes) {
                try HEICCodec.decodeDepth(bytes, id: id, limits: limits)
            }
            let others = xmp.filter { DepthXMP(packet: $0) == nil }
            guard let recorded = xmp.lazy.compactMap(DepthXMP.init(packet:)).first else {
                return HEICDepthMap(values: pixels, kind: .depth, range: nil, metadata: others)
            }
            var values = pixels
            let low = recorded.range.lowerBound, span = recorded.range.upperBound - recorded.range.lowerBound
            let row = values.bytesPerRow(), width = values.width, height = values.height
            values.withUnsafeMutableBytes { bytes in
                for y in 0..<height {
                    let line = (bytes.baseAddress! + y * row).assumingMemoryBound(to: Float.self)
                    for x in 0..<width { line[x] = low + line[x] * span }
                }
            }
            return HEICDepthMap(values: values, kind: recorded.kind, range: recorded.range, metadata: others)
        }
    }
}

/// The XMP packet recording a depth map's range and kind.
struct DepthXMP {
    static let namespace = "http://peoplevision.dev/ns/depth/1.0/"

    var range: ClosedRange<Float>
    var kind: HEICDepthMap.Kind

    init(range: ClosedRange<Float>, kind: HEICDepthMap.Kind) {
        self.range = range
        self.kind = kind
    }

    /// Parses a packet written by ``packet``; nil for any other XMP.
    init?(packet: String) {
        guard packet.contains(DepthXMP.namespace) else { return nil }
        func attribute(_ name: String) -> String? {
            guard let start = packet.range(of: "pvdepth:\(name)=\"") else { return nil }
            guard let end = packet[start.upperBound...].firstIndex(of: "\"") else { return nil }
            return String(packet[start.upperBound..<end])
        }
        guard let low = attribute("Minimum").flatMap(Float.init), let high = attribute("Maximum").flatMap(Float.init),
            low.isFinite, high.isFinite, low <= high,
            let kind = attribute("Kind").flatMap(HEICDepthMap.Kind.init(rawValue:))
        else { return nil }
        self.range = low...high
        self.kind = kind
    }

    var packet: String {
        """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>\
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description rdf:about="" xmlns:pvdepth="\(DepthXMP.namespace)" \
        pvdepth:Kind="\(kind.rawValue)" pvdepth:Minimum="\(range.lowerBound)" pvdepth:Maximum="\(range.upperBound)"/>\
        </rdf:RDF></x:xmpmeta><?xpacket end="r"?>
        """
    }
}

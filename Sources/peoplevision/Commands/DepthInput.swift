import Foundation
import PeopleVision
import PVImaging

/// `pose --depth FILE`: a depth map beside the photo, and the handler that performs with it.
enum DepthInput {
    /// The depth in a file: a 16-bit grey PNG in millimetres (0: no depth), or a PFM (`Pf` grey or `PF` colour, its
    /// first channel) in metres. The map is taken to be upright, as the photo is shown.
    static func read(_ path: String) throws -> AVDepthData {
        let url = URL(fileURLWithPath: path)
        let data = try Data(contentsOf: url)
        let (width, height, metres): (Int, Int, [Float])
        if data.starts(with: Array("PF".utf8)) || data.starts(with: Array("Pf".utf8)) {
            (width, height, metres) = try pfm(data)
        } else {
            let decoded = try ImageDecoder.decode(data: data, options: ImageDecoder.Options(keepsGrayscale: true, keepsSixteenBitGray: true))
            guard decoded.pixels.format == .oneComponent32Float else {
                throw DepthFileError("\(path): a depth PNG must be 16-bit grey (millimetres)")
            }
            let pixels = decoded.pixels, row = pixels.bytesPerRow()
            var values = [Float](repeating: 0, count: pixels.width * pixels.height)
            pixels.withUnsafeBytes { bytes in
                for y in 0..<pixels.height {
                    for x in 0..<pixels.width {
                        let millimetres = (bytes.load(fromByteOffset: y * row + 4 * x, as: Float.self) * 65535).rounded()
                        values[y * pixels.width + x] = millimetres > 0 ? millimetres / 1000 : .nan
                    }
                }
            }
            (width, height, metres) = (pixels.width, pixels.height, values)
        }
        var map = try PixelBuffer(width: width, height: height, format: .oneComponent32Float)
        let row = map.bytesPerRow()
        map.withUnsafeMutableBytes { bytes in
            for y in 0..<height { for x in 0..<width { bytes.storeBytes(of: metres[y * width + x], toByteOffset: y * row + 4 * x, as: Float.self) } }
        }
        return try AVDepthData(depthDataMap: CVPixelBuffer(map, formatType: kCVPixelFormatType_DepthFloat32))
    }

    /// A PFM's values, top row first (the file stores the bottom row first).
    static func pfm(_ data: Data) throws -> (Int, Int, [Float]) {
        var fields: [String] = [], index = data.startIndex
        while fields.count < 4, index < data.endIndex {
            while index < data.endIndex, data[index] == 0x20 || data[index] == 0x0A || data[index] == 0x0D || data[index] == 0x09 {
                index += 1
            }
            let start = index
            while index < data.endIndex, !(data[index] == 0x20 || data[index] == 0x0A || data[index] == 0x0D || data[index] == 0x09) {
                index += 1
            }
            fields.append(String(decoding: data[start..<index], as: UTF8.self))
        }
        index += 1  // the single whitespace byte after the scale
        guard fields.count == 4, let width = Int(fields[1]), let height = Int(fields[2]), let scale = Double(fields[3]),
            width > 0, height > 0, width <= 65_535, height <= 65_535, scale != 0
        else { throw DepthFileError("the PFM header must be PF or Pf, width, height and a non-zero scale") }
        let channels = fields[0] == "PF" ? 3 : 1, count = width * height * channels
        guard data.endIndex - index >= 4 * count else { throw DepthFileError("the PFM holds fewer than \(count) values") }
        let littleEndian = scale < 0
        var values = [Float](repeating: 0, count: width * height)
        data[index...].withUnsafeBytes { raw in
            for y in 0..<height {
                for x in 0..<width {
                    let bits = raw.loadUnaligned(fromByteOffset: 4 * ((y * width + x) * channels), as: UInt32.self)
                    values[(height - 1 - y) * width + x] = Float(bitPattern: littleEndian ? UInt32(littleEndian: bits) : UInt32(bigEndian: bits))
                }
            }
        }
        return (width, height, values)
    }

    /// A handler over the photo's upright pixels with `depth`, keeping the file's EXIF focal length as intrinsics
    /// (the handler would read it from the file; pixels carry none).
    static func handler(photo url: URL, depth: AVDepthData, ignoringOrientation: Bool) throws -> VNImageRequestHandler {
        let decoded = try ImageDecoder.decode(
            data: try Data(contentsOf: url), options: ImageDecoder.Options(applyOrientation: !ignoringOrientation))
        var options: [VNImageOption: Any] = [:]
        if let f35 = decoded.focalLengthIn35mmFilm, f35 > 0 {
            let w = Float(decoded.pixels.width), h = Float(decoded.pixels.height)
            let f = (w * w + h * h).squareRoot() * Float(f35) / (36 * 36 + 24 * 24 as Float).squareRoot()
            options[.cameraIntrinsics] = matrix_float3x3(SIMD3(f, 0, 0), SIMD3(0, f, 0), SIMD3(w / 2, h / 2, 1))
        }
        return VNImageRequestHandler(cvPixelBuffer: CVPixelBuffer(decoded.pixels), depthData: depth, orientation: .up, options: options)
    }
}

/// A depth file that cannot be read.
struct DepthFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

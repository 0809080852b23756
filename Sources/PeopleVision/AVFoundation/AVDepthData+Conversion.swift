import Foundation
import PVImaging

extension AVDepthData {
    /// The same map in another format, as AVFoundation's `converting(toDepthDataType:)`: depth ↔ disparity as
    /// `1/x`, 16 ↔ 32 bits by rounding to the nearest half float. A value that is not finite and positive (a
    /// hole) converts to NaN; a depth or disparity beyond the half-float range becomes infinity. A type that is
    /// not one of ``availableDepthDataTypes`` returns the data unchanged (AVFoundation raises an exception).
    public func converting(toDepthDataType depthDataType: OSType) -> Self {
        guard Self.types.contains(depthDataType), depthDataType != self.depthDataType else { return self }
        var (width, height, values) = floatValues()
        if Self.isDepth(depthDataType) != Self.isDepth(self.depthDataType) {
            for i in values.indices { values[i] = values[i] > 0 && values[i].isFinite ? 1 / values[i] : .nan }
        }
        // `values` came from a valid map of this size, so the buffer can always be made.
        let map = (try? Self.map(values, width: width, height: height, type: depthDataType)) ?? depthDataMap
        return Self(
            map: map, quality: depthDataQuality, accuracy: depthDataAccuracy, filtered: isDepthDataFiltered,
            calibration: cameraCalibrationData)
    }

    /// The map turned as an image of that EXIF orientation is turned upright, as AVFoundation's
    /// `applyingExifOrientation(_:)`. The calibration is kept as it is: it describes the sensor, as AVFoundation's
    /// does.
    public func applyingExifOrientation(_ exifOrientation: CGImagePropertyOrientation) -> Self {
        guard exifOrientation != .up, let turned = try? depthDataMap.pixelBuffer.applying(exifOrientation.imaging) else { return self }
        return Self(
            map: CVPixelBuffer(turned, formatType: depthDataType), quality: depthDataQuality, accuracy: depthDataAccuracy,
            filtered: isDepthDataFiltered, calibration: cameraCalibrationData)
    }

    /// The same description with another map, as AVFoundation's `replacingDepthDataMap(with:)`.
    /// - Throws: ``AVError`` `.decodeFailed` when the buffer's format is not a depth or disparity format.
    public func replacingDepthDataMap(with pixelBuffer: CVPixelBuffer) throws -> Self {
        guard Self.types.contains(pixelBuffer.pixelFormatType) else {
            throw AVError.decode("pixel format \(pixelBuffer.pixelFormatType) is not a depth or disparity format")
        }
        return Self(
            map: pixelBuffer, quality: depthDataQuality, accuracy: depthDataAccuracy, filtered: isDepthDataFiltered,
            calibration: cameraCalibrationData)
    }

    /// The values as floats, row by row without padding, in the map's own kind (depth or disparity).
    func floatValues() -> (width: Int, height: Int, values: [Float]) {
        let pixels = depthDataMap.pixelBuffer
        let width = pixels.width, height = pixels.height, stride = pixels.bytesPerRow()
        var values = [Float](repeating: 0, count: width * height)
        let half = pixels.format == .oneComponent16Half
        pixels.withUnsafeBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    values[y * width + x] =
                        half
                        ? Float(Float16(bitPattern: bytes.load(fromByteOffset: y * stride + 2 * x, as: UInt16.self)))
                        : bytes.load(fromByteOffset: y * stride + 4 * x, as: Float.self)
                }
            }
        }
        return (width, height, values)
    }

    /// Depth in metres (converted from disparity when the map holds disparity; holes are NaN).
    package func metres() -> (width: Int, height: Int, values: [Float]) {
        converting(toDepthDataType: kCVPixelFormatType_DepthFloat32).floatValues()
    }

    /// A depth or disparity buffer holding `values` (row by row, no padding).
    static func map(_ values: [Float], width: Int, height: Int, type: OSType) throws -> CVPixelBuffer {
        let half = isHalf(type)
        var pixels = try PixelBuffer(width: width, height: height, format: half ? .oneComponent16Half : .oneComponent32Float)
        let stride = pixels.bytesPerRow()
        pixels.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let v = values[y * width + x]
                    if half {
                        bytes.storeBytes(of: Float16(v).bitPattern, toByteOffset: y * stride + 2 * x, as: UInt16.self)
                    } else {
                        bytes.storeBytes(of: v, toByteOffset: y * stride + 4 * x, as: Float.self)
                    }
                }
            }
        }
        return CVPixelBuffer(pixels, formatType: type)
    }
}

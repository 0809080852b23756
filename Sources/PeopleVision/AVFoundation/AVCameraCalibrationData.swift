import Foundation

/// The geometry of the camera that took a picture, as AVFoundation's `AVCameraCalibrationData`.
///
/// As in AVFoundation, ``intrinsicMatrix`` is in pixels of an image of ``intrinsicMatrixReferenceDimensions``
/// (the sensor's full frame, in the sensor's orientation): scale it to the size of the image or depth map it is
/// used with. Unlike AVFoundation, which makes these only from a capture, a calibration can be made here from its
/// values (``init(intrinsicMatrix:intrinsicMatrixReferenceDimensions:extrinsicMatrix:pixelSize:lensDistortionCenter:lensDistortionLookupTable:inverseLensDistortionLookupTable:)``),
/// so that depth read from other cameras, or made up for tests, can carry one. Immutable.
public final class AVCameraCalibrationData: @unchecked Sendable {
    /// The camera matrix: focal lengths `fx` (`columns.0.x`) and `fy` (`columns.1.y`) and the principal point
    /// (`columns.2.x`, `columns.2.y`), in pixels of ``intrinsicMatrixReferenceDimensions``, origin top-left.
    public let intrinsicMatrix: matrix_float3x3
    /// The image size the ``intrinsicMatrix`` is in.
    public let intrinsicMatrixReferenceDimensions: CGSize
    /// The camera's pose relative to a reference camera: a 3×3 rotation and a translation in millimetres.
    public let extrinsicMatrix: matrix_float4x3
    /// The size of one sensor pixel, millimetres.
    public let pixelSize: Float
    /// The radial distortion's centre, in pixels of ``intrinsicMatrixReferenceDimensions``.
    public let lensDistortionCenter: CGPoint
    /// Radial distortion magnifications (`Float`s) from the centre to the farthest corner, or nil.
    public let lensDistortionLookupTable: Data?
    /// The inverse of ``lensDistortionLookupTable``, or nil.
    public let inverseLensDistortionLookupTable: Data?

    /// A calibration from its values (a PeopleVision addition: AVFoundation has no public initializer).
    public init(
        intrinsicMatrix: matrix_float3x3, intrinsicMatrixReferenceDimensions: CGSize,
        extrinsicMatrix: matrix_float4x3 = matrix_float4x3(
            SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1), SIMD3(0, 0, 0)),
        pixelSize: Float = 0, lensDistortionCenter: CGPoint = .zero, lensDistortionLookupTable: Data? = nil,
        inverseLensDistortionLookupTable: Data? = nil
    ) {
        self.intrinsicMatrix = intrinsicMatrix
        self.intrinsicMatrixReferenceDimensions = intrinsicMatrixReferenceDimensions
        self.extrinsicMatrix = extrinsicMatrix
        self.pixelSize = pixelSize
        self.lensDistortionCenter = lensDistortionCenter
        self.lensDistortionLookupTable = lensDistortionLookupTable
        self.inverseLensDistortionLookupTable = inverseLensDistortionLookupTable
    }
}

extension AVCameraCalibrationData {
    /// The XMP names the calibration is stored under (namespace ``XMPNamespaces/calibration``).
    private enum Key {
        static let intrinsics = "pvcal:IntrinsicMatrix"  // 9 numbers, column by column
        static let reference = "pvcal:IntrinsicMatrixReferenceDimensions"  // width, height
        static let extrinsics = "pvcal:ExtrinsicMatrix"  // 12 numbers, column by column
        static let pixelSize = "pvcal:PixelSize"
        static let center = "pvcal:LensDistortionCenter"  // x, y
        static let table = "pvcal:LensDistortionLookupTable"  // base64
        static let inverse = "pvcal:InverseLensDistortionLookupTable"  // base64
    }

    /// Writes the calibration into `metadata`.
    func write(to metadata: CGMutableImageMetadata) {
        CGImageMetadataRegisterNamespaceForPrefix(metadata, XMPNamespaces.calibration, "pvcal", nil)
        let k = intrinsicMatrix.columns, e = extrinsicMatrix.columns
        func set(_ path: String, _ numbers: [Float]) {
            CGImageMetadataSetValueWithPath(metadata, nil, path, numbers.map { String($0) } as NSArray)
        }
        set(Key.intrinsics, [k.0, k.1, k.2].flatMap { [$0.x, $0.y, $0.z] })
        set(Key.reference, [Float(intrinsicMatrixReferenceDimensions.width), Float(intrinsicMatrixReferenceDimensions.height)])
        set(Key.extrinsics, [e.0, e.1, e.2, e.3].flatMap { [$0.x, $0.y, $0.z] })
        CGImageMetadataSetValueWithPath(metadata, nil, Key.pixelSize, String(pixelSize) as NSString)
        set(Key.center, [Float(lensDistortionCenter.x), Float(lensDistortionCenter.y)])
        if let t = lensDistortionLookupTable { CGImageMetadataSetValueWithPath(metadata, nil, Key.table, t.base64EncodedString() as NSString) }
        if let t = inverseLensDistortionLookupTable {
            CGImageMetadataSetValueWithPath(metadata, nil, Key.inverse, t.base64EncodedString() as NSString)
        }
    }

    /// The calibration `metadata` holds, nil when it has none.
    /// - Throws: ``AVError`` `.decodeFailed` when it has one that is malformed.
    static func read(from metadata: CGImageMetadata) throws -> AVCameraCalibrationData? {
        guard let tag = metadata.tag(at: Key.intrinsics), tag.namespace == XMPNamespaces.calibration else {
            return try readApple(from: metadata)
        }
        func numbers(_ path: String, count: Int) throws -> [Float] {
            guard let items = metadata.tag(at: path)?.value as? [String] else {
                throw AVError.decode("the camera calibration has no \(path)")
            }
            let values = items.compactMap { Float($0) }
            guard values.count == count, values.count == items.count, values.allSatisfy(\.isFinite) else {
                throw AVError.decode("the camera calibration's \(path) must be \(count) finite numbers, not \(items)")
            }
            return values
        }
        let k = try numbers(Key.intrinsics, count: 9), r = try numbers(Key.reference, count: 2)
        guard k[0] > 0, k[4] > 0, r[0] > 0, r[1] > 0 else {
            throw AVError.decode("the camera calibration's focal lengths and reference dimensions must be positive")
        }
        let e = metadata.tag(at: Key.extrinsics) == nil ? [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0] : try numbers(Key.extrinsics, count: 12)
        let c = metadata.tag(at: Key.center) == nil ? [0, 0] : try numbers(Key.center, count: 2)
        let pixelSize = metadata.tag(at: Key.pixelSize).flatMap { ($0.value as? String).flatMap(Float.init) } ?? 0
        func table(_ path: String) throws -> Data? {
            guard let tag = metadata.tag(at: path) else { return nil }
            guard let text = tag.value as? String, let data = Data(base64Encoded: text), data.count % 4 == 0 else {
                throw AVError.decode("the camera calibration's \(path) is not base64 of Float values")
            }
            return data
        }
        func column(_ v: [Float], _ i: Int) -> SIMD3<Float> { SIMD3(v[3 * i], v[3 * i + 1], v[3 * i + 2]) }
        return AVCameraCalibrationData(
            intrinsicMatrix: matrix_float3x3(column(k, 0), column(k, 1), column(k, 2)),
            intrinsicMatrixReferenceDimensions: CGSize(width: CGFloat(r[0]), height: CGFloat(r[1])),
            extrinsicMatrix: matrix_float4x3(column(e, 0), column(e, 1), column(e, 2), column(e, 3)), pixelSize: pixelSize,
            lensDistortionCenter: CGPoint(x: CGFloat(c[0]), y: CGFloat(c[1])), lensDistortionLookupTable: try table(Key.table),
            inverseLensDistortionLookupTable: try table(Key.inverse))
    }

    /// The calibration in Apple's `depthData` tags, as its portrait JPEGs carry it (`IntrinsicMatrix`: nine numbers
    /// column by column; `IntrinsicMatrixReferenceWidth` and `…Height`; optional `ExtrinsicMatrix` (twelve, column by
    /// column), `PixelSize` in millimetres, `LensDistortionCenterOffsetX` and `…Y`), nil without an intrinsic matrix.
    static func readApple(from metadata: CGImageMetadata) throws -> AVCameraCalibrationData? {
        func value(_ name: String) -> Any? { metadata.tag(namespace: XMPNamespaces.depthData, name: name)?.value }
        guard let matrix = value("IntrinsicMatrix") else { return nil }
        func numbers(_ name: String, _ raw: Any?, count: Int) throws -> [Float] {
            let items = (raw as? [String]) ?? []
            let values = items.compactMap { Float($0.trimmingCharacters(in: .whitespaces)) }
            guard values.count == count, values.count == items.count, values.allSatisfy(\.isFinite) else {
                throw AVError.decode("depthData:\(name) must be \(count) finite numbers, not \(raw ?? "nothing")")
            }
            return values
        }
        func scalar(_ name: String) throws -> Float? {
            guard let raw = value(name) else { return nil }
            guard let text = raw as? String, let v = Float(text.trimmingCharacters(in: .whitespaces)), v.isFinite else {
                throw AVError.decode("depthData:\(name) must be a finite number, not \(raw)")
            }
            return v
        }
        let k = try numbers("IntrinsicMatrix", matrix, count: 9)
        guard let width = try scalar("IntrinsicMatrixReferenceWidth"), let height = try scalar("IntrinsicMatrixReferenceHeight"),
            k[0] > 0, k[4] > 0, width > 0, height > 0
        else {
            throw AVError.decode("depthData:IntrinsicMatrix needs positive focal lengths and reference dimensions")
        }
        let e = try value("ExtrinsicMatrix").map { try numbers("ExtrinsicMatrix", $0, count: 12) } ?? [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]
        func column(_ v: [Float], _ i: Int) -> SIMD3<Float> { SIMD3(v[3 * i], v[3 * i + 1], v[3 * i + 2]) }
        return AVCameraCalibrationData(
            intrinsicMatrix: matrix_float3x3(column(k, 0), column(k, 1), column(k, 2)),
            intrinsicMatrixReferenceDimensions: CGSize(width: CGFloat(width), height: CGFloat(height)),
            extrinsicMatrix: matrix_float4x3(column(e, 0), column(e, 1), column(e, 2), column(e, 3)),
            pixelSize: try scalar("PixelSize") ?? 0,
            lensDistortionCenter: CGPoint(
                x: CGFloat(try scalar("LensDistortionCenterOffsetX") ?? 0), y: CGFloat(try scalar("LensDistortionCenterOffsetY") ?? 0)),
            lensDistortionLookupTable: nil, inverseLensDistortionLookupTable: nil)
    }

}

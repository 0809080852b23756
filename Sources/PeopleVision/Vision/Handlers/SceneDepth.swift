import Foundation
import PVImaging
import PVPerception

/// The depth that goes with a handler's image, upright as the image is: metres, and the camera calibration it came
/// with.
struct SceneDepth: Sendable {
    /// Metres over the upright image.
    let map: DepthMap
    /// The depth data's calibration, if any.
    let calibration: AVCameraCalibrationData?
    /// How the depth (and the image) were stored.
    let stored: CGImagePropertyOrientation

    /// The depth of `data`, stored in `orientation` as the image's pixels are; nil when the map is empty or its
    /// accuracy is ``AVDepthData/Accuracy/relative`` (right in order, not in metres: nothing to measure a person by).
    init?(_ data: AVDepthData, storedIn orientation: CGImagePropertyOrientation) {
        guard data.depthDataAccuracy == .absolute else { return nil }
        let (width, height, values) = data.applyingExifOrientation(orientation).metres()
        guard let map = DepthMap(width: width, height: height, values: values) else { return nil }
        self.map = map
        calibration = data.cameraCalibrationData
        stored = orientation
    }

    /// The calibration's intrinsics in pixels of the upright `width × height` image (principal point from the
    /// top-left): scaled from the calibration's reference dimensions to the stored image's size, then turned as
    /// the image was. Nil without a calibration, or when the reference dimensions do not have the stored image's
    /// aspect ratio (within 2 %: then they describe another crop of the sensor).
    func intrinsics(width: Int, height: Int) -> CameraIntrinsics? {
        guard let calibration else { return nil }
        let swaps = stored.imaging.swapsDimensions
        let sw = Double(swaps ? height : width), sh = Double(swaps ? width : height)
        let rw = Double(calibration.intrinsicMatrixReferenceDimensions.width)
        let rh = Double(calibration.intrinsicMatrixReferenceDimensions.height)
        guard rw > 0, rh > 0, abs(rw / rh - sw / sh) <= 0.02 * sw / sh else { return nil }
        let k = calibration.intrinsicMatrix.columns
        let fx = Double(k.0.x) * sw / rw, fy = Double(k.1.y) * sh / rh
        let x = Double(k.2.x) * sw / rw, y = Double(k.2.y) * sh / rh
        let c: (Double, Double)
        switch stored {
        case .up: c = (x, y)
        case .upMirrored: c = (sw - x, y)
        case .down: c = (sw - x, sh - y)
        case .downMirrored: c = (x, sh - y)
        case .leftMirrored: c = (y, x)
        case .right: c = (sh - y, x)
        case .rightMirrored: c = (sh - y, sw - x)
        case .left: c = (y, sw - x)
        }
        let result = CameraIntrinsics(fx: swaps ? fy : fx, fy: swaps ? fx : fy, cx: c.0, cy: c.1)
        return result.isUsable ? result : nil
    }
}

import Foundation
import PVRender

extension CIImage {
    /// An image of a depth or disparity map, as Core Image's `CIImage(depthData:)`: its values read as grey
    /// (metres or 1/metres in the red, green and blue channels), and ``depthData`` the data itself.
    public convenience init?(depthData data: AVDepthData) {
        self.init(depthData: data, options: nil)
    }

    /// As ``init(depthData:)``, as Core Image's `CIImage(depthData:options:)`; only ``CIImageOption/properties``
    /// is used.
    public convenience init?(depthData data: AVDepthData, options: [CIImageOption: Any]?) {
        let map = data.depthDataMap
        var info = ImageFileInfo(options: options)
        info.depthData = data
        self.init(
            node: .source(ImageSource(storage: .cvPixelBuffer(map), premultiplied: true)),
            extent: CGRect(x: 0, y: 0, width: map.width, height: map.height), info: info)
    }

    /// The depth data this image was made from (``init(depthData:)``) or read with
    /// (``CIImageOption/auxiliaryDepth`` / ``CIImageOption/auxiliaryDisparity``), else nil, as Core Image's
    /// `depthData`. Images derived from it (transformed, filtered) have none.
    public var depthData: AVDepthData? { info.depthData }
}

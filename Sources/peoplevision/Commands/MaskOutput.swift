import Foundation
import PeopleVision
import PVImaging

/// Writes a one-component mask buffer as PNG: 8-bit grey for OneComponent8, 16-bit grey for half/float (0…1).
func writeMaskPNG(_ mask: CVPixelBuffer, to url: URL) throws {
    try ImageEncoder.write(mask.pixelBuffer, to: url, as: .png)
}

import Foundation
import PeopleVision
import PVImaging
import PVTestSupport
import Testing

/// `CIFilter.personSegmentation()`: Core Image's front end to the person-segmentation request.
@Suite struct PersonSegmentationFilterTests {
    @Test(arguments: [0, 1, 2])
    func redMaskAtTheImageExtent(level: Int) throws {
        let image = try #require(CIImage(contentsOf: try TestFiles.installed("astronaut.png")))
        let filter = CIFilter.personSegmentation()
        filter.inputImage = image
        filter.qualityLevel = level
        let mask = try #require(filter.outputImage)
        #expect(mask.extent == image.extent)
        let rendered = try #require(CIContext().createCGImage(mask, from: mask.extent))
        let rgba = try rendered.buffer.converted(to: .rgba32)
        func pixel(_ x: Int, _ y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
            rgba.withUnsafeBytes { p in
                let o = y * rgba.bytesPerRow() + 4 * x
                return (p[o], p[o + 1], p[o + 2])
            }
        }
        // Face (top-left origin 240, 110) is person; the top-left corner is background; green and blue stay 0.
        #expect(pixel(240, 110).r > 200)
        #expect(pixel(5, 5).r < 30)
        #expect(pixel(240, 110).g == 0 && pixel(240, 110).b == 0)
    }

    @Test func badQualityLevelGivesNoOutput() throws {
        let image = try #require(CIImage(contentsOf: try TestFiles.installed("astronaut.png")))
        let filter = CIFilter.personSegmentation()
        filter.inputImage = image
        filter.qualityLevel = 7
        #expect(filter.outputImage == nil)
    }
}

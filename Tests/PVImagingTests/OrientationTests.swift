import Foundation
import Testing

@testable import PVImaging

@Suite struct OrientationTests {
    /// Each orientation on a 3×2 image of distinct values, written out by hand
    /// (stored rows: [1 2 3] / [4 5 6]).
    static let expected: [Orientation: [[UInt8]]] = [
        .up: [[1, 2, 3], [4, 5, 6]],
        .upMirrored: [[3, 2, 1], [6, 5, 4]],
        .down: [[6, 5, 4], [3, 2, 1]],
        .downMirrored: [[4, 5, 6], [1, 2, 3]],
        .leftMirrored: [[1, 4], [2, 5], [3, 6]],
        .right: [[4, 1], [5, 2], [6, 3]],  // rotated 90° clockwise
        .rightMirrored: [[6, 3], [5, 2], [4, 1]],
        .left: [[3, 6], [2, 5], [1, 4]],  // rotated 90° counter-clockwise
    ]

    @Test("hand-computed 3×2 results", arguments: Orientation.allCases)
    func handComputed(orientation: Orientation) throws {
        var image = try PixelBuffer(width: 3, height: 2, format: .oneComponent8)
        let row = image.bytesPerRow()
        image.withUnsafeMutableBytes { bytes in
            for y in 0..<2 { for x in 0..<3 { bytes[y * row + x] = UInt8(1 + y * 3 + x) } }
        }
        let result = try image.applying(orientation)
        let rows = (0..<result.height).map { y in (0..<result.width).map { x in UInt8(CodecFixtures.pixel(result, x, y)[0]) } }
        #expect(rows == Self.expected[orientation]!)
    }

    static let formats: [PixelFormat] = [
        .oneComponent8, .oneComponent16Half, .oneComponent32Float, .rgb24, .rgba32, .bgra32, .argb32,
    ]

    @Test("every single-plane format, inverse restores", arguments: formats, Orientation.allCases)
    func allFormats(format: PixelFormat, orientation: Orientation) throws {
        let image = try CodecFixtures.noise(width: 67, height: 45, format: format, seed: 3)
        let turned = try image.applying(orientation)
        let size = orientation.orientedSize(width: 67, height: 45)
        #expect(turned.width == size.width && turned.height == size.height && turned.format == format)
        for (x, y) in [(0, 0), (66, 0), (0, 44), (66, 44), (31, 17), (5, 40)] {
            let at = orientation.orientedPoint(x: x, y: y, width: 67, height: 45)
            #expect(CodecFixtures.rawPixel(turned, at.x, at.y) == CodecFixtures.rawPixel(image, x, y))
        }
        #expect(CodecFixtures.identical(try turned.applying(orientation.inverse), image))
    }

    @Test func largeTilesMatchPointMapping() throws {
        // Larger than one 64×64 tile in both directions, odd sizes.
        let image = try CodecFixtures.noise(width: 131, height: 77, format: .rgba32, seed: 5)
        for orientation in Orientation.allCases {
            let turned = try image.applying(orientation)
            for y in 0..<77 {
                for x in stride(from: y % 3, to: 131, by: 3) {
                    let at = orientation.orientedPoint(x: x, y: y, width: 131, height: 77)
                    guard CodecFixtures.rawPixel(turned, at.x, at.y) == CodecFixtures.rawPixel(image, x, y) else {
                        Issue.record("\(orientation) moved (\(x), \(y)) wrongly")
                        return
                    }
                }
            }
        }
    }

    @Test func upReturnsSameStorageAndYUVIsRefused() throws {
        let image = try CodecFixtures.gray(width: 8, height: 8)
        #expect(try image.applying(.up).sharesStorage(with: image))
        let yuv = try PixelBuffer(width: 8, height: 8, format: .yuv420BiPlanarFullRange)
        CodecFixtures.expectError(.unsupportedPixelFormat) { try yuv.applying(.right) }
    }

    @Test func exifValuesAndInverses() {
        #expect(Orientation(exifValue: 0) == nil && Orientation(exifValue: 9) == nil)
        #expect(Orientation.allCases.map(\.rawValue) == Array(1...8))
        #expect(Orientation.right.inverse == .left && Orientation.left.inverse == .right)
        for o in Orientation.allCases { #expect(o.inverse.inverse == o) }
        #expect(Orientation.allCases.filter(\.swapsDimensions) == [.leftMirrored, .right, .rightMirrored, .left])
    }
}

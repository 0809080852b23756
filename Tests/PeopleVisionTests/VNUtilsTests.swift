import Foundation
import PVTestSupport
import PeopleVision
import Testing

/// Vision's coordinate helper functions: scaling without a y flip, region-of-interest variants, face landmarks.
@Suite struct VNUtilsTests {
    static func close(_ a: CGPoint, _ b: CGPoint, _ tolerance: CGFloat = 1e-9) -> Bool {
        abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
    }

    static func close(_ a: CGRect, _ b: CGRect, _ tolerance: CGFloat = 1e-9) -> Bool {
        close(a.origin, b.origin, tolerance) && abs(a.width - b.width) <= tolerance && abs(a.height - b.height) <= tolerance
    }

    @Test func scalingKeepsTheLowerLeftOrigin() {
        #expect(VNImageRectForNormalizedRect(CGRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4), 100, 50)
            == CGRect(x: 10, y: 10, width: 30, height: 20))
        #expect(VNImagePointForNormalizedPoint(CGPoint(x: 0.25, y: 0.75), 640, 480) == CGPoint(x: 160, y: 360))
        #expect(VNNormalizedRectForImageRect(CGRect(x: 10, y: 10, width: 30, height: 20), 100, 50)
            == CGRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4))
        #expect(VNNormalizedPointForImagePoint(CGPoint(x: 160, y: 360), 640, 480) == CGPoint(x: 0.25, y: 0.75))
        // Non-integral pixel positions are kept, not rounded.
        #expect(VNImagePointForNormalizedPoint(CGPoint(x: 0.5, y: 0.5), 3, 3) == CGPoint(x: 1.5, y: 1.5))
    }

    @Test func roundTripsThroughPixels() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let w = Int.random(in: 1...4000, using: &generator), h = Int.random(in: 1...4000, using: &generator)
            let r = CGRect(
                x: .random(in: -0.5...1, using: &generator), y: .random(in: -0.5...1, using: &generator),
                width: .random(in: 0...1.5, using: &generator), height: .random(in: 0...1.5, using: &generator))
            #expect(Self.close(VNNormalizedRectForImageRect(VNImageRectForNormalizedRect(r, w, h), w, h), r))
            let roi = CGRect(x: 0.2, y: 0.1, width: 0.5, height: 0.7)
            #expect(Self.close(
                VNNormalizedRectForImageRectUsingRegionOfInterest(
                    VNImageRectForNormalizedRectUsingRegionOfInterest(r, w, h, roi), w, h, roi), r))
            #expect(Self.close(
                VNNormalizedPointForImagePointUsingRegionOfInterest(
                    VNImagePointForNormalizedPointUsingRegionOfInterest(r.origin, w, h, roi), w, h, roi), r.origin))
        }
    }

    @Test func regionOfInterestVariantsMeasureInsideTheRegion() {
        // The right half of a 200 × 100 image: its centre is the pixel (150, 50).
        let right = CGRect(x: 0.5, y: 0, width: 0.5, height: 1)
        #expect(VNImagePointForNormalizedPointUsingRegionOfInterest(CGPoint(x: 0.5, y: 0.5), 200, 100, right)
            == CGPoint(x: 150, y: 50))
        #expect(VNImageRectForNormalizedRectUsingRegionOfInterest(VNNormalizedIdentityRect, 200, 100, right)
            == CGRect(x: 100, y: 0, width: 100, height: 100))
        #expect(VNNormalizedPointForImagePointUsingRegionOfInterest(CGPoint(x: 100, y: 25), 200, 100, right)
            == CGPoint(x: 0, y: 0.25))
        // With the identity region they are the plain functions.
        let r = CGRect(x: 0.3, y: 0.1, width: 0.2, height: 0.6)
        #expect(VNImageRectForNormalizedRectUsingRegionOfInterest(r, 640, 480, VNNormalizedIdentityRect)
            == VNImageRectForNormalizedRect(r, 640, 480))
    }

    @Test func identityRect() {
        #expect(VNNormalizedIdentityRect == CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(VNNormalizedRectIsIdentityRect(CGRect(x: 0, y: 0, width: 1, height: 1)))
        #expect(!VNNormalizedRectIsIdentityRect(CGRect(x: 0, y: 0, width: 1, height: 0.999)))
    }

    @Test func faceLandmarkPointsMapAsTheRegionDoes() throws {
        let request = VNDetectFaceLandmarksRequest()
        try VNImageRequestHandler(url: try TestFiles.installed("astronaut.png")).perform([request])
        let face = try #require(request.results?.first)
        let all = try #require(face.landmarks?.allPoints)
        let inImage = all.pointsInImage(imageSize: CGSize(width: 512, height: 512))
        let box = VNImageRectForNormalizedRect(face.boundingBox, 512, 512)
        for (n, p) in zip(all.normalizedPoints, inImage) {
            let landmark = vector_float2(Float(n.x), Float(n.y))
            #expect(Self.close(VNImagePointForFaceLandmarkPoint(landmark, face.boundingBox, 512, 512), p, 1e-3))
            // In the face box's own pixels: the same point measured from the box's lower-left corner.
            let inBox = VNNormalizedFaceBoundingBoxPointForLandmarkPoint(landmark, face.boundingBox, 512, 512)
            #expect(Self.close(CGPoint(x: box.minX + inBox.x, y: box.minY + inBox.y), p, 1e-3))
        }
    }
}

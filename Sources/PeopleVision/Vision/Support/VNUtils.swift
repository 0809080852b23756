import Foundation

// Vision's coordinate helper functions (Apple's VNUtils). Normalized coordinates run 0…1 over the image with the
// origin at the lower left; image coordinates are pixels with the same lower-left origin: none of these functions
// flips the y axis.

/// A two-component float vector, as the simd type of the same name (a face landmark point).
public typealias vector_float2 = SIMD2<Float>

/// The normalized rectangle covering the whole image: (0, 0, 1, 1).
public let VNNormalizedIdentityRect = CGRect(x: 0, y: 0, width: 1, height: 1)

/// Whether `normalizedRect` is exactly ``VNNormalizedIdentityRect``.
public func VNNormalizedRectIsIdentityRect(_ normalizedRect: CGRect) -> Bool {
    normalizedRect == VNNormalizedIdentityRect
}

/// A normalized point in the pixel coordinates of an `imageWidth` × `imageHeight` image (lower-left origin, not
/// rounded).
public func VNImagePointForNormalizedPoint(_ normalizedPoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int) -> CGPoint {
    CGPoint(x: normalizedPoint.x * CGFloat(imageWidth), y: normalizedPoint.y * CGFloat(imageHeight))
}

/// A normalized rectangle in the pixel coordinates of an `imageWidth` × `imageHeight` image (lower-left origin, not
/// rounded).
public func VNImageRectForNormalizedRect(_ normalizedRect: CGRect, _ imageWidth: Int, _ imageHeight: Int) -> CGRect {
    let w = CGFloat(imageWidth), h = CGFloat(imageHeight)
    return CGRect(
        x: normalizedRect.origin.x * w, y: normalizedRect.origin.y * h, width: normalizedRect.size.width * w,
        height: normalizedRect.size.height * h)
}

/// A point in an `imageWidth` × `imageHeight` image's pixels, normalized. A zero-sized image gives non-finite
/// coordinates, as a division by zero does.
public func VNNormalizedPointForImagePoint(_ imagePoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int) -> CGPoint {
    CGPoint(x: imagePoint.x / CGFloat(imageWidth), y: imagePoint.y / CGFloat(imageHeight))
}

/// A rectangle in an `imageWidth` × `imageHeight` image's pixels, normalized.
public func VNNormalizedRectForImageRect(_ imageRect: CGRect, _ imageWidth: Int, _ imageHeight: Int) -> CGRect {
    let w = CGFloat(imageWidth), h = CGFloat(imageHeight)
    return CGRect(
        x: imageRect.origin.x / w, y: imageRect.origin.y / h, width: imageRect.size.width / w,
        height: imageRect.size.height / h)
}

/// A point normalized to a region of interest (itself normalized to the image), in the image's pixels.
public func VNImagePointForNormalizedPointUsingRegionOfInterest(
    _ normalizedPoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int, _ roi: CGRect
) -> CGPoint {
    VNImagePointForNormalizedPoint(
        CGPoint(x: roi.origin.x + normalizedPoint.x * roi.size.width, y: roi.origin.y + normalizedPoint.y * roi.size.height),
        imageWidth, imageHeight)
}

/// A rectangle normalized to a region of interest (itself normalized to the image), in the image's pixels.
public func VNImageRectForNormalizedRectUsingRegionOfInterest(
    _ normalizedRect: CGRect, _ imageWidth: Int, _ imageHeight: Int, _ roi: CGRect
) -> CGRect {
    VNImageRectForNormalizedRect(
        CGRect(
            x: roi.origin.x + normalizedRect.origin.x * roi.size.width,
            y: roi.origin.y + normalizedRect.origin.y * roi.size.height,
            width: normalizedRect.size.width * roi.size.width, height: normalizedRect.size.height * roi.size.height),
        imageWidth, imageHeight)
}

/// A point in the image's pixels, normalized to a region of interest (itself normalized to the image).
public func VNNormalizedPointForImagePointUsingRegionOfInterest(
    _ imagePoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int, _ roi: CGRect
) -> CGPoint {
    let p = VNNormalizedPointForImagePoint(imagePoint, imageWidth, imageHeight)
    return CGPoint(x: (p.x - roi.origin.x) / roi.size.width, y: (p.y - roi.origin.y) / roi.size.height)
}

/// A rectangle in the image's pixels, normalized to a region of interest (itself normalized to the image).
public func VNNormalizedRectForImageRectUsingRegionOfInterest(
    _ imageRect: CGRect, _ imageWidth: Int, _ imageHeight: Int, _ roi: CGRect
) -> CGRect {
    let r = VNNormalizedRectForImageRect(imageRect, imageWidth, imageHeight)
    return CGRect(
        x: (r.origin.x - roi.origin.x) / roi.size.width, y: (r.origin.y - roi.origin.y) / roi.size.height,
        width: r.size.width / roi.size.width, height: r.size.height / roi.size.height)
}

/// A face landmark point (normalized to the face's bounding box, as ``VNFaceLandmarkRegion2D`` gives it) in the
/// pixels of the image the face was found in; the same as ``VNFaceLandmarkRegion2D/pointsInImage(imageSize:)``.
///
/// - Parameters:
///   - faceLandmarkPoint: one of a region's normalized points.
///   - faceBoundingBox: the face observation's normalized bounding box.
///   - imageWidth: the image's width in pixels.
///   - imageHeight: the image's height in pixels.
public func VNImagePointForFaceLandmarkPoint(
    _ faceLandmarkPoint: vector_float2, _ faceBoundingBox: CGRect, _ imageWidth: Int, _ imageHeight: Int
) -> CGPoint {
    let inBox = VNNormalizedFaceBoundingBoxPointForLandmarkPoint(faceLandmarkPoint, faceBoundingBox, imageWidth, imageHeight)
    let origin = VNImagePointForNormalizedPoint(faceBoundingBox.origin, imageWidth, imageHeight)
    return CGPoint(x: origin.x + inBox.x, y: origin.y + inBox.y)
}

/// A face landmark point in the face bounding box's own pixel coordinates: pixels of the image, measured from the
/// box's lower-left corner.
///
/// - Parameters:
///   - faceLandmarkPoint: one of a region's normalized points.
///   - faceBoundingBox: the face observation's normalized bounding box.
///   - imageWidth: the image's width in pixels.
///   - imageHeight: the image's height in pixels.
public func VNNormalizedFaceBoundingBoxPointForLandmarkPoint(
    _ faceLandmarkPoint: vector_float2, _ faceBoundingBox: CGRect, _ imageWidth: Int, _ imageHeight: Int
) -> CGPoint {
    let box = VNImageRectForNormalizedRect(faceBoundingBox, imageWidth, imageHeight)
    return CGPoint(x: CGFloat(faceLandmarkPoint.x) * box.size.width, y: CGFloat(faceLandmarkPoint.y) * box.size.height)
}

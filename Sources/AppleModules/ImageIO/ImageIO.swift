// The module `ImageIO`, so that code written for Apple platforms keeps `import ImageIO`.
// Apple's ImageIO: `CGImagePropertyOrientation` and the image-file API of `PeopleVision`.
// It re-exports Foundation too: on Linux, Foundation holds the Core Graphics geometry (`CGFloat`, `CGRect`, …)
// that Apple's frameworks bring with them.
@_exported import Foundation
@_exported import PeopleVision

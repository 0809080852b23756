// The module `CoreVideo`, so that code written for Apple platforms keeps `import CoreVideo`.
// Apple's Core Video: `CVPixelBuffer` and its functions and constants, from `PeopleVision`.
// It re-exports Foundation too: on Linux, Foundation holds the Core Graphics geometry (`CGFloat`, `CGRect`, …)
// that Apple's frameworks bring with them.
@_exported import Foundation
@_exported import PeopleVision

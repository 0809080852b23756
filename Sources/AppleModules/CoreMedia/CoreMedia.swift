// The module `CoreMedia`, so that code written for Apple platforms keeps `import CoreMedia`.
// Apple's Core Media: `CMTime` and the other media types of `PeopleVision`.
// It re-exports Foundation too: on Linux, Foundation holds the Core Graphics geometry (`CGFloat`, `CGRect`, …)
// that Apple's frameworks bring with them.
@_exported import Foundation
@_exported import PeopleVision

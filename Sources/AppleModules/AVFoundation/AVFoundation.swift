// The module `AVFoundation`, so that code written for Apple platforms keeps `import AVFoundation`.
// Apple's AVFoundation brings Core Media and Core Video with it; here, all of `PeopleVision`.
// It re-exports Foundation too: on Linux, Foundation holds the Core Graphics geometry (`CGFloat`, `CGRect`, …)
// that Apple's frameworks bring with them.
@_exported import Foundation
@_exported import PeopleVision

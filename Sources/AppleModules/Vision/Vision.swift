// The module `Vision`, so that code written for Apple platforms keeps `import Vision`.
// Apple's Vision: the requests, handlers and observations of `PeopleVision`.
// It re-exports Foundation too: on Linux, Foundation holds the Core Graphics geometry (`CGFloat`, `CGRect`, …)
// that Apple's frameworks bring with them.
@_exported import Foundation
@_exported import PeopleVision

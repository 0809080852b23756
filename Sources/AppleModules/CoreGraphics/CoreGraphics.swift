// The module `CoreGraphics`, so that code written for Apple platforms keeps `import CoreGraphics`.
// Apple's Core Graphics: `CGImage`, `CGColorSpace`, … of `PeopleVision`, and Foundation's geometry.
// It re-exports Foundation too: on Linux, Foundation holds the Core Graphics geometry (`CGFloat`, `CGRect`, …)
// that Apple's frameworks bring with them.
@_exported import Foundation
@_exported import PeopleVision

// The module `CoreML`, so that code written for Apple platforms keeps `import CoreML`.
// Apple's Core ML: the Core ML types of `PeopleVision` that Vision code meets.
// It re-exports Foundation too: on Linux, Foundation holds the Core Graphics geometry (`CGFloat`, `CGRect`, …)
// that Apple's frameworks bring with them.
@_exported import Foundation
@_exported import PeopleVision

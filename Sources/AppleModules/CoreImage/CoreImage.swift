// The module `CoreImage`, so that code written for Apple platforms keeps `import CoreImage`.
// Apple's Core Image: `CIImage`, `CIFilter`, `CIContext`, … of `PeopleVision`. `import CoreImage.CIFilterBuiltins`
// works too: the target `CoreImageSubmodules` declares that clang submodule, and this module is its overlay.
// It re-exports Foundation too: on Linux, Foundation holds the Core Graphics geometry (`CGFloat`, `CGRect`, …)
// that Apple's frameworks bring with them.
@_exported import Foundation
@_exported import PeopleVision

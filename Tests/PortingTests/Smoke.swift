import CoreImage.CIFilterBuiltins
import Testing
@Test func smoke() { #expect(CIFilter.blendWithRedMask().inputImage == nil) }

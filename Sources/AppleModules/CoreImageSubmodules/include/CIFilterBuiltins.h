// Core Image's builtin filters (`CIFilter.blendWithMask()`, …) are Swift API of the overlay `CoreImage`; this header
// only gives the submodule `CoreImage.CIFilterBuiltins` a body.

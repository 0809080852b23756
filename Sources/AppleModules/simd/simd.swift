// The module `simd`, so that code written for Apple platforms keeps `import simd`.
// Apple's `simd` module: the `simd_` matrix and vector types of `PeopleVision` (the toolchain has no `simd` module on
// Linux). Unlike the framework modules, Apple's `simd` does not make Foundation visible, and neither does this one.
@_exported import PeopleVision

// Swift Testing's cross-import overlay for CoreGraphics. The toolchain's Testing module declares that a file
// importing both Testing and CoreGraphics also imports `_Testing_CoreGraphics` (on Apple platforms: image attachments),
// and such a file does not compile where that module is missing. Here it only re-exports Testing. Test
// targets depend on the product `TestingOverlays`, so applications never link Testing.
@_exported public import Testing

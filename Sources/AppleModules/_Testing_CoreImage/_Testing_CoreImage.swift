// Swift Testing's cross-import overlay for CoreImage. The toolchain's Testing module declares that a file
// importing both Testing and CoreImage also imports `_Testing_CoreImage` (on Apple platforms: image attachments),
// and such a file does not compile where that module is missing. Here it only re-exports Testing. Test
// targets depend on the product `TestingOverlays`, so applications never link Testing.
@_exported public import Testing

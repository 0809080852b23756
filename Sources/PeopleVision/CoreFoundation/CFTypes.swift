import Foundation

// Core Foundation's types as the C-style Core Video, Core Media and ImageIO functions name them.
//
// Linux's Foundation does not export Core Foundation, and Swift on Linux cannot bridge Swift values to
// Core Foundation objects with `as`. Each type is therefore an alias of the Swift or Foundation type
// Apple's would bridge to, which keeps the casts apps write compiling unchanged:
// `url as CFURL`, `"public.jpeg" as CFString`, `[kCGImagePropertyOrientation: 6] as CFDictionary`,
// `CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any]`.

/// A string constant or type identifier, as Core Foundation's `CFString` (here a Swift `String`).
public typealias CFString = String
/// A property or attribute dictionary, as Core Foundation's `CFDictionary` (here a Swift dictionary
/// whose keys are usually `CFString`s).
public typealias CFDictionary = [AnyHashable: Any]
/// An array, as Core Foundation's `CFArray` (here `NSArray`, whose elements keep reference semantics).
public typealias CFArray = NSArray
/// Immutable bytes, as Core Foundation's `CFData` (here `Data`).
public typealias CFData = Data
/// Growable bytes written in place, as Core Foundation's `CFMutableData` (here `NSMutableData`).
public typealias CFMutableData = NSMutableData
/// A file URL, as Core Foundation's `CFURL` (here `URL`).
public typealias CFURL = URL
/// A Boolean object, as Core Foundation's `CFBoolean` (here `NSNumber`).
public typealias CFBoolean = NSNumber
/// A count or index, as Core Foundation's `CFIndex`.
public typealias CFIndex = Int
/// A type's identifier, as Core Foundation's `CFTypeID`.
public typealias CFTypeID = UInt
/// A result code, as the Core Services `OSStatus` (0 is success).
public typealias OSStatus = Int32
/// A four-character code, as the Core Services `FourCharCode`.
public typealias FourCharCode = UInt32

/// The success result, as the Core Services `noErr`.
public var noErr: Int { 0 }

/// The `true` object, as Core Foundation's `kCFBooleanTrue`.
public var kCFBooleanTrue: CFBoolean! { NSNumber(value: true) }
/// The `false` object, as Core Foundation's `kCFBooleanFalse`.
public var kCFBooleanFalse: CFBoolean! { NSNumber(value: false) }

/// A memory allocator, as Core Foundation's `CFAllocator`.
///
/// Every function that takes one accepts `nil` or ``kCFAllocatorDefault`` and allocates with the
/// system allocator; no other allocator can be made.
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator, as Core Foundation's `kCFAllocatorDefault` (`nil`, as on Apple platforms).
public let kCFAllocatorDefault: CFAllocator! = nil

/// An error, as Core Foundation's `CFError` (here `NSError`, with its domain, code and user info).
public typealias CFError = NSError

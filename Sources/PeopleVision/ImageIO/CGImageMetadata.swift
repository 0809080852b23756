import Foundation

/// The kind of value a metadata tag holds, as ImageIO's `CGImageMetadataType`.
public enum CGImageMetadataType: Int32, Sendable {
    /// Not a valid type.
    case invalid = -1
    /// Let the value decide (a string, a number or a Boolean is stored as text; an array as an ordered array).
    case `default` = 0
    /// Text.
    case string = 1
    /// An unordered array (`rdf:Bag`).
    case arrayUnordered = 2
    /// An ordered array (`rdf:Seq`).
    case arrayOrdered = 3
    /// Alternatives (`rdf:Alt`).
    case alternateArray = 4
    /// Alternative texts by language (stored here as plain alternatives).
    case alternateText = 5
    /// A structure (not supported here: creating a tag of this type fails).
    case structure = 6
}

/// One XMP property, as ImageIO's `CGImageMetadataTag`: a namespace, a prefix, a name, and a value that is text
/// or an array of texts. Immutable.
public final class CGImageMetadataTag: @unchecked Sendable {
    let namespace: String
    let prefix: String
    let name: String
    let type: CGImageMetadataType
    /// A `String`, or `[String]` for the array types.
    let value: Any

    init(namespace: String, prefix: String, name: String, type: CGImageMetadataType, value: Any) {
        self.namespace = namespace
        self.prefix = prefix
        self.name = name
        self.type = type
        self.value = value
    }

    /// `prefix:name`.
    var path: String { "\(prefix):\(name)" }
}

/// XMP metadata, as ImageIO's `CGImageMetadata`: properties by `prefix:name` path, and the namespaces their
/// prefixes stand for.
///
/// The subset an auxiliary depth image's description uses: top-level properties whose values are text (numbers
/// and Booleans are written as text, as XMP stores them) or arrays of text. Paths are `prefix:name`; nested paths
/// (`a:b.c:d`, `a:b[1]`) are not supported and make the setters return false.
///
/// ```swift
/// let metadata = CGImageMetadataCreateMutable()
/// CGImageMetadataRegisterNamespaceForPrefix(metadata, "http://ns.apple.com/depthData/1.0/" as CFString, "depthData" as CFString, nil)
/// CGImageMetadataSetValueWithPath(metadata, nil, "depthData:Accuracy" as CFString, "absolute" as CFTypeRef)
/// ```
public class CGImageMetadata: @unchecked Sendable {
    let lock = NSLock()
    /// Prefix → namespace URI.
    var namespaces: [String: String] = [:]
    /// Tags in the order they were first set.
    var tags: [CGImageMetadataTag] = []

    init() {}

    init(copying other: CGImageMetadata) {
        let (n, t) = other.lock.withLock { (other.namespaces, other.tags) }
        namespaces = n
        tags = t
    }

    /// The tag at `path`, or nil.
    func tag(at path: String) -> CGImageMetadataTag? { lock.withLock { tags.first { $0.path == path } } }

    /// The tag `name` of the namespace `namespace` (whatever prefix the metadata gives it), or nil.
    func tag(namespace: String, name: String) -> CGImageMetadataTag? {
        lock.withLock { tags.first { $0.namespace == namespace && $0.name == name } }
    }

    /// A snapshot of the namespaces and tags.
    var snapshot: (namespaces: [String: String], tags: [CGImageMetadataTag]) { lock.withLock { (namespaces, tags) } }
}

/// Metadata that can be changed, as ImageIO's `CGMutableImageMetadata`.
public final class CGMutableImageMetadata: CGImageMetadata, @unchecked Sendable {
    func register(prefix: String, namespace: String) -> Bool {
        guard Self.isName(prefix), !namespace.isEmpty else { return false }
        return lock.withLock {
            if let known = namespaces[prefix] { return known == namespace }
            namespaces[prefix] = namespace
            return true
        }
    }

    /// Stores `tag` at `path` (replacing any tag there); false for a path that is not `prefix:name`.
    func set(_ tag: CGImageMetadataTag, at path: String) -> Bool {
        guard let (prefix, name) = Self.split(path), prefix == tag.prefix, name == tag.name else { return false }
        lock.withLock {
            namespaces[tag.prefix] = namespaces[tag.prefix] ?? tag.namespace
            if let index = tags.firstIndex(where: { $0.path == path }) { tags[index] = tag } else { tags.append(tag) }
        }
        return true
    }

    func namespace(of prefix: String) -> String? { lock.withLock { namespaces[prefix] } }

    /// `(prefix, name)` of a `prefix:name` path.
    static func split(_ path: String) -> (String, String)? {
        let parts = path.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, isName(String(parts[0])), isName(String(parts[1])) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// An XML name without a colon: letters, digits, `_`, `-`, `.`, not starting with a digit, `-` or `.`.
    static func isName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0) }
    }
}

/// A tag's value as stored: text for a string, number or Boolean, an array of texts for an array; nil otherwise.
func metadataText(_ value: Any) -> Any? {
    switch value {
    case let s as String: return s
    case let s as NSString: return String(describing: s)
    case let b as Bool: return b ? "True" : "False"
    case let n as NSNumber: return n.stringValue
    case let i as Int: return String(i)
    case let d as Double: return String(d)
    case let f as Float: return String(f)
    case let a as [Any]:
        let texts = a.compactMap { metadataText($0) as? String }
        return texts.count == a.count ? texts : nil
    case let a as NSArray: return metadataText(a.map { $0 })
    default: return nil
    }
}

/// Empty mutable metadata, as ImageIO's `CGImageMetadataCreateMutable`.
public func CGImageMetadataCreateMutable() -> CGMutableImageMetadata { CGMutableImageMetadata() }

/// A mutable copy, as ImageIO's `CGImageMetadataCreateMutableCopy`.
public func CGImageMetadataCreateMutableCopy(_ metadata: CGImageMetadata) -> CGMutableImageMetadata? {
    CGMutableImageMetadata(copying: metadata)
}

/// Binds `prefix` to the namespace URI `xmlns`, as ImageIO's `CGImageMetadataRegisterNamespaceForPrefix`;
/// false (and `err` set when given) for a prefix that is not an XML name or is bound to another namespace.
@discardableResult
public func CGImageMetadataRegisterNamespaceForPrefix(
    _ metadata: CGMutableImageMetadata, _ xmlns: CFString, _ prefix: CFString, _ err: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    guard metadata.register(prefix: prefix, namespace: xmlns) else {
        err?.pointee = Unmanaged.passRetained(
            NSError(domain: "com.apple.ImageIO", code: -1, userInfo: [NSLocalizedDescriptionKey: "cannot bind prefix \(prefix) to \(xmlns)"]))
        return false
    }
    return true
}

/// A tag, as ImageIO's `CGImageMetadataTagCreate`, or nil when the name or prefix is not an XML name, the type is
/// ``CGImageMetadataType/structure`` or ``CGImageMetadataType/invalid``, or the value is not text, a number, a
/// Boolean or (for the array types and `.default`) an array of those. A nil `prefix` is taken as the namespace's
/// usual prefix only where it is one of the namespaces depth images use; otherwise the tag cannot be made.
public func CGImageMetadataTagCreate(
    _ xmlns: CFString, _ prefix: CFString?, _ name: CFString, _ type: CGImageMetadataType, _ value: CFTypeRef
) -> CGImageMetadataTag? {
    guard let prefix = prefix ?? XMPNamespaces.usualPrefix[xmlns], CGMutableImageMetadata.isName(prefix),
        CGMutableImageMetadata.isName(name), !xmlns.isEmpty, type != .structure, type != .invalid,
        let stored = metadataText(value)
    else { return nil }
    let isArray = stored is [String]
    switch type {
    case .string where isArray: return nil
    case .arrayOrdered, .arrayUnordered, .alternateArray, .alternateText:
        let items = stored as? [String] ?? [stored as? String ?? ""]
        return CGImageMetadataTag(namespace: xmlns, prefix: prefix, name: name, type: type, value: items)
    default:
        return CGImageMetadataTag(namespace: xmlns, prefix: prefix, name: name, type: isArray ? .arrayOrdered : .string, value: stored)
    }
}

/// The tag's value (`String`, or `NSArray` of `String`s), as ImageIO's `CGImageMetadataTagCopyValue`.
public func CGImageMetadataTagCopyValue(_ tag: CGImageMetadataTag) -> CFTypeRef? {
    if let items = tag.value as? [String] { return NSArray(array: items) }
    return (tag.value as? String).map { NSString(string: $0) }
}

/// The tag's name, as ImageIO's `CGImageMetadataTagCopyName`.
public func CGImageMetadataTagCopyName(_ tag: CGImageMetadataTag) -> CFString? { tag.name }

/// The tag's prefix, as ImageIO's `CGImageMetadataTagCopyPrefix`.
public func CGImageMetadataTagCopyPrefix(_ tag: CGImageMetadataTag) -> CFString? { tag.prefix }

/// The tag's namespace URI, as ImageIO's `CGImageMetadataTagCopyNamespace`.
public func CGImageMetadataTagCopyNamespace(_ tag: CGImageMetadataTag) -> CFString? { tag.namespace }

/// The tag's type, as ImageIO's `CGImageMetadataTagGetType`.
public func CGImageMetadataTagGetType(_ tag: CGImageMetadataTag) -> CGImageMetadataType { tag.type }

/// Every tag, as ImageIO's `CGImageMetadataCopyTags` (nil when there are none).
public func CGImageMetadataCopyTags(_ metadata: CGImageMetadata) -> CFArray? {
    let tags = metadata.snapshot.tags
    return tags.isEmpty ? nil : NSArray(array: tags)
}

/// The tag at `path` (`prefix:name`), as ImageIO's `CGImageMetadataCopyTagWithPath`. `parent` must be nil here.
public func CGImageMetadataCopyTagWithPath(_ metadata: CGImageMetadata, _ parent: CGImageMetadataTag?, _ path: CFString)
    -> CGImageMetadataTag?
{
    guard parent == nil else { return nil }
    return metadata.tag(at: path)
}

/// The text at `path`, as ImageIO's `CGImageMetadataCopyStringValueWithPath` (nil for an array or a missing tag).
public func CGImageMetadataCopyStringValueWithPath(_ metadata: CGImageMetadata, _ parent: CGImageMetadataTag?, _ path: CFString)
    -> CFString?
{
    CGImageMetadataCopyTagWithPath(metadata, parent, path)?.value as? String
}

/// Stores a tag at `path`, as ImageIO's `CGImageMetadataSetTagWithPath`; false when `parent` is given, the path
/// is not `prefix:name`, or it names another tag than `tag`.
@discardableResult
public func CGImageMetadataSetTagWithPath(
    _ metadata: CGMutableImageMetadata, _ parent: CGImageMetadataTag?, _ path: CFString, _ tag: CGImageMetadataTag
) -> Bool {
    guard parent == nil else { return false }
    return metadata.set(tag, at: path)
}

/// Stores a value at `path`, as ImageIO's `CGImageMetadataSetValueWithPath`: the prefix must be registered
/// (``CGImageMetadataRegisterNamespaceForPrefix(_:_:_:_:)``) or one of the namespaces depth images use. False when
/// `parent` is given, the path is not `prefix:name`, the prefix is unknown or the value cannot be stored.
@discardableResult
public func CGImageMetadataSetValueWithPath(
    _ metadata: CGMutableImageMetadata, _ parent: CGImageMetadataTag?, _ path: CFString, _ value: CFTypeRef
) -> Bool {
    guard parent == nil, let (prefix, name) = CGMutableImageMetadata.split(path),
        let namespace = metadata.namespace(of: prefix) ?? XMPNamespaces.usualPrefix.first(where: { $0.value == prefix })?.key,
        let tag = CGImageMetadataTagCreate(namespace, prefix, name, .default, value)
    else { return false }
    return metadata.set(tag, at: path)
}

/// The metadata as an XMP packet (UTF-8), as ImageIO's `CGImageMetadataCreateXMPData`.
public func CGImageMetadataCreateXMPData(_ metadata: CGImageMetadata, _ options: CFDictionary?) -> CFData? {
    Data(XMPPacket.serialize(metadata).utf8)
}

/// Metadata read from an XMP packet, as ImageIO's `CGImageMetadataCreateFromXMPData`; nil when the data is not
/// an XMP packet this reader understands (UTF-8 RDF whose properties are attributes or elements holding text or
/// `rdf:Seq`/`rdf:Bag`/`rdf:Alt` arrays of text).
public func CGImageMetadataCreateFromXMPData(_ data: CFData) -> CGImageMetadata? {
    guard let text = String(data: data, encoding: .utf8) else { return nil }
    return XMPPacket.parse(text)
}

/// Namespaces the depth descriptions use, with their usual prefixes.
enum XMPNamespaces {
    /// Apple's depth description: `Accuracy`, `Filtered`, `Quality`, `PixelFormat`.
    static let depthData = "http://ns.apple.com/depthData/1.0/"
    /// This package's camera calibration (Apple does not document how its files carry one).
    static let calibration = "http://peoplevision.dev/ns/cameraCalibration/1.0/"

    static let usualPrefix: [String: String] = [depthData: "depthData", calibration: "pvcal"]
}

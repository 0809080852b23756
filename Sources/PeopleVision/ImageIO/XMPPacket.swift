import Foundation

/// Writing and reading the XMP packets of ``CGImageMetadata``: one `rdf:Description`, each property an element
/// holding text or an `rdf:Seq`/`rdf:Bag`/`rdf:Alt` of `rdf:li` texts. Reading also takes properties written as
/// attributes of any `rdf:Description`, as many writers do. No XML library is used (Linux's sits in a module the
/// package does not import); the reader understands the subset above and refuses what it cannot read.
enum XMPPacket {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    static func serialize(_ metadata: CGImageMetadata) -> String {
        let (namespaces, tags) = metadata.snapshot
        var declarations = ""
        for prefix in Set(tags.map(\.prefix)).sorted() {
            declarations += " xmlns:\(prefix)=\"\(escape(namespaces[prefix] ?? ""))\""
        }
        var body = ""
        for tag in tags {
            if let items = tag.value as? [String] {
                let container = tag.type == .arrayUnordered ? "Bag" : tag.type == .arrayOrdered ? "Seq" : "Alt"
                body += "<\(tag.path)><rdf:\(container)>"
                for item in items { body += "<rdf:li>\(escape(item))</rdf:li>" }
                body += "</rdf:\(container)></\(tag.path)>"
            } else {
                body += "<\(tag.path)>\(escape(tag.value as? String ?? ""))</\(tag.path)>"
            }
        }
        return "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"
            + "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"\(rdf)\">"
            + "<rdf:Description rdf:about=\"\"\(declarations)>\(body)</rdf:Description>"
            + "</rdf:RDF></x:xmpmeta><?xpacket end=\"w\"?>"
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func unescape(_ s: Substring) -> String {
        String(s).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// One start, end or empty tag, or a run of text.
    enum Token {
        case start(name: String, attributes: [(String, String)], empty: Bool)
        case end(name: String)
        case text(String)
    }

    /// The packet's tokens; nil when a tag is malformed. Declarations, processing instructions and comments are
    /// skipped.
    static func tokens(_ text: String) -> [Token]? {
        var out: [Token] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            guard let open = rest.firstIndex(of: "<") else {
                out.append(.text(unescape(rest)))
                break
            }
            if open > rest.startIndex { out.append(.text(unescape(rest[..<open]))) }
            rest = rest[open...]
            if rest.hasPrefix("<?") || rest.hasPrefix("<!") {
                let terminator = rest.hasPrefix("<!--") ? "-->" : rest.hasPrefix("<?") ? "?>" : ">"
                guard let end = rest.range(of: terminator) else { return nil }
                rest = rest[end.upperBound...]
                continue
            }
            guard let close = rest.firstIndex(of: ">") else { return nil }
            var inside = rest[rest.index(after: rest.startIndex)..<close]
            rest = rest[rest.index(after: close)...]
            if inside.hasPrefix("/") {
                out.append(.end(name: inside.dropFirst().trimmingCharacters(in: .whitespacesAndNewlines)))
                continue
            }
            let empty = inside.hasSuffix("/")
            if empty { inside = inside.dropLast() }
            guard let (name, attributes) = element(inside) else { return nil }
            out.append(.start(name: name, attributes: attributes, empty: empty))
        }
        return out
    }

    /// The name and attributes of a tag's inside (`name a="v" b='w'`).
    static func element(_ inside: Substring) -> (String, [(String, String)])? {
        var rest = inside.drop { $0.isWhitespace }
        let name = rest.prefix { !$0.isWhitespace }
        guard !name.isEmpty else { return nil }
        rest = rest.dropFirst(name.count)
        var attributes: [(String, String)] = []
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.isEmpty { break }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(of: quote) else { return nil }
            attributes.append((key, unescape(rest[..<end])))
            rest = rest[rest.index(after: end)...]
        }
        return (String(name), attributes)
    }

    /// Metadata from a packet; nil when it is not XMP this reader understands.
    static func parse(_ text: String) -> CGImageMetadata? {
        guard let tokens = tokens(text), text.contains(rdf) else { return nil }
        let metadata = CGMutableImageMetadata()
        var scopes: [[String: String]] = []  // prefix → namespace, per open element
        func namespace(_ prefix: String) -> String? { scopes.reversed().lazy.compactMap { $0[prefix] }.first }
        var index = 0
        var descriptionDepth: Int?
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .start(let name, let attributes, let empty):
                var scope: [String: String] = [:]
                for (key, value) in attributes where key.hasPrefix("xmlns:") { scope[String(key.dropFirst(6))] = value }
                scopes.append(scope)
                if name == "rdf:Description" {
                    for (key, value) in attributes where !key.hasPrefix("xmlns") && !key.hasPrefix("rdf:") {
                        guard add(key, value, to: metadata, namespace: namespace) else { return nil }
                    }
                    if empty { scopes.removeLast() } else { descriptionDepth = scopes.count }
                } else if let depth = descriptionDepth, scopes.count == depth + 1 {
                    // A property element: text, or an array of texts.
                    guard let (value, next) = propertyValue(tokens, from: index, name: name, empty: empty) else { return nil }
                    index = next
                    scopes.removeLast()
                    guard add(name, value, to: metadata, namespace: namespace) else { return nil }
                } else if empty {
                    scopes.removeLast()
                }
            case .end(let name):
                guard !scopes.isEmpty else { return nil }
                if name == "rdf:Description", descriptionDepth == scopes.count { descriptionDepth = nil }
                scopes.removeLast()
            case .text:
                continue
            }
        }
        return metadata
    }

    /// The value of the property element whose start tag was just read, and the index after its end tag.
    static func propertyValue(_ tokens: [Token], from start: Int, name: String, empty: Bool) -> (Any, Int)? {
        if empty { return ("", start) }
        var index = start, text = "", items: [String] = [], inItem = false, isArray = false
        while index < tokens.count {
            defer { index += 1 }
            switch tokens[index] {
            case .text(let t): if inItem || !isArray { text += t }
            case .start(let n, _, let e):
                if n == "rdf:Seq" || n == "rdf:Bag" || n == "rdf:Alt" {
                    isArray = true
                } else if n == "rdf:li" {
                    if e { items.append("") } else { inItem = true; text = "" }
                } else {
                    return nil  // structures are not supported
                }
            case .end(let n):
                if n == "rdf:li" { items.append(text); inItem = false; text = "" }
                if n == name { return (isArray ? items : text.trimmingCharacters(in: .whitespacesAndNewlines), index + 1) }
            }
        }
        return nil
    }

    static func add(_ path: String, _ value: Any, to metadata: CGMutableImageMetadata, namespace: (String) -> String?) -> Bool {
        guard let (prefix, name) = CGMutableImageMetadata.split(path) else { return false }
        guard let uri = namespace(prefix) else { return false }
        guard let tag = CGImageMetadataTagCreate(uri, prefix, name, .default, value as AnyObject) else { return false }
        _ = metadata.register(prefix: prefix, namespace: uri)
        return metadata.set(tag, at: path)
    }
}

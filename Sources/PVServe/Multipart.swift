#if Serve
import Foundation
import HTTPTypes

/// A `multipart/form-data` body (RFC 7578) split into its parts. Small and strict: the whole body is in memory
/// already (bounded by `--max-body-mb`), parts are found by their boundary lines, and only the headers the service
/// reads (`Content-Disposition`'s `name` and `filename`, `Content-Type`) are kept.
struct MultipartForm {
    struct Part {
        let name: String
        let filename: String?
        let contentType: String?
        let data: Data
    }

    let parts: [Part]

    /// The first part named `name`.
    func part(_ name: String) -> Part? { parts.first { $0.name == name } }

    /// The boundary of a `multipart/form-data; boundary=…` content type, nil for any other type.
    static func boundary(contentType: String) -> String? {
        let fields = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.first?.lowercased() == "multipart/form-data" else { return nil }
        for field in fields.dropFirst() where field.lowercased().hasPrefix("boundary=") {
            var value = String(field.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Splits `body` at `boundary`.
    /// - Throws: ``ServeError`` 400 `bad_multipart` when the body is not a well-formed form.
    init(body: Data, boundary: String) throws {
        let bad = { (why: String) in ServeError(.badRequest, "bad_multipart", "the multipart body is malformed: \(why)") }
        let delimiter = Data("--\(boundary)".utf8)
        let bytes = body
        guard var cursor = bytes.range(of: delimiter)?.upperBound else { throw bad("no boundary line") }
        var parts: [Part] = []
        while true {
            // After a delimiter: "--" ends the form, otherwise CRLF and a part follows.
            if bytes[cursor...].starts(with: Data("--".utf8)) { break }
            guard bytes[cursor...].starts(with: Data("\r\n".utf8)) else { throw bad("a boundary line is not followed by CRLF") }
            cursor += 2
            guard let headerEnd = bytes.range(of: Data("\r\n\r\n".utf8), in: cursor..<bytes.endIndex) else {
                throw bad("a part has no end of headers")
            }
            let headers = String(decoding: bytes[cursor..<headerEnd.lowerBound], as: UTF8.self)
            let contentStart = headerEnd.upperBound
            guard let next = bytes.range(of: Data("\r\n--\(boundary)".utf8), in: contentStart..<bytes.endIndex) else {
                throw bad("a part has no closing boundary (truncated upload?)")
            }
            parts.append(try Self.part(headers: headers, data: bytes.subdata(in: contentStart..<next.lowerBound), bad: bad))
            cursor = next.upperBound
        }
        self.parts = parts
    }

    private static func part(headers: String, data: Data, bad: (String) -> ServeError) throws -> Part {
        var name: String?, filename: String?, contentType: String?
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if key == "content-type" { contentType = value }
            guard key == "content-disposition" else { continue }
            for field in value.split(separator: ";").dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                var v = pair[1]
                if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
                if pair[0].lowercased() == "name" { name = v }
                if pair[0].lowercased() == "filename" { filename = v }
            }
        }
        guard let name else { throw bad("a part has no Content-Disposition name") }
        return Part(name: name, filename: filename, contentType: contentType, data: data)
    }
}
#endif

#if Serve
import Foundation
import HTTPTypes
import Hummingbird

/// Query (and form) parameters of the API, parsed with errors that name the parameter.
struct Parameters {
    let query: [String: String]
    let form: MultipartForm?

    init(_ request: Request, form: MultipartForm? = nil) {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        self.query = query
        self.form = form
    }

    /// The parameter's text: a query parameter, else a short form field of that name.
    subscript(_ name: String) -> String? {
        if let value = query[name] { return value }
        if let part = form?.part(name), part.filename == nil, part.data.count <= 1024 { return String(decoding: part.data, as: UTF8.self) }
        return nil
    }

    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default value: T) throws -> T where T.RawValue == String {
        guard let text = self[name] else { return value }
        guard let chosen = T(rawValue: text.lowercased()) else {
            throw ServeError.badParameter(name, "'\(text)' is none of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return chosen
    }

    /// A boolean the way HTML forms and rembg's clients send it: true/false, 1/0, yes/no, on/off.
    func flag(_ name: String) throws -> Bool {
        guard let text = self[name]?.lowercased() else { return false }
        switch text {
        case "1", "true", "yes", "on", "": return true
        case "0", "false", "no", "off": return false
        default: throw ServeError.badParameter(name, "'\(text)' is not a boolean (true or false)")
        }
    }

    /// `#RRGGBB`, `RRGGBB`, or rembg's `R,G,B[,A]` (0–255 each).
    static func color(_ text: String, name: String) throws -> EngineJob.RGBA {
        let bad = ServeError.badParameter(name, "'\(text.prefix(40))' is not a colour: give #RRGGBB or R,G,B,A (0-255 each)")
        if text.contains(",") {
            let fields = text.split(separator: ",", omittingEmptySubsequences: false)
            let v = fields.compactMap { UInt8($0.trimmingCharacters(in: .whitespaces)) }
            guard v.count == fields.count, v.count == 3 || v.count == 4 else { throw bad }
            return EngineJob.RGBA(red: v[0], green: v[1], blue: v[2], alpha: v.count == 4 ? v[3] : 255)
        }
        let hex = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { throw bad }
        return EngineJob.RGBA(red: UInt8(v >> 16 & 0xFF), green: UInt8(v >> 8 & 0xFF), blue: UInt8(v & 0xFF))
    }
}
#endif

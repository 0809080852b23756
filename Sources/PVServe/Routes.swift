#if Serve
import Foundation
import HTTPTypes
import Hummingbird

extension ServeServer {
    /// The engine's routes: `/v1/…` and rembg's `/api/remove`.
    func addEngineRoutes(to router: Router<BasicRequestContext>) {
        router.post("/v1/analyze") { request, _ in
            let names = try analysisNames(Parameters(request)["requests"])
            let upload = try await Upload.read(request, limits: limits, queue: queue)
            return try await answer(upload.image, .analyze(requests: names), name: upload.name)
        }
        router.post("/v1/segment") { request, _ in
            let upload = try await Upload.read(request, limits: limits, queue: queue)
            let p = Parameters(request, form: upload.form)
            return try await answer(upload.image, .segment(quality: try p.choice("quality", default: .accurate), format: try p.choice("format", default: .u8)))
        }
        router.post("/v1/greet") { request, _ in
            let upload = try await Upload.read(request, limits: limits, queue: queue)
            let p = Parameters(request, form: upload.form)
            let background: EngineJob.Background
            if let part = upload.form?.part("background"), part.filename != nil || part.data.count > 1024 {
                try Upload.check(part.data, limits: limits)
                background = .image(part.data)
            } else if let text = p["background"], text.lowercased() != "blur" {
                background = .color(try Parameters.color(text, name: "background"))
            } else if p["background"] == nil {
                throw ServeError.badParameter("background", "give a colour (#RRGGBB), 'blur', or an image as the 'background' part")
            } else {
                background = .blur
            }
            let operation = EngineJob.Operation.greet(
                background: background, quality: try p.choice("quality", default: .accurate), output: try p.choice("format", default: .jpeg))
            return try await answer(upload.image, operation)
        }
        router.post("/v1/cutout") { request, _ in
            let upload = try await Upload.read(request, limits: limits, queue: queue)
            return try await answer(upload.image, .cutout(quality: try Parameters(request, form: upload.form).choice("quality", default: .accurate)))
        }
        router.post("/v1/instances") { request, _ in
            let upload = try await Upload.read(request, limits: limits, queue: queue)
            let p = Parameters(request, form: upload.form)
            let output: EngineJob.InstancesOutput
            switch p["output"]?.lowercased() ?? "labels" {
            case "labels":
                guard p["select"] == nil, p["crop"] == nil else { throw ServeError.badParameter("select", "select and crop choose what output=cutout returns") }
                output = .labels
            case "cutout": output = .cutout(select: try selection(p["select"]), crop: try p.flag("crop"))
            case let other: throw ServeError.badParameter("output", "'\(other)' is none of labels, cutout")
            }
            return try await answer(upload.image, .instances(output: output))
        }
        router.post("/api/remove") { request, _ in
            let upload = try await Upload.read(request, limits: limits, queue: queue)
            let p = Parameters(request, form: upload.form)
            return try await answer(upload.image, .remove(maskOnly: try p.flag("om"), background: try p["bgc"].map { try Parameters.color($0, name: "bgc") }))
        }
        router.get("/api/remove") { request, _ in
            let p = Parameters(request)
            guard configuration.allowURLFetch else {
                throw ServeError(.forbidden, "url_fetch_disabled", "this server does not fetch URLs (start it with --allow-url-fetch); POST the image instead")
            }
            guard let url = p["url"], !url.isEmpty else { throw ServeError.badParameter("url", "missing: give the image's http or https URL") }
            let operation = EngineJob.Operation.remove(maskOnly: try p.flag("om"), background: try p["bgc"].map { try Parameters.color($0, name: "bgc") })
            let image = try await URLFetcher(maxBytes: configuration.maxBodyBytes).fetch(url)
            try Upload.check(image, limits: limits)
            return try await answer(image, operation)
        }
    }

    /// The analyses `requests=` names (all of them when absent); `landmarks` is accepted for `faces`, whose record
    /// carries the landmarks.
    func analysisNames(_ text: String?) throws -> [String] {
        guard let text else { return engine.analysisNames }
        var names: [String] = []
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            var name = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "landmarks" { name = "faces" }
            guard engine.analysisNames.contains(name) else {
                throw ServeError(
                    .badRequest, "unknown_request",
                    "unknown request '\(raw)'; available: \(engine.analysisNames.joined(separator: ", ")), landmarks")
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// `select=1,2` (instance numbers, 0 the background); nil when absent.
    func selection(_ text: String?) throws -> [Int]? {
        guard let text else { return nil }
        return try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
            guard let k = Int(part.trimmingCharacters(in: .whitespaces)), (0...255).contains(k) else {
                throw ServeError.badParameter("select", "give instance numbers such as 1,2 (0 = the background), not '\(part)'")
            }
            return k
        }
    }
}
#endif

#if Serve
import Foundation
import HTTPTypes
import Hummingbird
import Logging

extension ServeServer {
    /// The upload page, the API documents, and the health and metrics endpoints.
    func addPages(to router: Router<BasicRequestContext>) {
        for (path, file, type) in Self.pages {
            router.get(RouterPath(path)) { _, _ in
                guard let data = StaticFiles.data(file) else {
                    throw ServeError(.notFound, "not_installed", "\(file) is not installed beside this binary")
                }
                return Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
            }
        }
        router.get("/healthz") { _, _ in Self.json(.ok, ["status": "ok"]) }
        router.get("/readyz") { _, _ in
            queue.isReady ? Self.json(.ok, ["status": "ready"]) : Self.json(.serviceUnavailable, ["status": "loading models"])
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
        }
    }

    /// Path, resource file, media type.
    static let pages = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/style.css", "style.css", "text/css; charset=utf-8"),
        ("/openapi.json", "openapi.json", "application/json"),
        ("/analyze.schema.json", "analyze.schema.json", "application/schema+json"),
    ]

    static func json(_ status: HTTPResponse.Status, _ object: [String: String]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The files of `Sources/PVServe/Resources`, which SwiftPM copies beside the binary as `PeopleVision_PVServe.resources`.
/// Looked up without `Bundle.module`, which stops the process when the folder is missing: a binary copied elsewhere
/// without it still serves the API, and answers 404 for the pages.
enum StaticFiles {
    static let folder: URL? = {
        let name = "PeopleVision_PVServe.resources"
        var candidates = [Bundle.main.bundleURL.appendingPathComponent(name)]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        }
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Resources"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("openapi.json").path) }
    }()

    static func data(_ file: String) -> Data? {
        guard let folder else { return nil }
        return try? Data(contentsOf: folder.appendingPathComponent(file))
    }
}

/// One structured log line per request (method, path, status, bytes, milliseconds) and its metrics; turns every
/// error into its JSON answer, so that the line and the counters see the status the client gets.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let metrics: ServeMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        var code: String?
        do {
            response = try await next(request, context)
        } catch let error as ServeError {
            response = error.response
            code = error.code
        } catch let error as HTTPResponseError {
            let e = ServeError(error.status, error.status == .notFound ? "not_found" : "http_error", "\(error.status)")
            response = e.response
            code = e.code
        } catch {
            let e = ServeError(.internalServerError, "internal_error", "\(error)")
            response = e.response
            code = e.code
        }
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let path = request.uri.path
        let route = ServeServer.routes.contains(path) ? path : "other"
        metrics.request(route: route, status: response.status.code, seconds: seconds)
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)", "path": "\(path)", "status": "\(response.status.code)",
            "ms": "\(String(format: "%.1f", seconds * 1000))",
        ]
        if let code { metadata["error"] = "\(code)" }
        logger.info("request", metadata: metadata)
        return response
    }
}

extension ServeServer {
    /// The routes counted by name in metrics (others count as `other`).
    static let routes: Set<String> = Set(pages.map(\.0) + [
        "/healthz", "/readyz", "/metrics", "/v1/analyze", "/v1/segment", "/v1/greet", "/v1/cutout", "/v1/instances", "/api/remove",
    ])
}
#endif

#if Serve
import ArgumentParser
import Foundation
import PVServe
import Synchronization

/// `peoplevision serve`: the HTTP service (the README's "Serving" and `GET /openapi.json` describe its API).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the analyses over HTTP (with an upload page at /), until SIGTERM or SIGINT.",
        discussion: """
            Endpoints: POST /v1/analyze (the JSON of `analyze`), /v1/segment, /v1/greet, /v1/cutout, /v1/instances, \
            rembg's POST /api/remove; GET /healthz, /readyz, /metrics, /openapi.json. Models load once; at most \
            --concurrency images are analysed at once and --queue more wait (beyond that: 503 with Retry-After). \
            On SIGTERM the server stops accepting connections and finishes the requests it has.
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0: any free port).") var port = 7000
    @Option(help: "Images analysed at once (engine threads). Default: the usable cores.") var concurrency: Int?
    @Option(help: "Requests that may wait for the engine beyond those running.") var queue = 16
    @Option(help: "Largest request body, in megabytes.") var maxBodyMb = 32
    @Option(help: "Largest image, in pixels (from its header, before decoding).") var maxPixels = 50_000_000
    @Option(help: "Seconds a request may wait and run before it is answered 504.") var timeout: Double = 30
    @Flag(help: "Let GET /api/remove?url= download images (public http/https addresses only).") var allowURLFetch = false

    var serveConfiguration: ServeConfiguration {
        var c = ServeConfiguration()
        c.host = host
        c.port = port
        if let concurrency { c.concurrency = concurrency }
        c.queueDepth = queue
        c.maxBodyBytes = maxBodyMb << 20
        c.maxPixels = maxPixels
        c.timeout = timeout
        c.allowURLFetch = allowURLFetch
        return c
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        guard queue >= 0 else { throw ValidationError("--queue must not be negative") }
        guard (1...4096).contains(maxBodyMb) else { throw ValidationError("--max-body-mb must be 1…4096") }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be positive") }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run() throws {
        let server = ServeServer(configuration: serveConfiguration, engine: PeopleVisionEngine())
        let listening = ListeningFlag()
        do {
            try server.runBlocking { port in
                listening.set()
                FileHandle.standardError.write(Data("serve: listening on http://\(host):\(port)/\n".utf8))
            }
        } catch where !listening.isSet {
            throw CommandFailure("cannot listen on \(host):\(port): \(error)")
        }
    }
}

/// Whether the server got as far as listening (a failure before that is a failure to bind).
private final class ListeningFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
#endif

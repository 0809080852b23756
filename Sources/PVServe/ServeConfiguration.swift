#if Serve
import Foundation
import PVThreads

/// The settings of `peoplevision serve` (its options, in the same order).
package struct ServeConfiguration: Sendable {
    /// The address to listen on.
    package var host = "127.0.0.1"
    /// The port (0: any free port; the bound one is reported by ``ServeServer/run(onRunning:)``).
    package var port = 7000
    /// Engine threads: jobs that run at once, one image each. Default: the usable cores (PVThreads' budget).
    package var concurrency = max(1, CPUBudget.available)
    /// Jobs that may wait for an engine thread; beyond them a request is answered 503 with `Retry-After`.
    package var queueDepth = 16
    /// The largest request body, in bytes (413 beyond it).
    package var maxBodyBytes = 32 << 20
    /// The largest image, in pixels, read from its header before any decoding (413 beyond it).
    package var maxPixels = 50_000_000
    /// How long a request may wait and run, in seconds (504 beyond it).
    package var timeout: Double = 30
    /// Whether `GET /api/remove?url=` downloads images (off by default).
    package var allowURLFetch = false

    package init() {}
}
#endif

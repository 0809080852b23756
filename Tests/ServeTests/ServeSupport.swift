#if Serve
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import PVCore
import PVImaging
import PVThreads
@testable import PVServe
import ServiceLifecycle
import Synchronization

/// A server on a free loopback port for the length of `body`, shut down gracefully after it.
func withServer<T: Sendable>(
    _ configure: (inout ServeConfiguration) -> Void = { _ in }, engine: any ServeEngine,
    _ body: @Sendable (Client, ServeServer) async throws -> T
) async throws -> T {
    try await withServer(configure, engine: engine) { harness in try await body(harness.client, harness.server) }
}

/// A running test server: its client, the server, and the graceful shutdown SIGTERM starts.
struct Harness: Sendable {
    let client: Client
    let server: ServeServer
    let group: ServiceGroup

    /// Starts the graceful shutdown (what SIGTERM does): the listener closes, requests received finish.
    func shutdown() async { await group.triggerGracefulShutdown() }
}

/// As above, with the ``Harness``.
func withServer<T: Sendable>(
    _ configure: (inout ServeConfiguration) -> Void = { _ in }, engine: any ServeEngine,
    harness body: @Sendable (Harness) async throws -> T
) async throws -> T {
    var configuration = ServeConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.concurrency = 1
    // Under ThreadSanitizer (scripts/tsan) the engine runs several times slower, and a first request that loads the
    // models can pass the default 30 s on a busy machine; tests that set a timeout of their own keep it.
    if ThreadSanitizerHooks.current != nil { configuration.timeout = 80 }
    configure(&configuration)
    var logger = Logger(label: "serve-tests")
    logger.logLevel = .error
    let server = ServeServer(configuration: configuration, engine: engine, logger: logger)
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let group = ServiceGroup(
        configuration: ServiceGroupConfiguration(services: [server.application { continuation.yield($0) }], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("the server did not start") }
        let result: Result<T, Error>
        do {
            result = .success(try await body(Harness(client: Client(port: port), server: server, group: group)))
        } catch {
            result = .failure(error)
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        server.queue.shutdown()
        return try result.get()
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A plain HTTP client on loopback (URLSession, one connection per request as needed).
struct Client: Sendable {
    let port: Int

    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data
        /// The body as a JSON object (empty when it is none).
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
        /// `error.code` of a JSON error body.
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String { ((json["error"] as? [String: Any])?["message"] as? String) ?? "" }
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    func send(_ path: String, method: String = "POST", body: Data? = nil, contentType: String? = nil) async throws -> Answer {
        var request = URLRequest(url: url(path))
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = 60
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw TestFailure("not an HTTP response") }
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields { headers["\(k)"] = "\(v)" }
        return Answer(status: http.statusCode, headers: headers, body: data)
    }

    /// POSTs a `multipart/form-data` body of `parts` (name, file name or nil, bytes).
    func form(_ path: String, _ parts: [(String, String?, Data)]) async throws -> Answer {
        let boundary = "pv-test-\(UUID().uuidString)"
        var body = Data()
        for (name, filename, data) in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\""
            if let filename { head += "; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream" }
            body.append(Data((head + "\r\n\r\n").utf8))
            body.append(data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return try await send(path, body: body, contentType: "multipart/form-data; boundary=\(boundary)")
    }
}

/// An engine that records what it was asked and answers a fixed JSON, after `delay` seconds or, when `held`, once
/// the test calls ``release()``; while it waits it checks the thread's cancellation flag every 5 ms, as the real
/// engine does before each model run. Holding makes the queueing tests independent of timing on a busy machine.
final class FakeEngine: ServeEngine {
    let delay: Double
    private let held: Atomic<Bool>
    private let log = Locked<(operations: [EngineJob.Operation], cancelled: Int, finished: Int)>(([], 0, 0))

    init(delay: Double = 0, held: Bool = false) {
        self.delay = delay
        self.held = Atomic(held)
    }

    var analysisNames: [String] { ["segmentation", "instances", "faces", "bodies", "bodies3d", "hands"] }
    var operations: [EngineJob.Operation] { log.withLock { $0.operations } }
    var cancelled: Int { log.withLock { $0.cancelled } }
    var finished: Int { log.withLock { $0.finished } }

    /// Lets held jobs finish.
    func release() { held.store(false, ordering: .releasing) }

    func warmUp() throws {}

    func run(_ job: EngineJob) throws -> EngineOutput {
        log.withLock { $0.operations.append(job.operation) }
        let end = Date().addingTimeInterval(delay)
        while Date() < end || held.load(ordering: .acquiring) {
            // The thread's flag, as the engine's model runs read it: the job runs under its cancellation.
            if Cancellation.isRequested {
                log.withLock { $0.cancelled += 1 }
                try job.checkCancelled()
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        log.withLock { $0.finished += 1 }
        return EngineOutput(body: Data("{\"fake\":true}".utf8), contentType: "application/json")
    }
}

/// Waits (polling, up to 20 s) until `condition` holds; false if it never did.
func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<2000 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Runs a program to its end without blocking a thread of the concurrency pool (its output goes to a file; its error
/// output too when `withErrors`, so that a failure's message reaches the test's report).
func runProgram(_ executable: URL, _ arguments: [String], withErrors: Bool = false) async throws -> (status: Int32, output: Data) {
    let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("pv-serve-test-\(UUID().uuidString).out")
    guard FileManager.default.createFile(atPath: outURL.path, contents: nil) else { throw TestFailure("cannot create \(outURL.path)") }
    defer { try? FileManager.default.removeItem(at: outURL) }
    let out = try FileHandle(forWritingTo: outURL)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardOutput = out
    process.standardError = withErrors ? out : FileHandle.nullDevice
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    try out.close()
    return (status, try Data(contentsOf: outURL))
}

/// Small images made here: a grey PNG and JPEG, and "bombs" whose headers declare 10000×10000 pixels.
enum TestImages {
    static func pixels(width: Int = 16, height: Int = 12) throws -> PixelBuffer {
        var p = try PixelBuffer(width: width, height: height, format: .rgba32)
        p.withUnsafeMutableBytes { b in for i in stride(from: 0, to: b.count, by: 4) { (b[i], b[i + 1], b[i + 2], b[i + 3]) = (90, 120, 150, 255) } }
        return p
    }

    static func png() throws -> Data { try ImageEncoder.encode(try pixels(), as: .png) }
    static func jpeg() throws -> Data { try ImageEncoder.encode(try pixels(), as: .jpeg(quality: 90)) }

    /// A valid small PNG whose IHDR (CRC recomputed) declares 10000×10000: 100 megapixels in 100-odd bytes.
    static func pngBomb() throws -> Data {
        var data = [UInt8](try png())
        // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4) … CRC over type and data (17 bytes).
        put(10000, at: 16, in: &data)
        put(10000, at: 20, in: &data)
        put(crc32(data[12..<29]), at: 29, in: &data)
        return Data(data)
    }

    /// A valid small JPEG whose frame header (SOF0) declares 10000×10000.
    static func jpegBomb() throws -> Data {
        var data = [UInt8](try jpeg())
        guard let sof = (2..<data.count - 9).first(where: { data[$0] == 0xFF && data[$0 + 1] == 0xC0 }) else {
            throw TestFailure("no SOF0 marker")
        }
        // FF C0, length (2), precision (1), height (2), width (2).
        for (offset, value) in [(5, 10000), (7, 10000)] {
            data[sof + offset] = UInt8(value >> 8)
            data[sof + offset + 1] = UInt8(value & 0xFF)
        }
        return Data(data)
    }

    static func put(_ value: UInt32, at offset: Int, in data: inout [UInt8]) {
        for k in 0..<4 { data[offset + k] = UInt8(value >> (24 - 8 * k) & 0xFF) }
    }

    /// CRC-32 (ISO-HDLC), as PNG chunks use.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
#endif

#if Serve
import Foundation
import Hummingbird
import Logging
import PVCore
@testable import PVServe
import ServiceLifecycle
import Testing

/// `GET /api/remove?url=`: off by default; when on, only public http(s) addresses, checked after name resolution.
@Suite("serve: URL fetch")
struct URLFetchTests {
    @Test func offByDefault() async throws {
        try await withServer(engine: FakeEngine()) { client, _ in
            let answer = try await client.send("/api/remove?url=http://example.com/a.jpg", method: "GET")
            #expect(answer.status == 403 && answer.errorCode == "url_fetch_disabled")
        }
    }

    @Test func refusesLoopbackPrivateAndOtherSchemesWhenOn() async throws {
        let engine = FakeEngine()
        try await withServer({ $0.allowURLFetch = true }, engine: engine) { client, _ in
            // Every one is refused before any connection is made (none of these addresses is ever contacted).
            let refused = [
                "http://127.0.0.1:\(client.port)/healthz", "http://localhost:\(client.port)/", "http://[::1]:\(client.port)/",
                "http://10.1.2.3/a.jpg", "http://192.168.0.10/a.jpg", "http://172.16.5.4/a.jpg", "http://169.254.169.254/latest",
                "http://100.64.0.1/", "http://0.0.0.0/", "http://[fe80::1]/", "http://[fd00::1]/", "http://[::ffff:127.0.0.1]/",
                "ftp://example.com/a.jpg", "file:///etc/passwd",
            ]
            for url in refused {
                let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url
                let answer = try await client.send("/api/remove?url=\(encoded)", method: "GET")
                #expect(answer.status == 400, "\(url): \(answer.status)")
                #expect(answer.errorCode == "url_refused", "\(url): \(answer.errorMessage)")
            }
            let missing = try await client.send("/api/remove", method: "GET")
            #expect(missing.status == 400 && missing.errorCode == "bad_parameter")
        }
        #expect(engine.operations.isEmpty)
    }

    @Test func addressPolicy() {
        let publicV4: [[UInt8]] = [[8, 8, 8, 8], [1, 1, 1, 1], [172, 32, 0, 1], [100, 128, 0, 1], [192, 0, 1, 1]]
        let refusedV4: [[UInt8]] = [
            [127, 0, 0, 1], [127, 255, 255, 254], [10, 0, 0, 1], [172, 16, 0, 1], [172, 31, 255, 255], [192, 168, 1, 1],
            [169, 254, 169, 254], [100, 64, 0, 1], [0, 0, 0, 0], [192, 0, 2, 1], [198, 18, 0, 1], [198, 51, 100, 7],
            [203, 0, 113, 9], [224, 0, 0, 1], [240, 0, 0, 1], [255, 255, 255, 255], [192, 0, 0, 8],
        ]
        for a in publicV4 { #expect(AddressPolicy.isPublic(v4: a), "\(a)") }
        for a in refusedV4 { #expect(!AddressPolicy.isPublic(v4: a), "\(a)") }
        func v6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        #expect(AddressPolicy.isPublic(v6: v6([0x2606, 0x4700, 0, 0, 0, 0, 0, 0x1111])))
        #expect(AddressPolicy.isPublic(v6: v6([0, 0, 0, 0, 0, 0xFFFF, 0x0808, 0x0808])), "::ffff:8.8.8.8")
        let refusedV6: [[UInt16]] = [
            [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 1], [0xFE80, 0, 0, 0, 0, 0, 0, 1], [0xFC00, 0, 0, 0, 0, 0, 0, 1],
            [0xFD12, 0x3456, 0, 0, 0, 0, 0, 1], [0xFF02, 0, 0, 0, 0, 0, 0, 1], [0x2001, 0x0DB8, 0, 0, 0, 0, 0, 1],
            [0x2002, 0x0A00, 0x0001, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001], [0, 0, 0, 0, 0, 0xFFFF, 0x0A00, 0x0001],
            [0x2001, 0, 0x4136, 0, 0, 0, 0, 1], [0x3FFF, 0, 0, 0, 0, 0, 0, 1],
        ]
        for a in refusedV6 { #expect(!AddressPolicy.isPublic(v6: v6(a)), "\(a)") }
    }

    /// The fetcher against a loopback origin: every hop is checked (a redirect to a refused address is refused, not
    /// followed), bodies over the limit and too many redirects are refused. The first hop's check is relaxed here,
    /// since the only origin a test may use is loopback itself.
    @Test func redirectsAreCheckedAgainAndLimitsHold() async throws {
        let router = Router()
        router.get("/photo") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try TestImages.png()))) }
        router.get("/big") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: 7, count: 5000))) }
        router.get("/hop/{n}") { request, context in
            let n = try context.parameters.require("n", as: Int.self)
            let next = n == 0 ? "/photo" : "/hop/\(n - 1)"
            return Response(status: .found, headers: [.location: next])
        }
        router.get("/away") { _, _ in Response(status: .found, headers: [.location: "http://10.0.0.7/photo"]) }
        var logger = Logger(label: "origin")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let origin = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [origin], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let base = "http://127.0.0.1:\(port)"
            let checked = Locked<[String]>([])
            // Loopback is let through (the origin is on it); anything else goes through the real policy.
            var fetcher = URLFetcher(maxBytes: 4096)
            fetcher.check = { url in
                checked.withLock { $0.append(url.absoluteString) }
                if url.host != "127.0.0.1" { try AddressPolicy.check(url) }
            }
            let photo = try await fetcher.fetch(base + "/hop/2")
            #expect(photo == (try TestImages.png()))
            #expect(checked.withLock { $0 } == ["/hop/2", "/hop/1", "/hop/0", "/photo"].map { base + $0 }, "every hop checked")
            await #expect(throws: ServeError.self) { _ = try await fetcher.fetch(base + "/hop/3") }
            do {
                _ = try await fetcher.fetch(base + "/away")
                Issue.record("a redirect to a private address was followed")
            } catch let error as ServeError {
                #expect(error.code == "url_refused", "\(error)")
            }
            do {
                _ = try await fetcher.fetch(base + "/big")
                Issue.record("a body over the limit was accepted")
            } catch let error as ServeError {
                #expect(error.code == "body_too_large" && error.status == .contentTooLarge, "\(error)")
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
#endif

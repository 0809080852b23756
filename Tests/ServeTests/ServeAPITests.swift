#if Serve
import Foundation
@testable import PVServe
@testable import peoplevision
import Testing

/// The HTTP layer over a fake engine: routing, parameters, limits, error bodies, queueing, timeouts, shutdown.
@Suite("serve: HTTP API")
struct ServeAPITests {
    @Test func healthReadinessMetricsAndDocuments() async throws {
        let engine = FakeEngine()
        try await withServer(engine: engine) { client, server in
            #expect(try await client.send("/healthz", method: "GET").json["status"] as? String == "ok")
            // The fake engine loads nothing: ready as soon as its first thread started.
            #expect(try await eventually { server.queue.isReady })
            let ready = try await client.send("/readyz", method: "GET")
            #expect(ready.status == 200 && ready.json["status"] as? String == "ready")
            _ = try await client.send("/v1/analyze?requests=faces", body: try TestImages.png(), contentType: "image/png")
            let metrics = String(decoding: try await client.send("/metrics", method: "GET").body, as: UTF8.self)
            #expect(metrics.contains("pv_http_requests_total{route=\"/v1/analyze\",status=\"200\"} 1"), "\(metrics)")
            for name in ["pv_http_request_duration_seconds_bucket", "pv_queue_waiting", "pv_queue_running", "pv_engine_duration_seconds_count"] {
                #expect(metrics.contains(name), "\(name) in /metrics")
            }
            let openapi = try await client.send("/openapi.json", method: "GET")
            #expect(openapi.json["openapi"] as? String == "3.1.0")
            let paths = (openapi.json["paths"] as? [String: Any]) ?? [:]
            for path in ["/v1/analyze", "/v1/segment", "/v1/greet", "/v1/cutout", "/v1/instances", "/api/remove", "/healthz", "/readyz", "/metrics"] {
                #expect(paths[path] != nil, "openapi.json documents \(path)")
            }
            let schema = try await client.send("/analyze.schema.json", method: "GET")
            #expect((schema.json["$schema"] as? String)?.contains("json-schema.org") == true)
            let page = try await client.send("/", method: "GET")
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(String(decoding: page.body, as: UTF8.self).contains("<canvas"))
            let missing = try await client.send("/no/such/page", method: "GET")
            #expect(missing.status == 404 && missing.errorCode == "not_found")
        }
    }

    @Test func serveOptions() throws {
        let c = try ServeCommand.parse(["--port", "0", "--concurrency", "3", "--queue", "0", "--max-body-mb", "5", "--timeout", "2.5"])
            .serveConfiguration
        #expect(c.port == 0 && c.concurrency == 3 && c.queueDepth == 0 && c.maxBodyBytes == 5 << 20 && c.timeout == 2.5)
        #expect(!c.allowURLFetch && c.host == "127.0.0.1", "loopback and no URL fetch unless asked")
        for bad in [["--port", "70000"], ["--concurrency", "0"], ["--queue", "-1"], ["--max-body-mb", "0"], ["--timeout", "0"], ["--max-pixels", "0"]] {
            #expect(throws: (any Error).self, "\(bad)") { _ = try ServeCommand.parse(bad) }
        }
    }

    @Test func analyzeTakesARawBodyOrAMultipartFileAndNamesTheRequests() async throws {
        let engine = FakeEngine()
        try await withServer(engine: engine) { client, _ in
            let png = try TestImages.png()
            let raw = try await client.send("/v1/analyze?requests=faces,landmarks,bodies", body: png, contentType: "image/png")
            #expect(raw.status == 200 && raw.json["fake"] as? Bool == true)
            let form = try await client.form("/v1/analyze?requests=hands", [("file", "photo.png", png)])
            #expect(form.status == 200)
            let all = try await client.send("/v1/analyze", body: try TestImages.jpeg(), contentType: "application/octet-stream")
            #expect(all.status == 200)
            // The bytes decide the format, whatever image type the client names.
            #expect(try await client.send("/v1/analyze?requests=faces", body: png, contentType: "image/jpg").status == 200)
        }
        #expect(engine.operations == [
            .analyze(requests: ["faces", "bodies"]), .analyze(requests: ["hands"]),
            .analyze(requests: ["segmentation", "instances", "faces", "bodies", "bodies3d", "hands"]), .analyze(requests: ["faces"]),
        ])
    }

    @Test func clientMistakesAre4xxWithAJSONBodyNamingTheProblem() async throws {
        let engine = FakeEngine()
        try await withServer({ $0.maxBodyBytes = 64 << 10 }, engine: engine) { client, _ in
            let png = try TestImages.png()
            let cases: [(String, Data?, String?, Int, String)] = [
                ("/v1/analyze?requests=faces,elbows", png, "image/png", 400, "unknown_request"),
                ("/v1/analyze", nil, "image/png", 400, "empty_body"),
                ("/v1/analyze", Data(png.prefix(40)), "image/png", 400, "truncated_image"),
                ("/v1/analyze", Data("just some text".utf8), "application/octet-stream", 415, "not_an_image"),
                ("/v1/analyze", png, "application/json", 415, "wrong_content_type"),
                ("/v1/analyze", Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8), "image/gif", 415, "not_an_image"),
                ("/v1/analyze", try TestImages.pngBomb(), "image/png", 413, "too_many_pixels"),
                ("/v1/segment", try TestImages.jpegBomb(), "image/jpeg", 413, "too_many_pixels"),
                ("/v1/cutout", Data(count: 65 << 10), "image/png", 413, "body_too_large"),
                ("/v1/segment?quality=best", png, "image/png", 400, "bad_parameter"),
                ("/v1/segment?format=u16", png, "image/png", 400, "bad_parameter"),
                ("/v1/greet", png, "image/png", 400, "bad_parameter"),
                ("/v1/greet?background=%23GG0000", png, "image/png", 400, "bad_parameter"),
                ("/v1/greet?background=blur&format=gif", png, "image/png", 400, "bad_parameter"),
                ("/v1/instances?output=outline", png, "image/png", 400, "bad_parameter"),
                ("/v1/instances?output=cutout&select=1,x", png, "image/png", 400, "bad_parameter"),
                ("/api/remove?bgc=300,0,0,255", png, "image/png", 400, "bad_parameter"),
                ("/api/remove?om=maybe", png, "image/png", 400, "bad_parameter"),
            ]
            for (path, body, type, status, code) in cases {
                let answer = try await client.send(path, body: body, contentType: type)
                #expect(answer.status == status, "\(path) \(code): \(answer.status) \(answer.errorMessage)")
                #expect(answer.errorCode == code, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
                #expect(!answer.errorMessage.isEmpty)
                #expect(answer.header("Content-Type") == "application/json")
            }
            let noFile = try await client.form("/api/remove", [("image", "a.png", png)])
            #expect(noFile.status == 400 && noFile.errorCode == "missing_file")
            let cut = try await client.send("/api/remove", body: Data("--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc".utf8), contentType: "multipart/form-data; boundary=x")
            #expect(cut.status == 400 && cut.errorCode == "bad_multipart")
        }
        #expect(engine.operations.isEmpty, "no bad request reaches the engine")
    }

    @Test func rembgCallShapes() async throws {
        let engine = FakeEngine()
        try await withServer(engine: engine) { client, _ in
            let png = try TestImages.png()
            // rembg's clients: `curl -F file=@photo.png URL/api/remove`, with `om` and `bgc` as form fields or query.
            #expect(try await client.form("/api/remove", [("file", "photo.png", png)]).status == 200)
            #expect(try await client.form("/api/remove", [("file", "photo.png", png), ("om", nil, Data("true".utf8))]).status == 200)
            #expect(try await client.form("/api/remove?bgc=255,255,255,255", [("file", "photo.png", png)]).status == 200)
            #expect(try await client.form("/api/remove", [("file", "p.png", png), ("bgc", nil, Data("0,128,0".utf8)), ("model", nil, Data("u2net".utf8))]).status == 200)
            #expect(try await client.send("/api/remove", body: png, contentType: "image/png").status == 200)
        }
        #expect(engine.operations == [
            .remove(maskOnly: false, background: nil), .remove(maskOnly: true, background: nil),
            .remove(maskOnly: false, background: .init(red: 255, green: 255, blue: 255, alpha: 255)),
            .remove(maskOnly: false, background: .init(red: 0, green: 128, blue: 0)), .remove(maskOnly: false, background: nil),
        ])
    }

    @Test func otherEndpointsPassTheirParameters() async throws {
        let engine = FakeEngine()
        try await withServer(engine: engine) { client, _ in
            let png = try TestImages.png()
            #expect(try await client.send("/v1/segment?quality=fast&format=f16", body: png, contentType: "image/png").status == 200)
            #expect(try await client.send("/v1/greet?background=%2300FF00&format=png", body: png, contentType: "image/png").status == 200)
            #expect(try await client.send("/v1/greet?background=blur", body: png, contentType: "image/png").status == 200)
            #expect(try await client.form("/v1/greet?quality=balanced", [("file", "a.png", png), ("background", "b.jpg", try TestImages.jpeg())]).status == 200)
            #expect(try await client.send("/v1/cutout?quality=balanced", body: png, contentType: "image/png").status == 200)
            #expect(try await client.send("/v1/instances", body: png, contentType: "image/png").status == 200)
            #expect(try await client.send("/v1/instances?output=cutout&select=0,2&crop=true", body: png, contentType: "image/png").status == 200)
        }
        #expect(engine.operations == [
            .segment(quality: .fast, format: .f16),
            .greet(background: .color(.init(red: 0, green: 255, blue: 0)), quality: .accurate, output: .png),
            .greet(background: .blur, quality: .accurate, output: .jpeg),
            .greet(background: .image(try TestImages.jpeg()), quality: .balanced, output: .jpeg),
            .cutout(quality: .balanced), .instances(output: .labels), .instances(output: .cutout(select: [0, 2], crop: true)),
        ])
    }

    @Test func aFullQueueAnswers503WithRetryAfter() async throws {
        let engine = FakeEngine(held: true)
        try await withServer({ $0.concurrency = 1; $0.queueDepth = 1 }, engine: engine) { client, server in
            let png = try TestImages.png()
            let send = { @Sendable in try await client.send("/v1/analyze?requests=faces", body: png, contentType: "image/png") }
            // One runs, one waits: the queue is full.
            async let first = send()
            #expect(try await eventually { server.queue.depth.running == 1 })
            async let second = send()
            #expect(try await eventually { server.queue.depth.waiting == 1 })
            for _ in 0..<3 {
                let refused = try await send()
                #expect(refused.status == 503 && refused.errorCode == "queue_full")
                #expect(refused.header("Retry-After") == "1")
            }
            engine.release()
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
            let metrics = String(decoding: try await client.send("/metrics", method: "GET").body, as: UTF8.self)
            #expect(metrics.contains("pv_queue_rejected_total 3"), "\(metrics)")
            #expect(metrics.contains("pv_http_requests_total{route=\"/v1/analyze\",status=\"503\"} 3"))
        }
    }

    @Test func aRequestPastItsTimeoutIs504AndTheEngineStops() async throws {
        let engine = FakeEngine(held: true)
        try await withServer({ $0.timeout = 0.3 }, engine: engine) { client, _ in
            let answer = try await client.send("/v1/analyze?requests=faces", body: try TestImages.png(), contentType: "image/png")
            #expect(answer.status == 504 && answer.errorCode == "timeout")
            // The held job never finishes by itself: it ended because it saw the cancellation.
            #expect(try await eventually { engine.cancelled == 1 }, "the running job saw the cancellation")
            #expect(engine.finished == 0)
        }
    }

    @Test func gracefulShutdownFinishesAnInFlightRequest() async throws {
        let engine = FakeEngine(held: true)
        try await withServer(engine: engine) { (harness: Harness) in
            let client = harness.client, queue = harness.server.queue
            async let inFlight = client.send("/v1/analyze?requests=faces", body: try TestImages.png(), contentType: "image/png")
            #expect(try await eventually { queue.depth.running == 1 })
            await harness.shutdown()
            // The listener closes: no new connection is accepted while the running request is held.
            var refused = false
            for _ in 0..<100 where !refused {
                do {
                    _ = try await client.send("/healthz", method: "GET")
                    try await Task.sleep(for: .milliseconds(50))
                } catch {
                    refused = true
                }
            }
            #expect(refused, "new connections are refused once the shutdown started")
            #expect(queue.depth.running == 1 && engine.finished == 0)
            engine.release()
            let answer = try await inFlight
            #expect(answer.status == 200 && answer.json["fake"] as? Bool == true)
        }
        #expect(engine.finished == 1)
    }
}
#endif

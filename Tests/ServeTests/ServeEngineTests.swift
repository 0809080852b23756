#if Serve
import Foundation
import PVImaging
@testable import PVServe
import PVTestSupport
@testable import peoplevision
import Testing

/// The service over the real engine: each endpoint answers what the matching command makes.
@Suite("serve: real engine", .serialized)
struct ServeEngineTests {
    /// The built `peoplevision`, beside the test bundle.
    static var executable: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("peoplevision").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("peoplevision")
    }

    /// `peoplevision analyze --json - …`'s record for `image`.
    static func commandRecord(_ image: URL, requests: String) async throws -> Data {
        let run = try await runProgram(executable, ["analyze", "--requests", requests, "--json", "-", image.path])
        guard run.status == 0 else { throw TestFailure("analyze exited \(run.status)") }
        return run.output
    }

    static func rgba(_ data: Data) throws -> PixelBuffer { try ImageDecoder.decode(data: data, options: .init(keepsGrayscale: false)).pixels.converted(to: .rgba32) }

    /// The pixel at (x, y) of an RGBA picture.
    static func pixel(_ p: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        p.withUnsafeBytes { b in (0..<4).map { Int(b[y * p.bytesPerRow() + 4 * x + $0]) } }
    }

    @Test func analyzeAnswersTheCommandsJSON() async throws {
        let photo = try TestFiles.installed("astronaut.png")
        let expected = try await Self.commandRecord(photo, requests: "faces,bodies,hands")
        try await withServer(engine: PeopleVisionEngine()) { client, _ in
            let answer = try await client.form("/v1/analyze?requests=faces,bodies,hands", [("file", "astronaut.png", try Data(contentsOf: photo))])
            #expect(answer.status == 200 && answer.header("Content-Type") == "application/json")
            var got = answer.json, want = (try JSONSerialization.jsonObject(with: expected) as? [String: Any]) ?? [:]
            #expect(got["image"] as? String == "astronaut.png", "the uploaded file's name, as the command gives it")
            got["elapsed_ms"] = nil
            want["elapsed_ms"] = nil
            #expect(!want.isEmpty && (want["faces"] as? [Any])?.isEmpty == false, "the command found the face")
            #expect(NSDictionary(dictionary: got).isEqual(to: want), "the same record as `peoplevision analyze`")

            // Masks come inline, as PNG data URLs of the image's size.
            let masks = try await client.send("/v1/analyze?requests=segmentation", body: try Data(contentsOf: photo), contentType: "image/png")
            let url = try #require(masks.json["segmentation"] as? String)
            #expect(url.hasPrefix("data:image/png;base64,"))
            let png = try #require(Data(base64Encoded: String(url.dropFirst("data:image/png;base64,".count))))
            let info = try ImageDecoder.info(data: png)
            #expect(info.width == 512 && info.height == 512)
        }
    }

    @Test func picturesOfThePeople() async throws {
        let photo = try Data(contentsOf: TestFiles.installed("astronaut.png"))
        try await withServer(engine: PeopleVisionEngine()) { client, server in
            // Ready once the first engine thread has loaded the models.
            #expect(try await eventually { server.queue.isReady })
            let ready = try await client.send("/readyz", method: "GET")
            #expect(ready.status == 200 && ready.json["status"] as? String == "ready")

            // segment: the documented sizes (fast 256×144; accurate: the image's).
            let fast = try await client.send("/v1/segment?quality=fast", body: photo, contentType: "image/png")
            #expect(fast.status == 200 && fast.header("Content-Type") == "image/png")
            let fastInfo = try ImageDecoder.info(data: fast.body)
            #expect(fastInfo.width == 256 && fastInfo.height == 144 && fastInfo.isGray)
            let accurate = try ImageDecoder.info(data: try await client.send("/v1/segment", body: photo, contentType: "image/png").body)
            #expect(accurate.width == 512 && accurate.height == 512)

            // greet over a colour: the corner (background, as in the command's test) takes it.
            let greeting = try await client.send("/v1/greet?background=%2300FF00&format=png&quality=fast", body: photo, contentType: "image/png")
            let corner = Self.pixel(try Self.rgba(greeting.body), 0, 0)
            #expect(corner[0] < 10 && corner[1] > 245 && corner[2] < 10, "\(corner)")
            let jpeg = try await client.send("/v1/greet?background=blur&quality=fast", body: photo, contentType: "image/png")
            let jpegInfo = try ImageDecoder.info(data: jpeg.body)
            #expect(jpeg.header("Content-Type") == "image/jpeg" && jpegInfo.format == .jpeg)

            // cutout and rembg: transparent background, opaque person; om = the mask; bgc = over the colour.
            let cutout = try Self.rgba(try await client.send("/v1/cutout?quality=fast", body: photo, contentType: "image/png").body)
            #expect(Self.pixel(cutout, 0, 0)[3] == 0)
            #expect(cutout.withUnsafeBytes { b in stride(from: 3, to: b.count, by: 4).contains { b[$0] == 255 } })
            let mask = try await client.form("/api/remove", [("file", "a.png", photo), ("om", nil, Data("true".utf8))])
            let maskInfo = try ImageDecoder.info(data: mask.body)
            #expect(maskInfo.isGray && maskInfo.width == 512 && maskInfo.height == 512)
            let red = try Self.rgba(try await client.form("/api/remove", [("file", "a.png", photo), ("bgc", nil, Data("255,0,0,255".utf8))]).body)
            #expect(Self.pixel(red, 0, 0) == [255, 0, 0, 255])

            // instances: a label map with the one person as 1; the cut-out of instance 1, cropped to it.
            let labels = try ImageDecoder.decode(data: try await client.send("/v1/instances", body: photo, contentType: "image/png").body).pixels
            let values = Set(labels.withUnsafeBytes { Array($0) })
            #expect(values.contains(0) && values.contains(1) && values.isSubset(of: [0, 1, 2, 3, 4]))
            let person = try await client.send("/v1/instances?output=cutout&select=1&crop=true", body: photo, contentType: "image/png")
            let personInfo = try ImageDecoder.info(data: person.body)
            #expect(personInfo.hasAlpha && personInfo.width < 512)
            let ghost = try await client.send("/v1/instances?output=cutout&select=3", body: photo, contentType: "image/png")
            #expect(ghost.status == 400 && ghost.errorCode == "bad_parameter")
        }
    }

    @Test func aTruncatedPhotoIsTheClientsMistake() async throws {
        // The header is whole (the server's check passes); the decoder then finds the data cut short.
        let jpeg = try Data(contentsOf: TestFiles.installed("rocket.jpg"))
        try await withServer(engine: PeopleVisionEngine()) { client, _ in
            for path in ["/v1/analyze?requests=faces", "/v1/greet?background=blur", "/v1/cutout", "/api/remove"] {
                let answer = try await client.send(path, body: Data(jpeg.prefix(jpeg.count / 4)), contentType: "image/jpeg")
                #expect(answer.status == 400 && answer.errorCode == "truncated_image", "\(path): \(answer.status) \(answer.errorMessage)")
            }
        }
    }
}
#endif

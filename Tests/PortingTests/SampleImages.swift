// Where the tests find the sample images and the reference outputs, and the video clips they analyse (the only file
// of this target that is not written as an Apple-platform app would write it: an app records its clips with the
// camera).
import Foundation
import PVImaging
import PVTestSupport

enum Samples {
    /// An installed sample image (`scripts/bootstrap`); fails, naming the install command, when it is missing.
    static func image(_ name: String) throws -> URL { try TestFiles.installed(name) }

    /// A JSON reference output of `Tests/Fixtures`, recorded with MediaPipe's own Python pipelines.
    static func reference(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: TestFiles.fixtures.appendingPathComponent(path))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return object
    }

    /// A temporary H.264 clip of `frames` frames at `framesPerSecond`: the sample image `name` shrunk to 160 px,
    /// sliding right by 12 px a frame on a 320×192 grey frame. The caller removes the file.
    static func slidingClip(of name: String, frames: Int = 10, framesPerSecond: Double = 10) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("porting-\(UUID().uuidString).mp4")
        let picture = try ImageDecoder.decode(contentsOf: try image(name)).pixels
            .converted(to: .rgba32).resized(width: 160, height: 160)
        let writer = try VideoWriter(url: url, width: 320, height: 192, framesPerSecond: framesPerSecond)
        for k in 0..<frames {
            try writer.append(try picture.pasted(onto: 320, 192, at: [(10 + 12 * k, 16)], fill: 60), at: Double(k) / framesPerSecond)
        }
        _ = try writer.finish()
        return url
    }
}

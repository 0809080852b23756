// Where the tests find the sample images, the reference outputs and the clips they analyse (the only file of this
// target that is not written as an Apple-platform app would write it: an app records its clips with the camera).
import Foundation
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

    /// A temporary clip of the sample image `name` (160 px) sliding right 12 px a frame on a 320×192 grey frame,
    /// ten frames at 10 fps; the caller removes the file.
    static func slidingClip(of name: String) throws -> URL { try TestFiles.slidingClip(of: name) }
}

// Where the tests find the sample images and the reference outputs (the only file of this target that is not
// written as an Apple-platform app would write it).
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
}

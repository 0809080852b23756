import ArgumentParser
import Foundation
import PeopleVision
import PVImaging

/// The `--overlay` picture of the pose, hands and faces commands: the analysed image, upright, with the results drawn
/// on it, written as PNG.
enum Overlay {
    /// Rejects an `--overlay` path that does not end in `.png`.
    static func validate(_ path: String?) throws {
        if let path, URL(fileURLWithPath: path).pathExtension.lowercased() != "png" {
            throw ValidationError("the overlay is written as PNG: give a path ending in .png")
        }
    }

    /// Draws on the upright image `handler` analysed with `draw` and writes the picture to `path`; does nothing when
    /// `path` is `nil`.
    static func write(to path: String?, of handler: VNImageRequestHandler, draw: (inout Canvas) throws -> Void) throws {
        guard let path else { return }
        var canvas = try Canvas(try handler.uprightImage())
        try draw(&canvas)
        try ImageEncoder.write(canvas.picture, to: URL(fileURLWithPath: path), as: .png)
    }
}

import Foundation
import PVImaging

extension TestFiles {
    /// A temporary H.264 clip of `frames` frames at `framesPerSecond`: the installed sample image `name` shrunk to
    /// 160 px, sliding right by 12 px a frame on a 320×192 grey frame. The caller removes the file.
    public static func slidingClip(of name: String, frames: Int = 10, framesPerSecond: Double = 10) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clip-\(UUID().uuidString).mp4")
        let picture = try ImageDecoder.decode(contentsOf: try installed(name)).pixels
            .converted(to: .rgba32).resized(width: 160, height: 160)
        let writer = try VideoWriter(url: url, width: 320, height: 192, framesPerSecond: framesPerSecond)
        for k in 0..<frames {
            try writer.append(try picture.pasted(onto: 320, 192, at: [(10 + 12 * k, 16)], fill: 60), at: Double(k) / framesPerSecond)
        }
        try writer.finish()
        return url
    }
}

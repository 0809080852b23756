import ArgumentParser
import Foundation
import PeopleVision
import CAllocatorTuning

extension PeopleVisionCommand {
    /// Runs the command line. Vision failures print as their message and code name, other `NSError`s that carry a
    /// description (Core Image's export failures) as that description, rather than as an `NSError` dump; argument
    /// errors keep swift-argument-parser's usage text.
    static func main() {
        keepLargeBuffersInTheHeap()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if let message = visionMessage(error) ?? describedMessage(error) {
                FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
                Foundation.exit(ExitCode.failure.rawValue)
            }
            exit(withError: error)
        }
    }
}

/// glibc returns every block above its (adaptive) mmap threshold to the kernel when freed, so each 1080p image
/// buffer (8 MB) of the next request came back as fresh pages: about 2,000 page faults and a zeroing pass per
/// photo greeting, 2–3 ms of its 15–40 ms. A command-line run is a process of its own: it keeps blocks up to
/// 32 MB (a 4K RGBA image) in the heap and returns free memory above 256 MB. A server using the library can
/// make the same choice (`mallopt`, or `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=...`).
private func keepLargeBuffersInTheHeap() {
    _ = pv_keep_large_blocks(32 << 20, 256 << 20)
}

/// "message (VNErrorCode.name)" for an `NSError` in `VNErrorDomain`, nil for any other error.
func visionMessage(_ error: Error) -> String? {
    let ns = error as NSError
    guard ns.domain == VNErrorDomain else { return nil }
    let name = VNErrorCode(rawValue: ns.code).map { "VNErrorCode.\($0)" } ?? "code \(ns.code)"
    return "\(ns.localizedDescription) (\(name))"
}

/// The description of an `NSError` built with one (`NSLocalizedDescriptionKey`), nil for any other error.
func describedMessage(_ error: Error) -> String? {
    let ns = error as NSError
    return ns.userInfo[NSLocalizedDescriptionKey] is String ? ns.localizedDescription : nil
}

/// A one-line description of any error, for per-item failure reports.
func errorMessage(_ error: Error) -> String {
    visionMessage(error) ?? describedMessage(error) ?? String(describing: error)
}

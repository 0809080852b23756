import Foundation
import PVCore

#if canImport(Glibc)
    import Glibc
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    import Darwin
    private let systemWrite = Darwin.write
#endif

/// Writes `data` to `url` so that readers see either the old file or the complete new one,
/// never a partial file: the bytes go to a temporary file in the same directory, are flushed
/// to disk, and the temporary file is renamed over `url`. On any failure the temporary file is
/// removed and `url` is left untouched.
///
/// - Throws: ``ImagingError`` `.ioError` naming the path and the system error.
public func writeAtomically(_ data: Data, to url: URL) throws {
    guard url.isFileURL else { throw ImagingError(.ioError, "cannot write to \(url): not a file URL") }
    let directory = url.deletingLastPathComponent().path
    let temporary = "\(directory)/.\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp"
    func failure(_ what: String) -> ImagingError {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        return ImagingError(.ioError, "cannot write \(url.path): \(what) failed (\(reason))")
    }
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
        throw ImagingError(.ioError, "cannot write \(url.path): cannot create a temporary file (\(String(cString: strerror(errno))))")
    }
    var written = 0
    let ok = data.withUnsafeBytes { bytes -> Bool in
        while written < bytes.count {
            let result = systemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += result
        }
        return true
    }
    guard ok else {
        let error = failure("writing")
        close(descriptor)
        throw error
    }
    guard fsync(descriptor) == 0 else {
        let error = failure("flushing")
        close(descriptor)
        throw error
    }
    guard close(descriptor) == 0 else { throw failure("closing") }
    guard rename(temporary, url.path) == 0 else { throw failure("renaming the temporary file") }
}

import ArgumentParser
import Foundation
import PeopleVision

extension PeopleVisionCommand {
    /// Runs the command line. Vision failures print as their message and code name rather than as an
    /// `NSError` dump; argument errors keep swift-argument-parser's usage text.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error where visionMessage(error) != nil {
            FileHandle.standardError.write(Data("Error: \(visionMessage(error)!)\n".utf8))
            Foundation.exit(ExitCode.failure.rawValue)
        } catch {
            exit(withError: error)
        }
    }
}

/// "message (VNErrorCode.name)" for an `NSError` in `VNErrorDomain`, nil for any other error.
func visionMessage(_ error: Error) -> String? {
    let ns = error as NSError
    guard ns.domain == VNErrorDomain else { return nil }
    let name = VNErrorCode(rawValue: ns.code).map { "VNErrorCode.\($0)" } ?? "code \(ns.code)"
    return "\(ns.localizedDescription) (\(name))"
}

/// A one-line description of any error, for per-item failure reports.
func errorMessage(_ error: Error) -> String {
    visionMessage(error) ?? String(describing: error)
}

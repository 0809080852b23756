import ArgumentParser
import Foundation
import PeopleVision

extension PeopleVisionCommand {
    /// Runs the command line. Vision failures print as their message and code name, other `NSError`s that carry a
    /// description (Core Image's export failures) as that description, rather than as an `NSError` dump; argument
    /// errors keep swift-argument-parser's usage text.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error where visionMessage(error) ?? describedMessage(error) != nil {
            FileHandle.standardError.write(Data("Error: \((visionMessage(error) ?? describedMessage(error))!)\n".utf8))
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

/// The description of an `NSError` built with one (`NSLocalizedDescriptionKey`), nil for any other error.
func describedMessage(_ error: Error) -> String? {
    let ns = error as NSError
    return ns.userInfo[NSLocalizedDescriptionKey] is String ? ns.localizedDescription : nil
}

/// A one-line description of any error, for per-item failure reports.
func errorMessage(_ error: Error) -> String {
    visionMessage(error) ?? describedMessage(error) ?? String(describing: error)
}

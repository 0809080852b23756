#if Serve
import Foundation
import HTTPTypes
import Hummingbird
import PVImaging

/// A request the service refuses or could not finish, answered with `status` and the JSON body
/// `{"error": {"code": CODE, "message": MESSAGE}}`. Client mistakes are 4xx; the service never answers 500 for them.
package struct ServeError: Error, Sendable, Equatable {
    /// The HTTP status.
    package let status: HTTPResponse.Status
    /// A stable, machine-readable name of the problem (`truncated_image`, `too_many_pixels`, …).
    package let code: String
    /// What is wrong, for a person.
    package let message: String
    /// Seconds a client should wait before retrying (sent as `Retry-After`).
    package var retryAfter: Int?

    package init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The request waited or ran past `--timeout` (the engine stops at its next model boundary).
    package static let timedOut = ServeError(.gatewayTimeout, "timeout", "the request took longer than the server's timeout")

    /// 400: the request is wrong (`code` names how).
    package static func badRequest(_ code: String, _ message: String) -> ServeError { ServeError(.badRequest, code, message) }

    /// 422: the image was read but could not be analysed as asked.
    package static func unprocessable(_ code: String, _ message: String) -> ServeError {
        ServeError(.unprocessableContent, code, message)
    }

    /// 400 `bad_parameter`: the query or form parameter `name` is wrong.
    package static func badParameter(_ name: String, _ message: String) -> ServeError {
        ServeError(.badRequest, "bad_parameter", "\(name): \(message)")
    }

    /// The error an uploaded image's decoder (or header check) threw, as the client's mistake it is.
    package static func image(_ error: ImagingError) -> ServeError {
        switch error.code {
        case .truncatedData: ServeError(.badRequest, "truncated_image", "the image is truncated: \(error.message)")
        case .unsupportedFormat:
            ServeError(.unsupportedMediaType, "not_an_image", "the body is not a JPEG, PNG, HEIC or WebP image: \(error.message)")
        case .tooLarge: ServeError(.contentTooLarge, "too_many_pixels", error.message)
        case .invalidDimensions: ServeError(.badRequest, "invalid_dimensions", error.message)
        default: ServeError(.badRequest, "unreadable_image", "the image cannot be read: \(error.message)")
        }
    }

    /// The JSON body.
    var body: Data {
        let object: [String: Any] = ["error": ["code": code, "message": message]]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// The response.
    var response: Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
#endif

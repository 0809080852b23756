#if Serve
import Foundation
import HTTPTypes
import Hummingbird
import PVImaging

/// An uploaded image and the rest of its form, read within the service's limits and checked from its header.
struct Upload {
    /// The image file.
    let image: Data
    /// The multipart form it came in, if it came in one.
    let form: MultipartForm?
    /// The `file` part's file name (its last path component), if it had one.
    let name: String?

    /// The media types accepted as a raw image body, besides any `image/…` (the bytes decide the format) and none at all.
    static let rawTypes = ["image/jpeg", "image/png", "image/heic", "image/heif", "image/webp", "application/octet-stream"]

    /// Reads the body: raw image bytes, or a multipart form whose `file` part is the image.
    /// - Throws: ``ServeError`` 503 `queue_full` (before reading), 413 `body_too_large`, 415 `wrong_content_type`, 400 `empty_body`, `missing_file`,
    ///   `bad_multipart`, and the image header's errors (``check(_:limits:)``).
    static func read(_ request: Request, limits: Limits, queue: EngineQueue) async throws -> Upload {
        // A full queue refuses at once: under overload no body is read only to be dropped.
        try queue.checkRoom()
        let contentType = request.headers[.contentType] ?? ""
        let boundary = MultipartForm.boundary(contentType: contentType)
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard boundary != nil || mediaType.isEmpty || mediaType.hasPrefix("image/") || rawTypes.contains(mediaType) else {
            throw ServeError(
                .unsupportedMediaType, "wrong_content_type",
                "send the image as the body (image/jpeg, image/png, image/heic, image/webp or application/octet-stream) or as the 'file' part of multipart/form-data, not \(mediaType)")
        }
        let body = try await collect(request, maxBytes: limits.maxBodyBytes)
        guard !body.isEmpty else { throw ServeError(.badRequest, "empty_body", "the request has no body: send an image") }
        if let boundary {
            let form = try MultipartForm(body: body, boundary: boundary)
            guard let file = form.part("file") else {
                throw ServeError(.badRequest, "missing_file", "the multipart form has no 'file' part")
            }
            guard !file.data.isEmpty else { throw ServeError(.badRequest, "empty_body", "the 'file' part is empty") }
            try check(file.data, limits: limits)
            return Upload(image: file.data, form: form, name: file.filename.map { URL(fileURLWithPath: $0).lastPathComponent })
        }
        try check(body, limits: limits)
        return Upload(image: body, form: nil, name: nil)
    }

    /// The body, refused (413) as soon as it passes `maxBytes` (or announces more with `Content-Length`).
    static func collect(_ request: Request, maxBytes: Int) async throws -> Data {
        let tooLarge = ServeError(.contentTooLarge, "body_too_large", "the body is larger than the server's limit of \(maxBytes) bytes (--max-body-mb)")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBytes { throw tooLarge }
        var data = Data()
        for try await buffer in request.body {
            guard data.count + buffer.readableBytes <= maxBytes else { throw tooLarge }
            buffer.withUnsafeReadableBytes { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Reads the image's header and refuses what cannot be or should not be decoded, before any pixel memory is
    /// allocated: not an image (415), truncated (400), more than `maxPixels` (413).
    static func check(_ image: Data, limits: Limits) throws {
        let info: ImageInfo
        do {
            info = try ImageDecoder.info(data: image)
        } catch let error as ImagingError {
            throw ServeError.image(error)
        }
        guard info.width > 0, info.height > 0 else {
            throw ServeError(.badRequest, "invalid_dimensions", "the image declares a zero side (\(info.width)×\(info.height))")
        }
        guard info.width.multipliedReportingOverflow(by: info.height).partialValue <= limits.maxPixels,
            info.width <= limits.maxPixels, info.height <= limits.maxPixels
        else {
            throw ServeError(
                .contentTooLarge, "too_many_pixels",
                "the image declares \(info.width)×\(info.height) pixels, more than the server's limit of \(limits.maxPixels) (--max-pixels)")
        }
    }

    /// The limits an upload is read within.
    struct Limits: Sendable {
        var maxBodyBytes: Int
        var maxPixels: Int
    }
}
#endif

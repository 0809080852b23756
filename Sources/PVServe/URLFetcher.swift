#if Serve
import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PVCore

/// `GET /api/remove?url=`'s download, with rembg's protections: http and https only; the host's every address
/// public (``AddressPolicy``), checked before the first request and again before following each redirect (redirects
/// are followed here, one at a time, never by the HTTP client); at most `maxRedirects` hops and `maxBytes` of body.
///
/// Known limit: the name is resolved here and again by the HTTP client, so a host whose DNS answer changes between
/// the two (DNS rebinding) is not caught; deployments that need that closed put an egress proxy in front.
struct URLFetcher: Sendable {
    var maxBytes: Int
    var maxRedirects = 3
    var timeout: Double = 20
    /// Refuses a URL before it is requested (the first and every redirected one); tests swap in their own.
    var check: @Sendable (URL) throws -> Void = { try AddressPolicy.check($0) }

    func fetch(_ text: String) async throws -> Data {
        guard var url = URL(string: text), url.scheme != nil else {
            throw ServeError.badParameter("url", "'\(text.prefix(200))' is not an absolute URL")
        }
        for _ in 0...maxRedirects {
            try check(url)
            switch try await get(url) {
            case .body(let data): return data
            case .redirect(let next): url = next
            }
        }
        throw ServeError(.badRequest, "url_refused", "more than \(maxRedirects) redirects")
    }

    private enum Hop { case body(Data), redirect(URL) }

    /// One request, redirects not followed.
    private func get(_ url: URL) async throws -> Hop {
        let collector = Collector(limit: maxBytes)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (response, data) = try await collector.run(session.dataTask(with: url))
        switch response.statusCode {
        case 200..<300: return .body(data)
        case 301, 302, 303, 307, 308:
            guard let location = response.value(forHTTPHeaderField: "Location"), let next = URL(string: location, relativeTo: url) else {
                throw ServeError(.badGateway, "url_fetch_failed", "a redirect without a usable Location")
            }
            return .redirect(next.absoluteURL)
        default:
            throw ServeError(.badGateway, "url_fetch_failed", "the URL answered HTTP \(response.statusCode)")
        }
    }

    /// Collects one task's response and body, refusing bodies over the limit and every redirect.
    private final class Collector: NSObject, URLSessionDataDelegate, Sendable {
        private struct State {
            var data = Data()
            var response: HTTPURLResponse?
            var continuation: CheckedContinuation<(HTTPURLResponse, Data), Error>?
            var failure: Error?
        }
        private let state = Locked(State())
        private let limit: Int

        init(limit: Int) { self.limit = limit }

        func run(_ task: URLSessionDataTask) async throws -> (HTTPURLResponse, Data) {
            try await withCheckedThrowingContinuation { continuation in
                state.withLock { $0.continuation = continuation }
                task.resume()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)  // the caller checks the next host first
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
            let tooLarge = response.expectedContentLength > limit
            state.withLock { s in
                s.response = response as? HTTPURLResponse
                if tooLarge { s.failure = Self.tooLarge(limit) }
            }
            completionHandler(tooLarge ? .cancel : .allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let over = state.withLock { s -> Bool in
                s.data.append(data)
                if s.data.count > limit { s.failure = Self.tooLarge(limit) }
                return s.data.count > limit
            }
            if over { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            let (continuation, result) = state.withLock { s -> (CheckedContinuation<(HTTPURLResponse, Data), Error>?, Result<(HTTPURLResponse, Data), Error>) in
                defer { s.continuation = nil }
                if let failure = s.failure { return (s.continuation, .failure(failure)) }
                if let error { return (s.continuation, .failure(ServeError(.badGateway, "url_fetch_failed", "the download failed: \(error.localizedDescription)"))) }
                guard let response = s.response else {
                    return (s.continuation, .failure(ServeError(.badGateway, "url_fetch_failed", "no HTTP response")))
                }
                return (s.continuation, .success((response, s.data)))
            }
            continuation?.resume(with: result)
        }

        static func tooLarge(_ limit: Int) -> ServeError {
            ServeError(.contentTooLarge, "body_too_large", "the URL's content is larger than \(limit) bytes")
        }
    }
}
#endif

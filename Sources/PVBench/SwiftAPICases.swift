import Foundation
import PVCore
import PeopleVision

/// The benchmarks' requests performed through the Swift-only API (iOS 18's), for rows measured through both APIs.
enum SwiftAPICases {
    /// The faces bench's cases by name (revision 2 rectangles have no Swift-API request).
    static let faces: [String: @Sendable (CVPixelBuffer) async throws -> Int] = [
        "rectangles rev 3 (with pose)": { buffer in
            try await ImageRequestHandler(buffer).perform(DetectFaceRectanglesRequest()).count
        },
        "landmarks rev 3": { buffer in
            try await ImageRequestHandler(buffer).perform(DetectFaceLandmarksRequest()).filter { $0.landmarks != nil }.count
        },
        "capture quality rev 3": { buffer in
            try await ImageRequestHandler(buffer).perform(DetectFaceCaptureQualityRequest()).filter { $0.captureQuality != nil }.count
        },
        "rectangles rev 3 + landmarks + capture quality, one handler": { buffer in
            let (_, _, quality) = try await ImageRequestHandler(buffer).perform(
                DetectFaceRectanglesRequest(), DetectFaceLandmarksRequest(), DetectFaceCaptureQualityRequest())
            return quality.filter { $0.captureQuality != nil }.count
        },
    ]

    /// Waits for `body`, run as a task, on the calling (non-task) thread.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let value = try await body()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}

import Foundation
import PVCore
import PVTestSupport
import PeopleVision
import Testing

/// Cancelling stops a perform between model runs, not only between requests: a lone accurate person mask (dozens of
/// model runs) cancelled a third of the way through its usual time ends with a cancellation instead of a result.
@Suite(.serialized) struct MidRequestCancellationTests {
    /// A 1920×1080 picture of the astronaut (the accurate mask's multi-scale search runs many models on it).
    static func picture() throws -> CGImage {
        let image = try #require(CIImage(contentsOf: try TestFiles.installed("astronaut.png")))
        let scaled = image.transformed(by: CGAffineTransform(scaleX: 1920 / image.extent.width, y: 1080 / image.extent.height))
        return try #require(CIContext().createCGImage(scaled, from: CGRect(x: 0, y: 0, width: 1920, height: 1080)))
    }

    /// Seconds one accurate mask takes here, after a warm-up run.
    static func usualTime(_ image: CGImage) throws -> Double {
        func once() throws -> Double {
            let request = VNGeneratePersonSegmentationRequest()
            request.qualityLevel = .accurate
            let start = DispatchTime.now().uptimeNanoseconds
            try VNImageRequestHandler(cgImage: image).perform([request])
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        _ = try once()
        return try once()
    }

    @Test func vnRequestCancelStopsBeforeTheNextModelRun() throws {
        let image = try Self.picture()
        let usual = try Self.usualTime(image)
        let request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .accurate
        let reported = Locked<NSError?>(nil)
        let failure = Locked<NSError?>(nil)
        let request2 = VNGeneratePersonSegmentationRequest { _, error in reported.withLock { $0 = error as NSError? } }
        request2.qualityLevel = .accurate
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do { try VNImageRequestHandler(cgImage: image).perform([request2]) } catch { failure.withLock { $0 = error as NSError } }
            done.signal()
        }
        Thread.sleep(forTimeInterval: usual * 0.3)
        request2.cancel()
        done.wait()
        let error = try #require(failure.withLock { $0 })
        #expect(error.domain == VNErrorDomain && error.code == VNErrorCode.requestCancelled.rawValue)
        // The engine stopped before its next stage (its own message), rather than finishing and dropping the results.
        #expect(error.localizedDescription.contains("stopped before"), "\(error.localizedDescription)")
        #expect(reported.withLock { $0 }?.code == VNErrorCode.requestCancelled.rawValue)
        #expect(request2.results == nil)
        // The same request object performs normally afterwards.
        try VNImageRequestHandler(cgImage: image).perform([request2])
        #expect(request2.results?.count == 1)
        _ = request
    }

    @Test func cancellingTheTaskStopsALoneRequest() async throws {
        let image = try Self.picture()
        let usual = try Self.usualTime(image)
        let request = GeneratePersonSegmentationRequest()
        request.qualityLevel = .accurate
        let handler = ImageRequestHandler(image)
        // One request: without a stop between model runs it would complete and return its mask. `usual` is measured
        // beside the other suites, whose load comes and goes: when a perform ends before the cancel, it is tried
        // again with an earlier one.
        var cancelled = false
        for fraction in [0.3, 0.1, 0.03] where !cancelled {
            let task = Task { try await handler.perform(request) }
            try await Task.sleep(nanoseconds: UInt64(usual * fraction * 1e9))
            task.cancel()
            do {
                let mask = try await task.value
                #expect(try mask.cgImage.width > 0)
            } catch {
                #expect(error is CancellationError, "\(error)")
                cancelled = true
            }
        }
        #expect(cancelled)
        // The handler still works.
        let mask = try await handler.perform(request)
        #expect(try mask.cgImage.width > 0)
    }
}

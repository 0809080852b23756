// Error handling as apps write it: Vision's errors are NSErrors in VNErrorDomain, told apart by VNErrorCode; a failed
// perform also reaches the completion handler.
import CoreVideo
import Foundation
import Testing
import Vision

@Suite struct ErrorPatterns {
    /// The message an app shows for a Vision failure.
    static func message(for error: Error) -> String {
        let error = error as NSError
        guard error.domain == VNErrorDomain, let code = VNErrorCode(rawValue: error.code) else { return "Something went wrong." }
        switch code {
        case .invalidImage, .invalidFormat, .ioError: return "This picture cannot be read."
        case .unsupportedRevision: return "Update the app."
        case .invalidOption, .invalidArgument: return "Bad settings."
        case .requestCancelled: return "Cancelled."
        default: return "Vision failed (\(code.rawValue))."
        }
    }

    static func visionCode(_ body: () throws -> Void) -> VNErrorCode? {
        do {
            try body()
            return nil
        } catch let error as NSError where error.domain == VNErrorDomain {
            return VNErrorCode(rawValue: error.code)
        } catch {
            return .unknownError
        }
    }

    @Test func unsupportedRevisionAndBadOptions() throws {
        let url = try Samples.image("astronaut.png")
        let future = VNDetectHumanBodyPoseRequest()
        future.revision = 99
        #expect(Self.visionCode { try VNImageRequestHandler(url: url).perform([future]) } == .unsupportedRevision)
        #expect(Self.message(for: NSError(domain: VNErrorDomain, code: VNErrorCode.unsupportedRevision.rawValue)) == "Update the app.")

        // A colour format is no mask format.
        let segmentation = VNGeneratePersonSegmentationRequest()
        segmentation.outputPixelFormat = kCVPixelFormatType_32BGRA
        let code = Self.visionCode { try VNImageRequestHandler(url: url).perform([segmentation]) }
        #expect(code == .invalidOption || code == .invalidArgument, "\(String(describing: code))")
        #expect(segmentation.results == nil)

        // A region of interest outside the image.
        let faces = VNDetectFaceRectanglesRequest()
        faces.regionOfInterest = CGRect(x: 0.5, y: 0.5, width: 0.8, height: 0.8)
        #expect(Self.visionCode { try VNImageRequestHandler(url: url).perform([faces]) } != nil)
    }

    @Test func unreadablePicturesReachTheCompletionHandler() throws {
        var reported: Error?
        var called = false
        let request = VNDetectFaceLandmarksRequest { _, error in
            called = true
            reported = error
        }
        let garbage = Data("definitely not a picture".utf8)
        #expect(Self.visionCode { try VNImageRequestHandler(data: garbage, options: [:]).perform([request]) } != nil)
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-photo-\(UUID().uuidString).jpg")
        do {
            try VNImageRequestHandler(url: missing, options: [:]).perform([request])
            Issue.record("a missing file performed")
        } catch {
            #expect(Self.message(for: error) != "Something went wrong.", "\(error)")
        }
        // The completion handler heard of it too (if it was called at all, it was with the error).
        if called { #expect(reported != nil) }
        #expect(request.results == nil || request.results?.isEmpty == true)
    }
}

import Foundation
import PVCore
import PVImaging
import PVTestSupport
@testable import PeopleVision
import Testing

/// Servers perform many handlers at once. The pipelines share loaded models, interpreter pools, worker threads and
/// per-handler caches, so a race would show as a result that differs from the same request performed alone.
@Suite("Handlers performing every request kind at once on several threads")
struct ConcurrentHandlersTests {
    enum Kind: CaseIterable {
        case segmentation, faces, bodies, hands, humans, instances, bodies3D
    }

    /// Everything a request reports, as numbers in a fixed order: any difference in any result changes it.
    static func results(_ kind: Kind, _ image: CGImage) throws -> [Double] {
        let handler = VNImageRequestHandler(cgImage: image)
        switch kind {
        case .segmentation:
            let request = VNGeneratePersonSegmentationRequest()
            request.qualityLevel = .accurate
            request.outputPixelFormat = kCVPixelFormatType_OneComponent8
            try handler.perform([request])
            let mask = try #require(request.results?.first?.pixelBuffer)
            CVPixelBufferLockBaseAddress(mask, .readOnly)
            defer { CVPixelBufferUnlockBaseAddress(mask, .readOnly) }
            let rowBytes = CVPixelBufferGetBytesPerRow(mask), width = CVPixelBufferGetWidth(mask)
            let base = try #require(CVPixelBufferGetBaseAddress(mask)).assumingMemoryBound(to: UInt8.self)
            return [Double(width)] + (0..<CVPixelBufferGetHeight(mask)).flatMap { y in (0..<width).map { Double(base[y * rowBytes + $0]) } }
        case .faces:
            let request = VNDetectFaceLandmarksRequest()
            try handler.perform([request])
            return try (request.results ?? []).flatMap { face -> [Double] in
                let b = face.boundingBox
                let points = try #require(face.landmarks?.allPoints).normalizedPoints.flatMap { [Double($0.x), Double($0.y)] }
                return [b.minX, b.minY, b.width, b.height, face.roll?.doubleValue ?? 9, face.yaw?.doubleValue ?? 9].map { Double($0) } + points
            }
        case .bodies:
            let request = VNDetectHumanBodyPoseRequest()
            try handler.perform([request])
            return try (request.results ?? []).flatMap { body -> [Double] in
                try body.availableJointNames.flatMap { name -> [Double] in
                    let p = try body.recognizedPoint(name)
                    return [Double(p.location.x), Double(p.location.y), Double(p.confidence)]
                }
            }
        case .hands:
            let request = VNDetectHumanHandPoseRequest()
            try handler.perform([request])
            return try (request.results ?? []).flatMap { hand -> [Double] in
                [Double(hand.chirality.rawValue)]
                    + (try hand.recognizedPoints(.all)).sorted { $0.key.rawValue.rawValue < $1.key.rawValue.rawValue }
                    .flatMap { [Double($0.value.location.x), Double($0.value.location.y), Double($0.value.confidence)] }
            }
        case .humans:
            let request = VNDetectHumanRectanglesRequest()
            request.upperBodyOnly = false
            try handler.perform([request])
            return (request.results ?? []).flatMap { h in
                [h.boundingBox.minX, h.boundingBox.minY, h.boundingBox.width, h.boundingBox.height].map { Double($0) } + [Double(h.confidence)]
            }
        case .instances:
            let request = VNGeneratePersonInstanceMaskRequest()
            try handler.perform([request])
            let result = try #require(request.results?.first)
            let mask = try result.generateScaledMaskForImage(forInstances: result.allInstances, from: handler).pixelBuffer
            let labels = result.instanceMask.pixelBuffer
            return [Double(result.allInstances.count)] + labels.withUnsafeBytes { $0.map(Double.init) }
                + mask.withUnsafeBytes { raw in raw.bindMemory(to: Float.self).map(Double.init) }
        case .bodies3D:
            let request = VNDetectHumanBodyPose3DRequest()
            try handler.perform([request])
            return try (request.results ?? []).flatMap { body -> [Double] in
                try body.availableJointNames.flatMap { name -> [Double] in
                    let c = try body.cameraRelativePosition(name).columns.3
                    let p = try body.pointInImage(name)
                    return [Double(c.x), Double(c.y), Double(c.z), p.x, p.y]
                }
            }
        }
    }

    @Test("every request kind on three images, performed twice over at once, gives the results it gives alone")
    func concurrentResultsEqualSerialOnes() throws {
        // The two sample photos, and the hand fixtures' crop of a gloved hand.
        var images = try ["astronaut.png", "camera.png"].map { name in
            (name, CGImage(buffer: try ImageDecoder.decode(contentsOf: TestFiles.installed(name)).pixels))
        }
        let hands = try #require(try HandGolden.load().cases.first { $0.name == "camera-glove" })
        images.append((hands.name, CGImage(buffer: try HandGolden.image(hands))))
        // Kind by kind, so the threads run the same request on different images at the same time.
        let jobs = Kind.allCases.flatMap { kind in images.map { ($0, kind) } }
        let alone = try jobs.map { try Self.results($0.1, $0.0.1) }
        for kind in Kind.allCases {
            #expect(zip(jobs, alone).contains { $0.0.1 == kind && !$0.1.isEmpty }, "\(kind) finds something on one of the images")
        }
        let together = Locked<[Int: [Double]]>([:])
        let failures = Locked<[String]>([])
        // Two rounds of every job.
        DispatchQueue.concurrentPerform(iterations: 2 * jobs.count) { i in
            let k = i % jobs.count
            do {
                let r = try Self.results(jobs[k].1, jobs[k].0.1)
                together.withLock { $0[i] = r }
            } catch {
                failures.withLock { $0.append("\(jobs[k].1) on \(jobs[k].0.0): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        for i in 0..<(2 * jobs.count) {
            let k = i % jobs.count
            let r = together.withLock { $0[i] } ?? []
            let differing = zip(r, alone[k]).filter { $0 != $1 }.count + abs(r.count - alone[k].count)
            #expect(differing == 0, "\(jobs[k].1) on \(jobs[k].0.0), performed beside others: \(differing) values differ")
        }
    }
}

import Foundation
import PeopleVision
import PVImaging
import PVTestSupport
import Testing

/// The 3-D body pose with depth, through the public API: a sample photo with a depth map that places the person at
/// a known distance, seen by a known camera.
@Suite struct BodyPose3DDepthEndToEndTests {
    typealias Joint = VNHumanBodyPose3DObservation.JointName
    /// The scene: the astronaut (512 × 512) 1.2 m from a camera of 600-px focal length (a 49° field of view),
    /// principal point at the centre, which makes her shoulders about 0.39 m apart. The calibration is given at
    /// twice the image's resolution, as a sensor's full frame would be.
    static let distance: Float = 1.2, focal: Float = 600

    static func photo() throws -> CVPixelBuffer {
        let decoded = try ImageDecoder.decode(data: try Data(contentsOf: try TestFiles.installed("astronaut.png")))
        var pixels: CVPixelBuffer?
        let w = decoded.pixels.width, h = decoded.pixels.height
        #expect(CVPixelBufferCreate(nil, w, h, kCVPixelFormatType_32RGBA, nil, &pixels) == kCVReturnSuccess)
        let buffer = try #require(pixels)
        let rgba = try decoded.pixels.converted(to: .rgba32)
        CVPixelBufferLockBaseAddress(buffer, [])
        let base = try #require(CVPixelBufferGetBaseAddress(buffer)), row = CVPixelBufferGetBytesPerRow(buffer)
        rgba.withUnsafeBytes { source in
            for y in 0..<h { (base + y * row).copyMemory(from: source.baseAddress! + y * rgba.bytesPerRow(), byteCount: 4 * w) }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])
        return buffer
    }

    static func calibration() -> AVCameraCalibrationData {
        AVCameraCalibrationData(
            intrinsicMatrix: matrix_float3x3(SIMD3(2 * focal, 0, 0), SIMD3(0, 2 * focal, 0), SIMD3(512, 512, 1)),
            intrinsicMatrixReferenceDimensions: CGSize(width: 1024, height: 1024))
    }

    /// A `width × height` depth map holding `value` everywhere (a plane at that distance).
    static func depth(_ value: Float, width: Int = 128, height: Int = 128, calibrated: Bool = true) throws -> AVDepthData {
        var map: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_DepthFloat32, nil, &map) == kCVReturnSuccess)
        let buffer = try #require(map)
        CVPixelBufferLockBaseAddress(buffer, [])
        let base = try #require(CVPixelBufferGetBaseAddress(buffer)), row = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0..<height { for x in 0..<width { base.storeBytes(of: value, toByteOffset: y * row + 4 * x, as: Float.self) } }
        CVPixelBufferUnlockBaseAddress(buffer, [])
        return try AVDepthData(depthDataMap: buffer, cameraCalibrationData: calibrated ? calibration() : nil)
    }

    static func perform(_ handler: VNImageRequestHandler) throws -> VNHumanBodyPose3DObservation {
        let request = VNDetectHumanBodyPose3DRequest()
        try handler.perform([request])
        return try #require(request.results?.first)
    }

    static func position(_ body: VNHumanBodyPose3DObservation, _ joint: Joint) throws -> SIMD3<Float> {
        let m = try body.cameraRelativePosition(joint)
        return SIMD3(m.columns.3.x, m.columns.3.y, m.columns.3.z)
    }

    /// The shoulders' spacing in the picture, pixels, from MediaPipe's landmarks of the photo (the pose fixture,
    /// recorded by MediaPipe's own Python pipeline): at the scene's distance, `spacing × distance / focal` metres.
    static func shoulderSpacing() throws -> Float {
        struct Fixture: Decodable {
            struct Point: Decodable { let x: Float, y: Float }
            let width: Float, height: Float, landmarks: [Point]
        }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pose/astronaut.json")
        let f = try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
        let l = f.landmarks[11], r = f.landmarks[12]
        let dx = (l.x - r.x) * f.width, dy = (l.y - r.y) * f.height
        return (dx * dx + dy * dy).squareRoot()
    }

    @Test func depthPlacesAndMeasuresThePerson() throws {
        let photo = try Self.photo()
        let body = try Self.perform(VNImageRequestHandler(cvPixelBuffer: photo, depthData: try Self.depth(Self.distance), orientation: .up))
        #expect(body.heightEstimation == .measured)

        // She stands at the depth map's distance (Vision's camera looks along −z), measured at her shoulders. The
        // plane is flat and she is not: her head leans toward the camera in the model's skeleton, and her hips are
        // below the picture's edge (where they are is the model's guess), so only the torso is held to the plane.
        let shoulders = try Self.position(body, .centerShoulder)
        #expect(abs(-shoulders.z - Self.distance) <= 0.05 * Self.distance, "shoulders at \(-shoulders.z) m")
        // Her shoulders are as far apart as the photo shows them at that distance.
        let left = try Self.position(body, .leftShoulder), right = try Self.position(body, .rightShoulder)
        let breadth = ((left.x - right.x) * (left.x - right.x) + (left.y - right.y) * (left.y - right.y)).squareRoot()
        let truth = try Self.shoulderSpacing() * Self.distance / Self.focal
        #expect(abs(breadth - truth) <= 0.05 * truth, "shoulder breadth \(breadth) m against \(truth) m")

        // The same person without depth, with the same camera, is the 1.8-m reference: her measured height is that
        // reference scaled by how much nearer or farther the depth put her (a single view fixes only that ratio).
        let k = matrix_float3x3(SIMD3(Self.focal, 0, 0), SIMD3(0, Self.focal, 0), SIMD3(256, 256, 1))
        let reference = try Self.perform(VNImageRequestHandler(cvPixelBuffer: photo, orientation: .up, options: [.cameraIntrinsics: k]))
        #expect(reference.heightEstimation == .reference && reference.bodyHeight == 1.8)
        let ratio = shoulders.z / (try Self.position(reference, .centerShoulder)).z
        #expect(abs(body.bodyHeight - 1.8 * ratio) <= 0.01 * body.bodyHeight, "height \(body.bodyHeight), ratio \(ratio)")
        #expect(body.bodyHeight > 1.0 && body.bodyHeight < 2.4)
    }

    @Test func holesAndMismatchedMapsFallBackToTheReference() throws {
        let photo = try Self.photo()
        let nan = try Self.depth(.nan), zero = try Self.depth(0), wide = try Self.depth(Self.distance, width: 128, height: 64)
        let relative = try AVDepthData(depthDataMap: try Self.depth(Self.distance).depthDataMap, depthDataAccuracy: .relative)
        for (name, depth) in [("NaN", nan), ("zero", zero), ("another aspect ratio", wide), ("relative accuracy", relative)] {
            let body = try Self.perform(VNImageRequestHandler(cvPixelBuffer: photo, depthData: depth, orientation: .up))
            #expect(body.heightEstimation == .reference && body.bodyHeight == 1.8, "\(name)")
        }
        // Disparity serves as well as depth; a map without calibration uses the assumed lens, and still measures.
        let disparity = try Self.depth(Self.distance, calibrated: false).converting(toDepthDataType: kCVPixelFormatType_DisparityFloat16)
        let body = try Self.perform(VNImageRequestHandler(cvPixelBuffer: photo, depthData: disparity, orientation: .up))
        #expect(body.heightEstimation == .measured)
        #expect(abs(-(try Self.position(body, .centerShoulder)).z - Self.distance) <= 0.05 * Self.distance)
    }

    @Test func depthInAHEICFileAndTheSwiftAPI() async throws {
        let photo = try Self.photo()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("depth-pose-\(UUID().uuidString).heic")
        defer { try? FileManager.default.removeItem(at: url) }
        try CIContext().writeHEIFRepresentation(
            of: CIImage(cvPixelBuffer: photo), to: url, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!,
            options: [.avDepthData: try Self.depth(Self.distance)])
        let fromFile = try Self.perform(VNImageRequestHandler(url: url))
        #expect(fromFile.heightEstimation == .measured)
        // The file's depth serves as the depth handed in does: the same distance, within what the photo's lossy
        // compression moves her landmarks.
        let shoulders = try Self.position(fromFile, .centerShoulder)
        let given = try Self.position(try Self.perform(VNImageRequestHandler(cvPixelBuffer: photo, depthData: try Self.depth(Self.distance), orientation: .up)), .centerShoulder)
        #expect(abs(shoulders.z / given.z - 1) <= 0.04, "from the file \(shoulders), given \(given)")

        let handler = ImageRequestHandler(photo, depthData: try Self.depth(Self.distance))
        let observation = try #require(try await handler.perform(DetectHumanBodyPose3DRequest()).first)
        #expect(observation.heightEstimationTechnique == .measured)
        #expect(abs(observation.bodyHeight.value - Double(fromFile.bodyHeight)) <= 0.05 * observation.bodyHeight.value)
        let plain = try #require(try await ImageRequestHandler(photo).perform(DetectHumanBodyPose3DRequest()).first)
        #expect(plain.heightEstimationTechnique == .reference)
    }

    /// A depth map in metres, `(x, y) → value` over `width × height`, upright, then stored as `stored` says.
    static func storedDepth(
        width: Int, height: Int, stored: Orientation, calibration: AVCameraCalibrationData, _ value: (Int, Int) -> Float
    ) throws -> AVDepthData {
        var map = try PixelBuffer(width: width, height: height, format: .oneComponent32Float)
        let row = map.bytesPerRow()
        map.withUnsafeMutableBytes { bytes in
            for y in 0..<height { for x in 0..<width { bytes.storeBytes(of: value(x, y), toByteOffset: y * row + 4 * x, as: Float.self) } }
        }
        let turned = try map.applying(stored.inverse)
        return try AVDepthData(
            depthDataMap: CVPixelBuffer(turned, formatType: kCVPixelFormatType_DepthFloat32), cameraCalibrationData: calibration)
    }

    /// A frame stored turned (as a phone's sensor delivers a portrait picture), with its depth and calibration stored
    /// the same way, measures as the upright frame does: the handler turns the depth with the pixels and the
    /// calibration's intrinsics with them.
    @Test func aTurnedFrameWithTurnedDepthMeasuresAsTheUprightOne() throws {
        let decoded = try ImageDecoder.decode(data: try Data(contentsOf: try TestFiles.installed("astronaut.png")))
        let upright = try decoded.pixels.converted(to: .rgba32).cropped(x: 0, y: 0, width: 512, height: 400)
        // Nearer at the top: a map turned the wrong way would put the gradient across her.
        func ramp(_ x: Int, _ y: Int) -> Float { 1.0 + 0.4 * Float(y) / 99 }
        // Upright: focal 600 px, principal point at (250, 190), given at twice the resolution.
        let uprightCalibration = AVCameraCalibrationData(
            intrinsicMatrix: matrix_float3x3(SIMD3(1200, 0, 0), SIMD3(0, 1200, 0), SIMD3(500, 380, 1)),
            intrinsicMatrixReferenceDimensions: CGSize(width: 1024, height: 800))
        let straight = try Self.perform(VNImageRequestHandler(
            cvPixelBuffer: CVPixelBuffer(upright),
            depthData: try Self.storedDepth(width: 128, height: 100, stored: .up, calibration: uprightCalibration, ramp),
            orientation: .up))
        #expect(straight.heightEstimation == .measured)

        // Stored turned a quarter: shown with `.right`, the stored frame's top row is the picture's right column.
        // The calibration describes the stored frame: its principal point is where (250, 190) lies in it.
        let stored = try upright.applying(Orientation.right.inverse)
        #expect(stored.width == 400 && stored.height == 512)
        let storedCalibration = AVCameraCalibrationData(
            intrinsicMatrix: matrix_float3x3(SIMD3(1200, 0, 0), SIMD3(0, 1200, 0), SIMD3(380, 1024 - 500, 1)),
            intrinsicMatrixReferenceDimensions: CGSize(width: 800, height: 1024))
        let turned = try Self.perform(VNImageRequestHandler(
            cvPixelBuffer: CVPixelBuffer(stored),
            depthData: try Self.storedDepth(width: 128, height: 100, stored: .right, calibration: storedCalibration, ramp),
            orientation: .right))
        #expect(turned.heightEstimation == .measured)
        #expect(abs(turned.bodyHeight - straight.bodyHeight) <= 0.01 * straight.bodyHeight, "\(turned.bodyHeight) against \(straight.bodyHeight)")
        let a = try Self.position(turned, .centerShoulder), b = try Self.position(straight, .centerShoulder)
        #expect(((a - b) * (a - b)).sum().squareRoot() <= 0.01 * -b.z, "shoulders \(a) against \(b)")
    }
}

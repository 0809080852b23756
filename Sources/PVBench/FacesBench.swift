import ArgumentParser
import Foundation
import PVImaging
import PVInference
import PeopleVision
import PVPerception

/// `peoplevision bench faces`: the face requests against MediaPipe's Python face detection and face mesh
/// (mediapipe 0.10.21), same images, same run.
package struct FacesBench: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "faces",
        abstract: "Face rectangles, landmarks and capture quality: ours vs MediaPipe face detection / face mesh (Python).",
        discussion: """
            Test images: the installed astronaut.png and camera.png (512×512, one face each) and astronaut.png \
            stretched to 1920×1080, saved as JPEG (quality 90) under .build/bench-faces. Ours: a new \
            VNImageRequestHandler(cvPixelBuffer:) on a pre-decoded 32BGRA buffer and a new request per call; \
            the peer: solution.process(rgb) on a decoded RGB array (static_image_mode, so its detector runs \
            every call, as ours does). Pairs: rectangles revision 2 (both detectors, merged) vs FaceDetection \
            model_selection=1; rectangles revision 3 (both detectors + one face-mesh run per face for the \
            head pose) vs FaceMesh (short-range detector + face mesh per face); landmarks (revision 3 \
            rectangles + iris model on both eyes) vs FaceMesh refine_landmarks=True (detector + attention \
            mesh); capture quality (landmarks + the quality measures) vs the same FaceMesh refine_landmarks=True; \
            and the three requests performed together on one handler (they share the detections and meshes) vs \
            the same FaceMesh refine_landmarks=True. Both sides are timed in --rounds rounds, which side goes \
            first alternating; each time is the median of its round medians.
            """)

    static let images: [(name: String, width: Int, height: Int)] = [
        ("astronaut.png", 512, 512), ("camera.png", 512, 512), ("astronaut.png", 1920, 1080),
    ]

    @Option(help: "Timed runs per measurement.") var iterations = 20
    @Option(help: "Untimed warm-up runs.") var warmup = 3
    @Option(help: "Rounds, alternating which side goes first; each side's time is the median of its round medians.")
    var rounds = 3
    @Flag(help: "Only time the pipeline's stages (detectors, mesh, iris) and their parts (bare model run, input sampling, decoding), then the requests, on astronaut.png; no peer.") var stages = false
    @Option(help: "XNNPACK threads for --stages (default: the usable cores).") var threads: Int?
    @Flag(help: SwiftAPICases.flagHelp)
    var swiftAPI = false

    package init() {}

    package func validate() throws {
        guard iterations > 0, warmup >= 0, rounds > 0 else {
            throw ValidationError("iterations and rounds must be positive and warm-up non-negative")
        }
    }

    package func run() throws {
        if stages { return try timeStages() }
        let peer = try Peer(venvName: "peer-venv-mediapipe")
        try peer.prepare(requirements: "requirements-segmentation.txt")
        let dir = peer.root.appendingPathComponent(".build/bench-faces")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        log("writing the test images to \(dir.path)")
        var files: [URL] = []
        for image in Self.images {
            let source = try ImageDecoder.decode(contentsOf: ModelStore.default.url(for: image.name)).pixels
            let pixels = source.width == image.width && source.height == image.height
                ? source : try source.resized(width: image.width, height: image.height, method: .bilinear)
            let stem = URL(fileURLWithPath: image.name).deletingPathExtension().lastPathComponent
            let file = dir.appendingPathComponent("\(stem)-\(image.width)x\(image.height).jpg")
            try ImageEncoder.encode(pixels, as: .jpeg(quality: 90)).write(to: file, options: .atomic)
            files.append(file)
        }

        let cases: [(String, String, String, @Sendable (VNImageRequestHandler) throws -> Int)] = [
            ("rectangles rev 2", "facedet1", "FaceDetection model_selection=1", { try Self.rectangles($0, revision: 2) }),
            ("rectangles rev 3 (with pose)", "facemesh", "FaceMesh refine_landmarks=False", { try Self.rectangles($0, revision: 3) }),
            ("landmarks rev 3", "facemesh_refine", "FaceMesh refine_landmarks=True", { try Self.landmarks($0) }),
            ("capture quality rev 3", "facemesh_refine", "FaceMesh refine_landmarks=True (ours does more)", { try Self.quality($0) }),
            ("rectangles rev 3 + landmarks + capture quality, one handler", "facemesh_refine",
                "FaceMesh refine_landmarks=True (ours does more)", { try Self.allThree($0) }),
        ]
        func peerRound() throws -> [String: Double] {
            log("peer: MediaPipe face detection and face mesh, \(warmup) + \(iterations) runs per measurement")
            let records = try peer.records(
                "faces_bench.py", ["--images"] + files.map(\.path) + ["--iterations", "\(iterations)", "--warmup", "\(warmup)"])
            return Peer.imageMedians(records, countKey: "faces")
        }
        var oursRoundCount = 0
        func oursRound() throws -> [String: Double] {
            var results: [String: Double] = [:]
            oursRoundCount += 1
            for file in files {
                let buffer = try SegmentationBench.decodedBuffer(file)
                let label = file.deletingPathExtension().lastPathComponent
                for (name, _, _, body) in cases {
                    log("ours: \(name) on \(label)")
                    results.merge(
                        try timeCase(name, label: label, buffer: buffer, swiftFirst: oursRoundCount % 2 == 1, body),
                        uniquingKeysWith: { $1 })
                }
            }
            return results
        }
        let (peerRounds, oursRounds) = try alternatingRounds(rounds, peer: peerRound, ours: oursRound)

        var rows: [[String]] = [], ratios: [Double] = []
        for file in files {
            let label = file.deletingPathExtension().lastPathComponent
            for (name, op, peerName, _) in cases {
                let key = "\(op) \(file.lastPathComponent)"
                // The faces found do not change between rounds (same image, same code): the first round's count.
                guard let theirs = medianOverRounds(peerRounds, key), let theirFaces = peerRounds.first?[key + " faces"] else {
                    throw BenchError("the peer did not report \(op) on \(file.lastPathComponent)")
                }
                let ms = medianOverRounds(oursRounds, "\(name) \(label)") ?? .nan
                let found = Int(oursRounds.first?["\(name) \(label) found"] ?? 0)
                var row = [
                    "\(name), \(label)", String(format: "%.2f", ms), "\(found)", peerName, String(format: "%.2f", theirs),
                    "\(Int(theirFaces))",
                ]
                if swiftAPI { row += SwiftAPICases.columns(oursRounds, key: "\(name) \(label)") }
                rows.append(row)
                ratios.append(ms / theirs)
            }
        }
        printRatioTable(
            header: ["request, image", "ours ms", "ours faces", "peer (MediaPipe 0.10.21)", "peer ms", "peer faces"]
                + (swiftAPI ? SwiftAPICases.header : []),
            rows: rows, ratios: ratios)
    }

    /// One case's median time on one image through the VN API and, with ``swiftAPI``, through the Swift-only API too
    /// (with the share of its time in the Swift API's own code), `swiftFirst` deciding the order.
    private func timeCase(
        _ name: String, label: String, buffer: CVPixelBuffer, swiftFirst: Bool, _ body: @escaping @Sendable (VNImageRequestHandler) throws -> Int
    ) throws -> [String: Double] {
        try SwiftAPICases.time(
            "\(name) \(label)", buffer: buffer, warmup: warmup, iterations: iterations, swiftFirst: swiftFirst,
            swift: swiftAPI ? SwiftAPICases.faces[name] : nil, vn: { try body(VNImageRequestHandler(cvPixelBuffer: $0)) })
    }

    /// Median time of each pipeline stage on astronaut.png, decoded once, and of its parts: the bare model run
    /// (same interpreter type and thread count, input already filled), the input sampling and the output
    /// decoding; the six model runs of a landmark request back to back; then the three requests end to end (32BGRA
    /// buffer, new handler per call, as the main bench). The rows are measured in alternating rounds and each
    /// prints the range of its per-round medians, so a stage and its parts are compared under the same load.
    func timeStages() throws {
        let url = try ModelStore.default.url(for: "astronaut.png")
        let image = try ImageDecoder.decode(contentsOf: url).pixels
        let buffer = try SegmentationBench.decodedBuffer(url)
        let landmarker = try FaceLandmarker(threads: threads)
        let face = try landmarker.detect(in: image).first
        guard let face, let detection = face.detection else { throw BenchError("no face in astronaut.png") }
        let roi = FaceLandmarker.roi(for: detection)
        var meshOnly = FaceLandmarker.Options()
        meshOnly.refineIrises = false
        let bare = try FaceLandmarker(options: meshOnly, threads: threads)
        let mesh = try bare.landmarks(in: image, roi: roi)!
        let eye = FaceLandmarker.irisROI(mesh.landmarks[33].position, mesh.landmarks[133].position)
        func interpreter(_ name: String) throws -> Interpreter {
            try Interpreter(model: CompiledModel.load(named: name), threads: threads ?? Interpreter.defaultThreadCount)
        }
        let shortModel = try interpreter("face_detection_short_range.tflite")
        let fullModel = try interpreter("face_detection_full_range_sparse.tflite")
        let meshModel = try interpreter("face_landmark.tflite")
        let irisModel = try interpreter("iris_landmark.tflite")
        let whole = RotatedRect(covering: image)
        let short = TensorSampler(width: 128, height: 128, range: -1...1, fit: .letterbox, border: .zero)
        let full = TensorSampler(width: 192, height: 192, range: -1...1, fit: .letterbox, border: .zero)
        let meshSampler = TensorSampler(width: 192, height: 192, range: 0...1, fit: .stretch, border: .replicate)
        for (m, s, r) in [(shortModel, short, whole), (fullModel, full, whole), (meshModel, meshSampler, roi)] {
            try m.withInput(0) { _ = try s.sample(image, rect: r, into: $0) }
        }
        try irisModel.withInput(0) { _ = try IrisCropSampler().sample(image, rect: eye, into: $0) }
        var scratch = [Float](repeating: 0, count: 192 * 192 * 3)
        let stages: [(String, () throws -> Void)] = [
            ("short-range detector", { _ = try landmarker.detector.detect(in: image, model: .shortRange) }),
            ("  bare model run", { try shortModel.invoke() }),
            ("  input sampling 128² (letterbox)", { _ = try scratch.withUnsafeMutableBufferPointer { try short.sample(image, rect: whole, into: $0) } }),
            ("full-range detector", { _ = try landmarker.detector.detect(in: image, model: .fullRange) }),
            ("  bare model run", { try fullModel.invoke() }),
            ("  input sampling 192² (letterbox)", { _ = try scratch.withUnsafeMutableBufferPointer { try full.sample(image, rect: whole, into: $0) } }),
            ("combined detectors", { _ = try landmarker.detector.detect(in: image) }),
            ("mesh", { _ = try bare.landmarks(in: image, roi: roi) }),
            ("  bare model run", { try meshModel.invoke() }),
            ("  input sampling 192² (rotated)", { _ = try scratch.withUnsafeMutableBufferPointer { try meshSampler.sample(image, rect: roi, into: $0) } }),
            ("  quantization 192²", { scratch.withUnsafeMutableBufferPointer { InputQuantization.roundToByteLevels($0, range: 0...1) } }),
            ("  decoding 468 points", {
                _ = meshModel.withOutput(0) {
                    LandmarkDecoder(count: 468, valuesPerLandmark: 3, tensorWidth: 192, tensorHeight: 192).decode($0).map { $0.projected(onto: roi) }
                }
            }),
            ("iris (both eyes)", { _ = try landmarker.refiningIrises(mesh, in: image) }),
            ("  bare model run (one eye)", { try irisModel.invoke() }),
            ("  input crop (one eye)", { _ = try scratch.withUnsafeMutableBufferPointer { try IrisCropSampler().sample(image, rect: eye, into: $0) } }),
            ("capture-quality measures", { _ = try FaceCaptureQuality(face: face, in: image) }),
            ("bare runs in the landmark request's order", {
                // short, full, mesh, mesh, iris, iris: each model's weights and buffers are cold again when its turn
                // comes, unlike in the repeated bare runs above.
                for m in [shortModel, fullModel, meshModel, meshModel, irisModel, irisModel] { try m.invoke() }
            }),
            ("request: rectangles rev 2", { _ = try Self.rectangles(VNImageRequestHandler(cvPixelBuffer: buffer), revision: 2) }),
            ("request: rectangles rev 3", { _ = try Self.rectangles(VNImageRequestHandler(cvPixelBuffer: buffer), revision: 3) }),
            ("request: landmarks rev 3", { _ = try Self.landmarks(VNImageRequestHandler(cvPixelBuffer: buffer)) }),
        ]
        let rounds = 5
        var medians = [[Double]](repeating: [], count: stages.count)
        for _ in 0..<rounds {
            for (k, stage) in stages.enumerated() {
                medians[k].append(median(try measure(warmup: warmup, iterations: max(1, iterations / rounds), stage.1)))
            }
        }
        for ((name, _), m) in zip(stages, medians) {
            print(String(format: "%-42@ %7.3f ms  (rounds %.3f–%.3f)", name as NSString, median(m), m.min()!, m.max()!))
        }
        let bareRows = stages.indices.filter { stages[$0].0.hasPrefix("  bare model run") }.map { median(medians[$0]) }
        if bareRows.count == 4 {
            let sum = bareRows[0] + bareRows[1] + 2 * bareRows[2] + 2 * bareRows[3]
            print(String(format: "%-42@ %7.3f ms", "sum of the repeated bare runs (same six)" as NSString, sum))
        }
    }

    static func rectangles(_ handler: VNImageRequestHandler, revision: Int) throws -> Int {
        let request = VNDetectFaceRectanglesRequest()
        request.revision = revision
        try handler.perform([request])
        return request.results?.count ?? 0
    }

    static func landmarks(_ handler: VNImageRequestHandler) throws -> Int {
        let request = VNDetectFaceLandmarksRequest()
        try handler.perform([request])
        return request.results?.filter { $0.landmarks != nil }.count ?? 0
    }

    /// The three face requests on one handler, as an app asking for everything does: they share the detections
    /// and meshes.
    static func allThree(_ handler: VNImageRequestHandler) throws -> Int {
        let rectangles = VNDetectFaceRectanglesRequest(), landmarks = VNDetectFaceLandmarksRequest()
        let quality = VNDetectFaceCaptureQualityRequest()
        try handler.perform([rectangles, landmarks, quality])
        return quality.results?.filter { $0.faceCaptureQuality != nil }.count ?? 0
    }

    static func quality(_ handler: VNImageRequestHandler) throws -> Int {
        let request = VNDetectFaceCaptureQualityRequest()
        try handler.perform([request])
        return request.results?.filter { $0.faceCaptureQuality != nil }.count ?? 0
    }
}

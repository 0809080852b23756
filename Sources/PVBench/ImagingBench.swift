import ArgumentParser
import Foundation
import PVImaging

/// `peoplevision bench imaging`: PVImaging's codecs and kernels against OpenCV, same 1920×1080 JPEG, same run.
package struct ImagingBench: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "imaging",
        abstract: "Latency per operation on a 1920×1080 image: PVImaging vs OpenCV (opencv-python-headless).",
        discussion: """
            Operations: JPEG decode and encode (quality 90), PNG encode (each side's default settings), bilinear \
            resize to 256×256, and a masked blend (foreground, background, one-channel 8-bit mask). Ours works on \
            RGBA, OpenCV on BGR. \
            --threads sets PEOPLEVISION_IMAGING_THREADS for ours and cv2.setNumThreads for OpenCV.
            """)

    static let width = 1920, height = 1080

    @Option(help: "Timed runs per operation.") var iterations = 50
    @Option(help: "Untimed warm-up runs.") var warmup = 5
    @Option(help: "Threads for the kernels, ours and OpenCV's.") var threads = 1

    package init() {}

    package func validate() throws {
        guard iterations > 0, warmup >= 0 else { throw ValidationError("iterations must be positive and warm-up non-negative") }
        guard threads >= 1 else { throw ValidationError("threads must be at least 1") }
    }

    package func run() throws {
        // ImagingThreads.maximum reads the variable once, at its first use, which is after this.
        setenv("PEOPLEVISION_IMAGING_THREADS", "\(threads)", 1)
        guard ImagingThreads.maximum == threads else {
            throw BenchError("PVImaging's thread count was fixed at \(ImagingThreads.maximum) before the bench could set it")
        }

        let peer = try Peer()
        try peer.prepare(requirements: "requirements-imaging.txt")

        log("generating the \(Self.width)×\(Self.height) test images")
        let image = try Self.testImage(phase: 0)
        let background = try Self.testImage(phase: 1.7)
        let mask = try Self.softMask()
        let jpeg = try ImageEncoder.encode(image, as: .jpeg(quality: 90))
        let dir = peer.root.appendingPathComponent(".build/bench-imaging")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("test-\(Self.width)x\(Self.height)-q90.jpg")
        try jpeg.write(to: file, options: .atomic)

        log("peer: OpenCV, \(threads) thread(s)")
        let out = try peer.script(
            "imaging_bench.py",
            ["--image", file.path, "--iterations", "\(iterations)", "--warmup", "\(warmup)", "--threads", "\(threads)"])
        var peerMs: [String: Double] = [:]
        for line in out.split(separator: "\n") {
            guard let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let op = obj["op"] as? String, let ms = obj["median_ms"] as? Double
            else { continue }
            peerMs[op] = ms
        }

        log("ours: PVImaging, \(threads) thread(s)")
        let decoded = try ImageDecoder.decode(data: jpeg, options: ImageDecoder.Options()).pixels
        let ops: [(String, () throws -> Void)] = [
            ("jpeg_decode", { _ = try ImageDecoder.decode(data: jpeg, options: ImageDecoder.Options()) }),
            ("jpeg_encode", { _ = try ImageEncoder.encode(decoded, as: .jpeg(quality: 90)) }),
            ("png_encode", { _ = try ImageEncoder.encode(decoded, as: .png) }),
            ("resize_256", { _ = try decoded.resized(width: 256, height: 256, method: .bilinear) }),
            ("blend", { _ = try PixelBuffer.blend(foreground: decoded, background: background, mask: mask) }),
        ]
        var rows: [[String]] = [], ratios: [Double] = []
        for (op, body) in ops {
            let ours = median(try measure(warmup: warmup, iterations: iterations, body))
            guard let theirs = peerMs[op] else { throw BenchError("the peer did not report \(op)") }
            rows.append([op, String(format: "%.3f", ours), String(format: "%.3f", theirs)])
            ratios.append(ours / theirs)
        }
        printRatioTable(header: ["op", "ours ms", "OpenCV ms"], rows: rows, ratios: ratios)
    }

    /// A deterministic RGBA test picture: smooth gradients plus sinusoidal texture at a few scales,
    /// so it compresses like a photo (random noise would not). `phase` shifts the pattern.
    static func testImage(phase: Double) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: .rgba32)
        let stride = buffer.bytesPerRow()
        buffer.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                let fy = Double(y)
                for x in 0..<width {
                    let fx = Double(x)
                    let r = 255 * fx / Double(width) + 40 * sin(fx * 0.05 + phase) * cos(fy * 0.07)
                    let g = 255 * fy / Double(height) + 30 * sin((fx + fy) * 0.11 + phase)
                    let b = 128 + 60 * sin(fx * 0.013 + fy * 0.021 + phase) + 25 * cos(fx * 0.37) * cos(fy * 0.29 + phase)
                    let o = y * stride + x * 4
                    bytes[o] = clampByte(r)
                    bytes[o + 1] = clampByte(g)
                    bytes[o + 2] = clampByte(b)
                    bytes[o + 3] = 255
                }
            }
        }
        return buffer
    }

    /// A one-component 8-bit soft mask: an elliptical ramp, opaque in the middle, clear at the edges.
    static func softMask() throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: .oneComponent8)
        let stride = buffer.bytesPerRow()
        buffer.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    let dx = (Double(x) - Double(width) / 2) / (0.3 * Double(width))
                    let dy = (Double(y) - Double(height) / 2) / (0.4 * Double(height))
                    bytes[y * stride + x] = clampByte(255 * (1.5 - (dx * dx + dy * dy).squareRoot()))
                }
            }
        }
        return buffer
    }
}

private func clampByte(_ v: Double) -> UInt8 { UInt8(min(max(v, 0), 255).rounded()) }

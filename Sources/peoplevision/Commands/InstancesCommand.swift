import ArgumentParser
import Foundation
import PeopleVision
import PVImaging

/// `peoplevision instances IMAGE`: the people of an image, each with a mask of their own.
struct InstancesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "instances",
        abstract: "Separate the people in an image (up to four), each with a mask of their own.",
        discussion: """
            Runs VNGeneratePersonInstanceMaskRequest and prints each person's share of the image and box (or, with \
            --json, one JSON object: boxes normalized with a lower-left origin). -o writes the label map at the \
            image's size (8-bit PNG: 0 background, 1…4 the people, largest first); --overlay the image with each \
            person tinted; --cutout a transparent PNG of the people chosen with --select (instance numbers, 0 for \
            the background; default every person), cropped to them with --crop.
            """)

    @Argument(help: "The input image (JPEG, PNG, HEIC, WebP).") var image: String
    @Option(name: .shortAndLong, help: "Write the label map (.png).") var output: String?
    @Option(help: "Write the image with each person tinted (.png).") var overlay: String?
    @Option(help: "Write the chosen people on a transparent background (.png).") var cutout: String?
    @Option(help: "Comma-separated instance numbers for --cutout (0 = the background). Default: every person.")
    var select: String?
    @Flag(help: "Crop the cutout to the people in it.") var crop = false
    @Flag(help: "Print the results as JSON.") var json = false
    @Flag(help: "Ignore EXIF orientation (analyse the pixels as stored).") var ignoreOrientation = false

    /// The instance numbers `--select` names.
    var selection: IndexSet? {
        get throws {
            guard let select else { return nil }
            var set = IndexSet()
            for part in select.split(separator: ",", omittingEmptySubsequences: false) {
                guard let k = Int(part.trimmingCharacters(in: .whitespaces)), (0...255).contains(k) else {
                    throw ValidationError("--select takes instance numbers such as 1,2 (0 = the background), not '\(part)'")
                }
                set.insert(k)
            }
            return set
        }
    }

    func validate() throws {
        for (flag, path) in [("-o", output), ("--overlay", overlay), ("--cutout", cutout)] {
            if let path, URL(fileURLWithPath: path).pathExtension.lowercased() != "png" {
                throw ValidationError("\(flag) is written as PNG: give a path ending in .png")
            }
        }
        _ = try selection
        if (select != nil || crop) && cutout == nil { throw ValidationError("--select and --crop choose what --cutout writes") }
    }

    func run() throws {
        let url = URL(fileURLWithPath: image)
        let handler = ignoreOrientation ? VNImageRequestHandler(url: url, orientation: .up) : VNImageRequestHandler(url: url)
        let request = VNGeneratePersonInstanceMaskRequest()
        try handler.perform([request])
        guard let result = request.results?.first else { throw CommandFailure("the request returned no observation") }
        let chosen = try selection ?? result.allInstances
        if let bad = chosen.first(where: { $0 != 0 && !result.allInstances.contains($0) }) {
            let found = result.allInstances.isEmpty ? "none was found" : "found: \(Array(result.allInstances).map(String.init).joined(separator: ","))"
            throw CommandFailure("--select names instance \(bad), which does not exist (\(found))")
        }
        // Everything is computed before the first file is written, so a failure leaves no partial set of outputs.
        let labels = try InstanceRecords.labels(result, handler: handler)
        let size = (width: labels.width, height: labels.height)
        var files: [(PixelBuffer, String)] = []
        if let output { files.append((labels, output)) }
        if let overlay {
            var canvas = try Canvas(try handler.uprightImage())
            try InstanceRecords.draw(labels, on: &canvas)
            files.append((canvas.picture, overlay))
        }
        if let cutout {
            if crop && result.allInstances.isEmpty && !chosen.contains(0) {
                throw CommandFailure("nobody was found in \(image), so there is no one to cut out (nothing was written)")
            }
            let masked = try result.generateMaskedImage(ofInstances: chosen, from: handler, croppedToInstancesExtent: crop)
            files.append((try InstanceRecords.straightRGBA(masked.pixelBuffer), cutout))
        }
        for (pixels, path) in files { try ImageEncoder.write(pixels, to: URL(fileURLWithPath: path), as: .png) }

        let people = InstanceRecords.summaries(labels, count: result.allInstances.count)
        if json {
            let record: [String: Any] = [
                "image": url.lastPathComponent, "width": size.width, "height": size.height,
                "instances": people.map { ["instance": $0.instance, "area": $0.area, "boundingBox": $0.box] },
            ]
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("\(image): \(people.count) \(people.count == 1 ? "person" : "people") (\(size.width)×\(size.height))")
            for p in people {
                print(String(format: "  %d: %.1f %% of the image, box x %.3f y %.3f w %.3f h %.3f",
                    p.instance, 100 * p.area, p.box[0], p.box[1], p.box[2], p.box[3]))
            }
        }
    }
}

/// Person instances for `analyze` (harness `instances`: a label-map PNG beside the JSON), drawn as a tint per person.
final class InstancesStep: AnalyzeStep {
    let request = VNGeneratePersonInstanceMaskRequest()
    private var labels: PixelBuffer?

    func perform(on handler: VNImageRequestHandler) throws {
        try handler.perform([request])
        labels = try request.results?.first.map { try InstanceRecords.labels($0, handler: handler) }
    }

    func write(into record: inout [String: Any], context: AnalyzeContext) throws {
        guard let labels else { return }
        record["instances"] = try context.maskValue(labels, suffix: ".inst.png", placeholder: "(label map not written without --json DIR)")
    }

    func draw(on canvas: inout Canvas, context: AnalyzeContext) throws {
        if let labels { try InstanceRecords.draw(labels, on: &canvas) }
    }
}

/// Instance results for the command line: full-size label maps, summaries, pictures.
enum InstanceRecords {
    /// The label map at the region's size: where the scaled (edge-refined) mask of every instance is at least 0.5,
    /// the instance whose own mask is largest at that point of the observation's grid (grid cells no instance
    /// covers take their strongest neighbour's, two cells out: the refinement moves edges by less); 0 elsewhere
    /// (`OneComponent8`). One edge refinement in all, however many people.
    static func labels(_ result: VNInstanceMaskObservation, handler: VNImageRequestHandler) throws -> PixelBuffer {
        let instances = Array(result.allInstances)
        let size = try handler.imageSize()
        var labels = try PixelBuffer(width: size.width, height: size.height, format: .oneComponent8)
        guard !instances.isEmpty else { return labels }
        let union = try result.generateScaledMaskForImage(forInstances: result.allInstances, from: handler).pixelBuffer
        let W = labels.width, H = labels.height
        guard union.width == W, union.height == H else { throw CommandFailure("the instance mask is not the image's size") }
        // The owner of each grid cell.
        let grids = try instances.map { try result.generateMask(forInstances: IndexSet(integer: $0)).pixelBuffer }
        let w = grids[0].width, h = grids[0].height
        var owner = [UInt8](repeating: 0, count: w * h), strength = [Float](repeating: 0, count: w * h)
        for (k, grid) in zip(instances, grids) {
            let gs = grid.bytesPerRow() / 4
            grid.withUnsafeBytes { raw in
                let g = raw.bindMemory(to: Float.self)
                for y in 0..<h {
                    for x in 0..<w where g[y * gs + x] > strength[y * w + x] {
                        strength[y * w + x] = g[y * gs + x]
                        owner[y * w + x] = UInt8(k)
                    }
                }
            }
        }
        for _ in 0..<2 {
            let (o, st) = (owner, strength)
            for y in 0..<h {
                for x in 0..<w where o[y * w + x] == 0 {
                    for ny in max(0, y - 1)...min(h - 1, y + 1) {
                        for nx in max(0, x - 1)...min(w - 1, x + 1) where o[ny * w + nx] != 0 && st[ny * w + nx] > strength[y * w + x] {
                            strength[y * w + x] = st[ny * w + nx]
                            owner[y * w + x] = o[ny * w + nx]
                        }
                    }
                }
            }
        }
        let us = union.bytesPerRow() / 4, ls = labels.bytesPerRow()
        union.withUnsafeBytes { raw in
            let u = raw.bindMemory(to: Float.self)
            labels.withUnsafeMutableBytes { out in
                for y in 0..<H {
                    let gy = min(h - 1, y * h / H)
                    for x in 0..<W where u[y * us + x] >= 0.5 { out[y * ls + x] = owner[gy * w + min(w - 1, x * w / W)] }
                }
            }
        }
        return labels
    }

    /// Per instance: its share of the image and its box (normalized, lower-left origin: x, y, width, height).
    static func summaries(_ labels: PixelBuffer, count: Int) -> [(instance: Int, area: Double, box: [Double])] {
        let W = labels.width, H = labels.height, ls = labels.bytesPerRow()
        var pixels = [Int](repeating: 0, count: count + 1)
        var boxes = [(x0: Int, y0: Int, x1: Int, y1: Int)](repeating: (W, H, -1, -1), count: count + 1)
        labels.withUnsafeBytes { l in
            for y in 0..<H {
                for x in 0..<W {
                    let k = Int(l[y * ls + x])
                    guard k > 0, k <= count else { continue }
                    pixels[k] += 1
                    let b = boxes[k]
                    boxes[k] = (min(b.x0, x), min(b.y0, y), max(b.x1, x), max(b.y1, y))
                }
            }
        }
        return (1...max(1, count)).filter { $0 <= count && pixels[$0] > 0 }.map { k in
            let b = boxes[k]
            let box = [Double(b.x0) / Double(W), 1 - Double(b.y1 + 1) / Double(H),
                       Double(b.x1 - b.x0 + 1) / Double(W), Double(b.y1 - b.y0 + 1) / Double(H)]
            return (k, Double(pixels[k]) / Double(W * H), box)
        }
    }

    static let colors: [Canvas.Color] = [.magenta, .cyan, .yellow, .green]

    /// Tints each instance of a full-size label map in its own colour, with its number at its top.
    static func draw(_ labels: PixelBuffer, on canvas: inout Canvas) throws {
        let count = Int(labels.withUnsafeBytes { $0.max() ?? 0 })
        guard count > 0 else { return }
        let ls = labels.bytesPerRow()
        for k in 1...count {
            var mask = try PixelBuffer(width: labels.width, height: labels.height, format: .oneComponent8)
            let ms = mask.bytesPerRow()
            labels.withUnsafeBytes { l in
                mask.withUnsafeMutableBytes { m in
                    for y in 0..<labels.height { for x in 0..<labels.width where l[y * ls + x] == k { m[y * ms + x] = 255 } }
                }
            }
            try canvas.tint(mask: mask, color: colors[(k - 1) % colors.count], opacity: 0.5)
        }
        for p in summaries(labels, count: count) {
            let top = canvas.point(normalized: SIMD2(p.box[0], p.box[1] + p.box[3]))
            canvas.text("\(p.instance)", at: top + SIMD2(4, 4), color: .white)
        }
    }

    /// A premultiplied `32BGRA` buffer as straight-alpha RGBA, as PNG stores it.
    static func straightRGBA(_ bgra: PixelBuffer) throws -> PixelBuffer {
        var out = try PixelBuffer(width: bgra.width, height: bgra.height, format: .rgba32)
        let ss = bgra.bytesPerRow(), os = out.bytesPerRow()
        bgra.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                for y in 0..<bgra.height {
                    for x in 0..<bgra.width {
                        let s = y * ss + 4 * x, d = y * os + 4 * x
                        let a = Int(src[s + 3])
                        guard a > 0 else { continue }
                        for (c, from) in [2, 1, 0].enumerated() {
                            dst[d + c] = UInt8(min(255, (Int(src[s + from]) * 255 + a / 2) / a))
                        }
                        dst[d + 3] = UInt8(a)
                    }
                }
            }
        }
        return out
    }
}

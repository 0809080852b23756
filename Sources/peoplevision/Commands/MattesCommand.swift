import ArgumentParser
import Foundation
import PeopleVision
import PVImaging

/// `peoplevision mattes IMAGE --types hair,skin,teeth,glasses,portrait -o DIR [--heic OUT.heic] [--overlay]`.
struct MattesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mattes",
        abstract: "Write generated hair, skin, teeth, glasses and portrait effects mattes of an image.",
        discussion: """
            PVGenerateMattesRequest makes the mattes (this package's own request: they come from the face mesh, the \
            accurate person mask and colour models, not from a learned matting model; glasses only where frames stand out). \
            Each matte is written as DIR/<type>.png (8-bit grey, the image's upright size); --heic writes the upright \
            photo with the mattes as HEIF auxiliary images under Apple's types; --overlay writes DIR/overlay.png.
            """)

    static let allTypes = ["hair", "skin", "teeth", "glasses", "portrait"]

    @Argument(help: "The input image (JPEG, PNG, HEIC, WebP).") var image: String
    @Option(help: "Comma-separated mattes among hair, skin, teeth, glasses, portrait.") var types = "hair,skin,teeth,glasses,portrait"
    @Option(name: .shortAndLong, help: "The folder to write the PNGs to (created if missing).") var output: String
    @Option(help: "Also write the photo with its mattes as this HEIC file.") var heic: String?
    @Flag(help: "Also write DIR/overlay.png: the mattes tinted over the photo, the background dimmed.") var overlay = false

    var chosen: [String] { types.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }

    func validate() throws {
        guard !chosen.isEmpty else { throw ValidationError("--types names no matte") }
        if let unknown = chosen.first(where: { !Self.allTypes.contains($0) }) {
            throw ValidationError("unknown matte type '\(unknown)': use \(Self.allTypes.joined(separator: ", "))")
        }
        if let heic, !["heic", "heif"].contains(URL(fileURLWithPath: heic).pathExtension.lowercased()) {
            throw ValidationError("--heic needs a path ending in .heic")
        }
    }

    func run() throws {
        let url = URL(fileURLWithPath: image)
        let names: [String: AVSemanticSegmentationMatte.MatteType] = ["hair": .hair, "skin": .skin, "teeth": .teeth, "glasses": .glasses]
        let request = PVGenerateMattesRequest()
        request.matteTypes = chosen.compactMap { names[$0] }
        request.generatesPortraitEffectsMatte = chosen.contains("portrait")
        try VNImageRequestHandler(url: url).perform([request])
        let directory = URL(fileURLWithPath: output)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var tinted: [(CVPixelBuffer, SIMD3<Double>)] = []
        for matte in request.semanticSegmentationMattes {
            let name = names.first { $0.value == matte.matteType }?.key ?? matte.matteType.rawValue
            try writeMaskPNG(matte.mattingImage, to: directory.appendingPathComponent("\(name).png"))
            tinted.append((matte.mattingImage, Self.tints[name] ?? SIMD3(255, 255, 255)))
            print("\(name).png: \(Self.coverage(matte.mattingImage))")
        }
        let portrait = request.portraitEffectsMatte
        if let portrait {
            try writeMaskPNG(portrait.mattingImage, to: directory.appendingPathComponent("portrait.png"))
            print("portrait.png: \(Self.coverage(portrait.mattingImage))")
        }
        if let heic {
            guard let photo = CIImage(contentsOf: url, options: [.applyOrientationProperty: true]) else {
                throw CommandFailure("\(image) could not be read again for the HEIC")
            }
            var options: [CIImageRepresentationOption: Any] = [.avSemanticSegmentationMattes: request.semanticSegmentationMattes]
            if let portrait { options[.avPortraitEffectsMatte] = portrait }
            try CIContext().writeHEIFRepresentation(
                of: photo, to: URL(fileURLWithPath: heic), format: .RGBA8,
                colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!, options: options)
            print("\(heic): the photo with \(options.count == 2 ? "its mattes and portrait matte" : "its mattes")")
        }
        if overlay {
            let photo = try ImageDecoder.decode(contentsOf: url, options: ImageDecoder.Options(applyOrientation: true)).pixels
            let drawn = try Self.overlay(photo, tinted, dimming: portrait?.mattingImage)
            try ImageEncoder.write(drawn, to: directory.appendingPathComponent("overlay.png"), as: .png)
            print("overlay.png")
        }
    }

    static let tints: [String: SIMD3<Double>] = [
        "skin": SIMD3(255, 150, 40), "hair": SIMD3(170, 40, 255), "teeth": SIMD3(0, 255, 255), "glasses": SIMD3(255, 255, 0),
    ]

    /// The share of the image the matte covers (values ≥ 128), for the summary line.
    static func coverage(_ matte: CVPixelBuffer) -> String {
        let pixels = matte.pixelBuffer, W = pixels.width, H = pixels.height
        var count = 0
        pixels.withUnsafeBytes { bytes in
            for y in 0..<H {
                for x in 0..<W where bytes[y * pixels.bytesPerRow() + x] >= 128 { count += 1 }
            }
        }
        return "\(W)×\(H), \(String(format: "%.1f", 100 * Double(count) / Double(max(W * H, 1))))% covered"
    }

    /// The photo with each matte's tint blended at up to 55 %, and the background at half brightness.
    static func overlay(_ photo: PixelBuffer, _ mattes: [(CVPixelBuffer, SIMD3<Double>)], dimming: CVPixelBuffer?) throws -> PixelBuffer {
        var out = try photo.converted(to: .rgba32)
        let W = out.width, H = out.height, row = out.bytesPerRow()
        let layers = mattes.map { ($0.0.pixelBuffer, $0.1) }
        let dim = dimming?.pixelBuffer
        out.withUnsafeMutableBytes { bytes in
            for y in 0..<H {
                for x in 0..<W {
                    var c = SIMD3<Double>((0..<3).map { Double(bytes[y * row + 4 * x + $0]) })
                    if let dim, dim.width == W, dim.height == H {
                        let m = Double(dim.withUnsafeBytes { $0[y * dim.bytesPerRow() + x] }) / 255
                        c *= 0.5 + 0.5 * m
                    }
                    for (layer, tint) in layers where layer.width == W && layer.height == H {
                        let a = 0.55 * Double(layer.withUnsafeBytes { $0[y * layer.bytesPerRow() + x] }) / 255
                        c = c * (1 - a) + tint * a
                    }
                    for k in 0..<3 { bytes[y * row + 4 * x + k] = UInt8(max(0, min(255, c[k].rounded()))) }
                }
            }
        }
        return out
    }
}

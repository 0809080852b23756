import Foundation
@testable import HairRecolor
import PeopleVision
import PVTestSupport
@testable import SkinSmoothing
import Testing

/// The matte examples (Examples/SkinSmoothing, Examples/HairRecolor) on a sample photo given generated mattes.
@Suite("Matte examples: makeup and hair recolour")
struct MatteExamplesTests {
    /// The astronaut sample written as a HEIC with its generated mattes; the photo, skin and hair as read back.
    static func portrait() throws -> (url: URL, photo: [[SIMD4<UInt8>]], skin: [[SIMD4<UInt8>]], hair: [[SIMD4<UInt8>]]) {
        let source = try TestFiles.installed("astronaut.png")
        let request = PVGenerateMattesRequest()
        request.matteTypes = [.skin, .hair]
        try VNImageRequestHandler(url: source).perform([request])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("portrait-\(UUID().uuidString).heic")
        try CIContext().writeHEIFRepresentation(
            of: try #require(CIImage(contentsOf: source)), to: url, format: .RGBA8, colorSpace: CITest.sRGB,
            options: [.avSemanticSegmentationMattes: request.semanticSegmentationMattes])
        let photo = CITest.rgba(try #require(CIImage(contentsOf: url)))
        let skin = CITest.rgba(try #require(CIImage(contentsOf: url, options: [.auxiliarySemanticSegmentationSkinMatte: true])))
        let hair = CITest.rgba(try #require(CIImage(contentsOf: url, options: [.auxiliarySemanticSegmentationHairMatte: true])))
        return (url, photo, skin, hair)
    }

    @Test("makeup: the lifted largest component on the skin, the photo elsewhere")
    func makeup() throws {
        let (url, photo, skin, _) = try Self.portrait()
        defer { try? FileManager.default.removeItem(at: url) }
        let result = CITest.rgba(try #require(applyMakeup(to: url)))
        #expect(result.count == photo.count && result.first?.count == photo.first?.count)
        var onSkin = 0, offSkin = 0, worstOn = 0, worstOff = 0
        for y in 0..<photo.count {
            for x in 0..<photo[y].count {
                let p = photo[y][x], out = result[y][x]
                if skin[y][x].x >= 250 {
                    // maximumComponent then gammaAdjust(0.5): every channel sqrt(max/255)·255.
                    let expected = Int(((Double(max(p.x, p.y, p.z)) / 255).squareRoot() * 255).rounded())
                    worstOn = max(worstOn, abs(Int(out.x) - expected), abs(Int(out.y) - expected), abs(Int(out.z) - expected))
                    onSkin += 1
                } else if skin[y][x].x <= 2 {
                    worstOff = max(worstOff, CITest.maxDifference(out, p))
                    offSkin += 1
                }
            }
        }
        #expect(onSkin > 5000, "the sample's face gives a skin matte (\(onSkin) pixels)")
        #expect(offSkin > 5000)
        #expect(worstOn <= 3 && worstOff <= 3, "\(worstOn) on the skin, \(worstOff) elsewhere")
    }

    @Test("hair recolour: tinted redder than blue inside the hair matte; the photo elsewhere")
    func hairRecolour() throws {
        let (url, photo, _, hair) = try Self.portrait()
        defer { try? FileManager.default.removeItem(at: url) }
        let result = CITest.rgba(try #require(recolorHair(of: url, red: 0.85, green: 0.35, blue: 0.2)))
        var inHair = 0, tinted = 0, worstOff = 0
        for y in 0..<photo.count {
            for x in 0..<photo[y].count {
                let out = result[y][x]
                if hair[y][x].x >= 250 {
                    inHair += 1
                    if out.x >= out.y, out.y >= out.z, Int(out.x) - Int(out.z) >= Int(out.x) / 3 { tinted += 1 }
                } else if hair[y][x].x <= 2 {
                    worstOff = max(worstOff, CITest.maxDifference(out, photo[y][x]))
                }
            }
        }
        #expect(inHair > 1000, "the sample gives a hair matte (\(inHair) pixels)")
        #expect(Double(tinted) >= 0.95 * Double(inHair), "\(tinted) of \(inHair) hair pixels tinted")
        #expect(worstOff <= 3)
    }
}

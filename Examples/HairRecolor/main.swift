import CoreImage
import Foundation

// HairRecolor PORTRAIT.heic OUTPUT.png [R G B]   (tint components 0…1; default a copper red)
let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 6 else {
    print("usage: HairRecolor PORTRAIT.heic OUTPUT.png [R G B]")
    exit(2)
}
let tint = arguments.count == 6 ? arguments[3...5].compactMap { Double($0) } : [0.85, 0.35, 0.2]
guard tint.count == 3 else {
    print("R G B must be numbers")
    exit(2)
}
do {
    guard let result = recolorHair(of: URL(fileURLWithPath: arguments[1]), red: tint[0], green: tint[1], blue: tint[2]) else {
        print("the photo could not be read, or it has no hair matte")
        exit(1)
    }
    try CIContext().writePNGRepresentation(
        of: result, to: URL(fileURLWithPath: arguments[2]), format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)
    print("wrote \(arguments[2])")
} catch {
    print("error: \(error)")
    exit(1)
}

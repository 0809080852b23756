import Foundation

// SelfieAnalysis PHOTO OUTPUT.png
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: SelfieAnalysis PHOTO OUTPUT.png")
    exit(2)
}
do {
    let photo = URL(fileURLWithPath: arguments[1])
    let summary = try await analyzeSelfie(at: photo)
    print("faces: \(summary.faces.count) (\(summary.landmarkPointCount) landmark points)")
    print("bodies: \(summary.bodies.count), hands: \(summary.handCount)")
    print("mask: \(Int(summary.mask.size.width))×\(Int(summary.mask.size.height))")
    try writeOverlay(try drawOverlay(summary, on: photo), to: URL(fileURLWithPath: arguments[2]))
    print("wrote \(arguments[2])")
} catch {
    print("error: \(error)")
    exit(1)
}

import Foundation

// SkinSmoothing PORTRAIT.heic OUTPUT.jpg
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: SkinSmoothing PORTRAIT.heic OUTPUT.jpg")
    exit(2)
}
do {
    guard let result = applyMakeup(to: URL(fileURLWithPath: arguments[1])) else {
        print("the photo could not be read, or it has no skin matte")
        exit(1)
    }
    try writeJPEG(result, to: URL(fileURLWithPath: arguments[2]))
    print("wrote \(arguments[2])")
} catch {
    print("error: \(error)")
    exit(1)
}

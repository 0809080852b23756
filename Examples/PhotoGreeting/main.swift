import Foundation

// PhotoGreeting FOREGROUND BACKGROUND OUTPUT.jpg [--mask]
let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    print("usage: PhotoGreeting FOREGROUND BACKGROUND OUTPUT.jpg [--mask]")
    exit(2)
}
do {
    let variant: BlendVariant = arguments.contains("--mask") ? .mask : .redMask
    guard let greeting = try generatePhotoGreeting(
        foregroundURL: URL(fileURLWithPath: arguments[1]), backgroundURL: URL(fileURLWithPath: arguments[2]), variant: variant)
    else {
        print("no greeting could be made")
        exit(1)
    }
    try writeGreeting(greeting, to: URL(fileURLWithPath: arguments[3]))
    print("wrote \(arguments[3])")
} catch {
    print("error: \(error)")
    exit(1)
}

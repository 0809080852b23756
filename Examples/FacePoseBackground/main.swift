import Foundation

// FacePoseBackground PHOTO OUTPUT.jpg
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: FacePoseBackground PHOTO OUTPUT.jpg")
    exit(2)
}
do {
    guard let (image, pose) = try makePoseBackgroundImage(photoURL: URL(fileURLWithPath: arguments[1])) else {
        print("no person mask could be made")
        exit(1)
    }
    try writeJPEG(image, to: URL(fileURLWithPath: arguments[2]))
    if let pose {
        let deg = { (r: Double) in String(format: "%+.1f°", r * 180 / Double.pi) }
        print("wrote \(arguments[2]): roll \(deg(pose.roll)), yaw \(deg(pose.yaw)), pitch \(deg(pose.pitch))")
    } else {
        print("wrote \(arguments[2]): no face, grey background")
    }
} catch {
    print("error: \(error)")
    exit(1)
}

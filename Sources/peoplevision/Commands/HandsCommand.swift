import ArgumentParser
import Foundation
import PeopleVision
import PVImaging

/// `peoplevision hands IMAGE [--json] [--overlay OUT.png]`: hands with 21 joints and chirality.
struct HandsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hands",
        abstract: "Find hands: 21 Vision joints each and which hand it is (the subject's left or right).",
        discussion: """
            Runs VNDetectHumanHandPoseRequest. --json prints one JSON object in the evaluation harness's format \
            (normalized coordinates, lower-left origin); otherwise a summary per hand. --overlay draws each hand's \
            skeleton with an L or R label.
            """)

    @Argument(help: "The input image (JPEG, PNG, HEIC, WebP).") var image: String
    @Option(help: "Most hands to report (Vision's maximumHandCount).") var maxHands = 2
    @Flag(help: "Print the results as JSON.") var json = false
    @Option(help: "Write the image with the hands drawn on it (.png).") var overlay: String?
    @Flag(help: "Ignore EXIF orientation (analyse the pixels as stored).") var ignoreOrientation = false

    func validate() throws {
        guard (1...64).contains(maxHands) else { throw ValidationError("--max-hands must be within 1…64") }
        try Overlay.validate(overlay)
    }

    func run() throws {
        let url = URL(fileURLWithPath: image)
        let handler = ignoreOrientation ? VNImageRequestHandler(url: url, orientation: .up) : VNImageRequestHandler(url: url)
        let request = VNDetectHumanHandPoseRequest()
        request.maximumHandCount = maxHands
        try handler.perform([request])
        let size = try handler.imageSize()
        let hands = request.results ?? []
        if json {
            let record: [String: Any] = [
                "image": url.lastPathComponent, "width": size.width, "height": size.height,
                "hands": HandRecords.records(hands),
            ]
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("\(image): \(hands.count) \(hands.count == 1 ? "hand" : "hands") (\(size.width)×\(size.height))")
            for (k, hand) in hands.enumerated() {
                let wrist = try hand.recognizedPoint(.wrist)
                print(String(format: "  hand %d: %@, confidence %.2f, wrist at x %.3f y %.3f",
                    k + 1, HandRecords.name(hand.chirality), hand.confidence, wrist.x, wrist.y))
            }
        }
        try Overlay.write(to: overlay, of: handler) { HandRecords.draw(hands, on: &$0) }
    }
}

/// Hand-pose results in the harness's prediction format, and their drawing.
enum HandRecords {
    /// Harness name of each Vision joint (same order as Vision's).
    static let names: [(VNHumanHandPoseObservation.JointName, String)] = [
        (.wrist, "wrist"), (.thumbCMC, "thumbCMC"), (.thumbMP, "thumbMP"), (.thumbIP, "thumbIP"), (.thumbTip, "thumbTip"),
        (.indexMCP, "indexMCP"), (.indexPIP, "indexPIP"), (.indexDIP, "indexDIP"), (.indexTip, "indexTip"),
        (.middleMCP, "middleMCP"), (.middlePIP, "middlePIP"), (.middleDIP, "middleDIP"), (.middleTip, "middleTip"),
        (.ringMCP, "ringMCP"), (.ringPIP, "ringPIP"), (.ringDIP, "ringDIP"), (.ringTip, "ringTip"),
        (.littleMCP, "littleMCP"), (.littlePIP, "littlePIP"), (.littleDIP, "littleDIP"), (.littleTip, "littleTip"),
    ]

    static func name(_ c: VNChirality) -> String {
        switch c {
        case .left: return "left"
        case .right: return "right"
        case .unknown: return "unknown"
        }
    }

    /// `[{"chirality", "confidence", "joints": {name: [x, y, confidence]}}]`.
    static func records(_ hands: [VNHumanHandPoseObservation]) -> [[String: Any]] {
        hands.map { hand in
            var joints: [String: Any] = [:]
            for (joint, key) in names {
                if let p = try? hand.recognizedPoint(joint) { joints[key] = [p.x, p.y, Double(p.confidence)] }
            }
            return ["chirality": name(hand.chirality), "confidence": Double(hand.confidence), "joints": joints]
        }
    }

    /// Each hand's skeleton (left hands cyan, right hands yellow) with an L / R label at the wrist.
    static func draw(_ hands: [VNHumanHandPoseObservation], on canvas: inout Canvas) {
        let W = Double(canvas.picture.width), H = Double(canvas.picture.height)
        let fingers: [[VNHumanHandPoseObservation.JointName]] = [
            [.wrist, .thumbCMC, .thumbMP, .thumbIP, .thumbTip], [.wrist, .indexMCP, .indexPIP, .indexDIP, .indexTip],
            [.wrist, .middleMCP, .middlePIP, .middleDIP, .middleTip], [.wrist, .ringMCP, .ringPIP, .ringDIP, .ringTip],
            [.wrist, .littleMCP, .littlePIP, .littleDIP, .littleTip], [.indexMCP, .middleMCP, .ringMCP, .littleMCP],
        ]
        for hand in hands {
            let color: Canvas.Color = hand.chirality == .left ? .cyan : hand.chirality == .right ? .yellow : .white
            func pixel(_ j: VNHumanHandPoseObservation.JointName) -> SIMD2<Double>? {
                guard let p = try? hand.recognizedPoint(j) else { return nil }
                return SIMD2(p.x * W, (1 - p.y) * H)
            }
            let points = names.compactMap { pixel($0.0) }
            guard let box = points.isEmpty ? nil : (points.map(\.x).min()!, points.map(\.x).max()!, points.map(\.y).min()!) else { continue }
            let width = max(1.5, (box.1 - box.0) / 60)
            for finger in fingers { canvas.polyline(finger.compactMap(pixel), closed: false, color: color, width: width) }
            for p in points { canvas.dot(p, radius: width * 1.2, color: .red) }
            let label = hand.chirality == .left ? "L" : hand.chirality == .right ? "R" : "?"
            let scale = max(2, Int((box.1 - box.0) / 25))
            canvas.text(label, at: SIMD2(box.0, max(0, box.2 - Double(8 * scale))), color: color, scale: scale)
        }
    }
}

import Testing

@testable import PVPerception

@Suite("SSD anchors (MODELS.md §3)")
struct CommonAnchorsTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let options: SSDAnchorOptions
        let count: Int
        /// Centre of the first anchor (0.5/first grid size) and of the last ((grid − 0.5)/grid of the last group).
        let first: Double
        let last: Double
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "face short range", options: .faceShortRange, count: 896, first: 0.5 / 16, last: 7.5 / 8),
        Case(name: "face full range", options: .faceFullRange, count: 2304, first: 0.5 / 48, last: 47.5 / 48),
        Case(name: "pose", options: .pose, count: 2254, first: 0.5 / 28, last: 6.5 / 7),
        Case(name: "palm", options: .palm, count: 2016, first: 0.5 / 24, last: 11.5 / 12),
    ]

    @Test(arguments: cases)
    func countsAndEnds(_ c: Case) {
        let anchors = c.options.anchors()
        #expect(anchors.count == c.count)
        let a = anchors.first!, z = anchors.last!
        #expect(abs(a.centerX - c.first) < 1e-12 && abs(a.centerY - c.first) < 1e-12)
        #expect(abs(z.centerX - c.last) < 1e-12 && abs(z.centerY - c.last) < 1e-12)
        #expect(anchors.allSatisfy { $0.width == 1 && $0.height == 1 }, "fixed anchor size")
    }

    @Test func poseLayoutGroupsAndOrder() {
        let anchors = SSDAnchorOptions.pose.anchors()
        // 28²×2, then 14²×2, then 7²×6.
        #expect(anchors[0] == anchors[1], "two anchors per cell at stride 8")
        #expect(abs(anchors[2].centerX - 1.5 / 28) < 1e-12 && abs(anchors[2].centerY - 0.5 / 28) < 1e-12, "x before y")
        #expect(abs(anchors[56].centerY - 1.5 / 28) < 1e-12, "next row after 28 cells × 2")
        let g2 = 28 * 28 * 2, g3 = g2 + 14 * 14 * 2
        #expect(abs(anchors[g2].centerX - 0.5 / 14) < 1e-12)
        #expect(abs(anchors[g3].centerX - 0.5 / 7) < 1e-12)
        #expect((0..<6).allSatisfy { anchors[g3 + $0] == anchors[g3] }, "six anchors per cell at stride 32")
        #expect(abs(anchors[g3 + 6].centerX - 1.5 / 7) < 1e-12)
    }

    @Test func scalesWhenAnchorSizeIsNotFixed() {
        var options = SSDAnchorOptions.faceShortRange
        options.fixedAnchorSize = false
        let anchors = options.anchors()
        let s0 = 0.1484375, s1 = 0.1484375 + (0.75 - 0.1484375) / 3
        #expect(abs(anchors[0].width - s0) < 1e-12 && abs(anchors[0].height - s0) < 1e-12)
        #expect(abs(anchors[1].width - (s0 * s1).squareRoot()) < 1e-12, "interpolated anchor")
        // Last anchor: layer 3 of 4 with scale max, interpolated against 1.
        #expect(abs(anchors.last!.width - (0.75 * 1.0).squareRoot()) < 1e-12)
        // One stride → scale (min + max)/2.
        var single = SSDAnchorOptions.faceFullRange
        single.fixedAnchorSize = false
        #expect(abs(single.anchors()[0].width - (0.1484375 + 0.75) / 2) < 1e-12)
    }
}

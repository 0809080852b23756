import Foundation

/// Which face-landmark point set a request produces, as Apple's `VNRequestFaceLandmarksConstellation`.
public enum VNRequestFaceLandmarksConstellation: UInt, Sendable {
    /// Not set: revision 3 then produces 76 points, revisions 1 and 2 produce 65.
    case constellationNotDefined = 0
    /// 65 points (every revision).
    case constellation65Points = 1
    /// 76 points (revision 3 only).
    case constellation76Points = 2
}

/// The two constellations as face-mesh indices (MODELS.md §12.2; 468 and 473 are the iris centres).
///
/// Apple does not publish which points make up its regions, so these are our choice, made to follow the
/// shape each region has in Apple's documentation, and kept stable. Every point of ``allPoints`` belongs to
/// at least one region; ``VNFaceLandmarks2D`` regions index into the same points, so shared points (the
/// median line, the top of the nose) are the same values in every region that holds them.
///
/// | region | 65 | 76 | path | points (subject's left/right) |
/// |---|---|---|---|---|
/// | `leftEyebrow`, `rightEyebrow` | 4 | 6 | open | outer tail, then the upper edge to the inner head |
/// | `leftEye`, `rightEye` | 8 | 8 | closed | outer corner, 3 on the upper lid, inner corner, 3 on the lower lid |
/// | `outerLips` | 10 | 14 | closed | left corner, upper lip (5 / 7 points) to the right corner, lower lip (3 / 5) back |
/// | `innerLips` | 6 | 6 | closed | left corner, 2 upper, right corner, 2 lower |
/// | `faceContour` | 11 | 17 | open | left cheek (at eye level) → chin → right cheek |
/// | `nose` | 7 | 7 | closed | top of the bridge, right side down to the right nostril, left nostril up the left side |
/// | `noseCrest` | 3 | 3 | open | top of the bridge, mid bridge, tip |
/// | `medianLine` | 3 | 5 | open | 65: between the brows, above the lip, below the lip; 76: bridge top, nose tip, lip centres, chin (all shared) |
/// | `leftPupil`, `rightPupil` | 1 | 1 | closed | the iris centre |
/// | `allPoints` | 65 | 76 | none | the regions' points in the order above (nose and crest sharing the bridge top) |
struct FaceLandmarkConstellation: Sendable {
    enum Region: CaseIterable, Sendable {
        case leftEyebrow, rightEyebrow, leftEye, rightEye, outerLips, innerLips, faceContour, nose, noseCrest
        case medianLine, leftPupil, rightPupil

        var classification: VNPointsClassification {
            switch self {
            case .leftEyebrow, .rightEyebrow, .faceContour, .noseCrest, .medianLine: return .openPath
            default: return .closedPath
            }
        }
    }

    /// Mesh indices of `allPoints`, in order.
    let allPoints: [Int]
    /// Each region's points as indices into ``allPoints``.
    let regions: [Region: [Int]]

    init(_ lists: [(Region, [Int])], shared: [(Region, [Int])]) {
        var all: [Int] = []
        for (_, list) in lists { all += list }
        allPoints = all
        var regions: [Region: [Int]] = [:]
        for (region, list) in lists + shared {
            regions[region] = list.map { all.firstIndex(of: $0)! }
        }
        self.regions = regions
    }

    static let leftEye = [263, 387, 386, 385, 362, 380, 374, 373]
    static let rightEye = [33, 160, 159, 158, 133, 153, 145, 144]
    static let innerLips = [308, 312, 82, 78, 87, 317]
    static let noseSides = [115, 64, 98, 327, 294, 344]
    static let noseCrest = [168, 197, 4]

    static let points76 = FaceLandmarkConstellation(
        [
            (.leftEyebrow, [276, 300, 293, 334, 296, 336]),
            (.rightEyebrow, [46, 70, 63, 105, 66, 107]),
            (.leftEye, leftEye),
            (.rightEye, rightEye),
            (.outerLips, [291, 409, 270, 267, 0, 37, 40, 185, 61, 91, 84, 17, 314, 321]),
            (.innerLips, innerLips),
            (.faceContour, [454, 323, 361, 288, 397, 365, 379, 400, 152, 176, 150, 136, 172, 58, 132, 93, 234]),
            (.nose, noseSides),
            (.noseCrest, noseCrest),
            (.leftPupil, [473]),
            (.rightPupil, [468]),
        ],
        shared: [(.nose, [168] + noseSides), (.medianLine, [168, 4, 0, 17, 152])])

    static let points65 = FaceLandmarkConstellation(
        [
            (.leftEyebrow, [276, 293, 334, 336]),
            (.rightEyebrow, [46, 63, 105, 107]),
            (.leftEye, leftEye),
            (.rightEye, rightEye),
            (.outerLips, [291, 270, 267, 0, 37, 40, 61, 84, 17, 314]),
            (.innerLips, innerLips),
            (.faceContour, [454, 361, 397, 365, 400, 152, 176, 136, 172, 132, 234]),
            (.nose, noseSides),
            (.noseCrest, noseCrest),
            (.medianLine, [9, 164, 18]),
            (.leftPupil, [473]),
            (.rightPupil, [468]),
        ],
        shared: [(.nose, [168] + noseSides)])
}

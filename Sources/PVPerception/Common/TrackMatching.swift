/// Frame-to-frame matching of tracked things by the overlap of their boxes, for the landmark smoothers.
enum TrackMatching {
    /// The index in `free` of the track `box` continues — the one whose box (`boxOf`) overlaps it most, with an IoU
    /// above `minimumOverlap`, among those `eligible` accepts — removed from `free`; nil when none qualifies.
    static func claim(
        _ box: BoundingBox, from free: inout [Int], minimumOverlap: Double, boxOf: (Int) -> BoundingBox,
        eligible: (Int) -> Bool = { _ in true }
    ) -> Int? {
        let best = free.filter(eligible).max {
            boxOf($0).intersectionOverUnion(with: box) < boxOf($1).intersectionOverUnion(with: box)
        }
        guard let best, boxOf(best).intersectionOverUnion(with: box) > minimumOverlap else { return nil }
        free.removeAll { $0 == best }
        return best
    }
}

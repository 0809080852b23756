import Foundation
import PeopleVision
import Testing

/// CMTime and CMTimeRange against Core Media's documented rules (CMTime.h / CMTimeRange.h): the
/// expected values below are worked out by hand from those rules, not read from the code.
@Suite("Core Media time")
struct CoreMediaTimeTests {
    /// `value/timescale` with exactly these fields (numeric equality would hide a wrong timescale).
    func expectFields(
        _ t: CMTime, _ value: Int64, _ timescale: Int32, rounded: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            t.isNumeric && t.value == value && t.timescale == timescale && t.hasBeenRounded == rounded,
            "\(t), expected \(value)/\(timescale)\(rounded ? " rounded" : "")", sourceLocation: sourceLocation)
    }

    @Test func specialTimesAndMaking() {
        #expect(CMTime.zero.isNumeric && CMTime.zero.seconds == 0)
        #expect(!CMTime.invalid.isValid && CMTime().flags.isEmpty && CMTIME_IS_INVALID(CMTime()))
        #expect(CMTime.indefinite.isValid && CMTime.indefinite.isIndefinite && !CMTime.indefinite.isNumeric)
        #expect(CMTime.positiveInfinity.isPositiveInfinity && CMTime.negativeInfinity.isNegativeInfinity)
        #expect(CMTimeGetSeconds(.invalid).isNaN && CMTime.indefinite.seconds.isNaN)
        #expect(CMTime.positiveInfinity.seconds == .infinity && CMTime.negativeInfinity.seconds == -.infinity)
        expectFields(CMTimeMake(value: 3, timescale: 30), 3, 30)
        #expect(!CMTimeMake(value: 1, timescale: 0).isValid)
        let t = CMTime(value: 7, timescale: 2, flags: .valid, epoch: 4)
        #expect(t.epoch == 4 && t.seconds == 3.5 && CMTIME_IS_NUMERIC(t))
    }

    @Test func makeWithSecondsRoundsAndShrinksTheTimescale() {
        expectFields(CMTimeMakeWithSeconds(0.5, preferredTimescale: 600), 300, 600)
        // 0.1234 s at 1/10 s is 1.234 units: nearest 1, and 1/10 ≠ 0.1234 so it is marked rounded.
        expectFields(CMTimeMakeWithSeconds(0.1234, preferredTimescale: 10), 1, 10, rounded: true)
        expectFields(CMTime(seconds: -0.25, preferredTimescale: 2), -1, 2, rounded: true)   // −0.5 units, half away from zero
        // 1e16 s × 1000 overflows Int64; halved once, 5e18 fits, and still is exactly 1e16 s (not rounded).
        expectFields(CMTimeMakeWithSeconds(1e16, preferredTimescale: 1000), 5_000_000_000_000_000_000, 500)
        #expect(CMTimeMakeWithSeconds(1e300, preferredTimescale: 600).isPositiveInfinity)
        #expect(CMTimeMakeWithSeconds(-.infinity, preferredTimescale: 600).isNegativeInfinity)
        #expect(!CMTimeMakeWithSeconds(.nan, preferredTimescale: 600).isValid)
        #expect(!CMTimeMakeWithSeconds(1, preferredTimescale: 0).isValid)
    }

    @Test func additionUsesTheLeastCommonTimescale() {
        expectFields(CMTimeAdd(CMTimeMake(value: 1, timescale: 3), CMTimeMake(value: 1, timescale: 6)), 3, 6)
        expectFields(CMTime(value: 1, timescale: 30) + CMTime(value: 1, timescale: 600), 21, 600)
        expectFields(CMTimeSubtract(CMTimeMake(value: 1, timescale: 2), CMTimeMake(value: 1, timescale: 3)), 1, 6)
        // 2^31 − 1 is prime: the common multiple exceeds the largest timescale, so the sum is rounded into it:
        // (1/M + 1/2) × M = 1 + M/2 = 1073741824.5 → 1073741825.
        let m = Int32(kCMTimeMaxTimescale)
        expectFields(CMTimeMake(value: 1, timescale: m) + CMTimeMake(value: 1, timescale: 2), 1_073_741_825, m, rounded: true)
        // A value that overflows halves the timescale (here exactly); past timescale 1 it becomes infinite.
        expectFields(CMTimeMake(value: .max, timescale: 2) + CMTimeMake(value: .max, timescale: 2), .max, 1)
        // (2·max − 1)/4 s: at timescale 2 that is max − ½ units, rounded half away from zero to max.
        expectFields(CMTimeMake(value: .max, timescale: 4) + CMTimeMake(value: .max - 1, timescale: 4), .max, 2, rounded: true)
        #expect((CMTimeMake(value: .max, timescale: 1) + CMTimeMake(value: 1, timescale: 1)).isPositiveInfinity)
        #expect((CMTimeMake(value: .min, timescale: 1) - CMTimeMake(value: 1, timescale: 1)).isNegativeInfinity)
    }

    @Test func additionOfSpecialTimes() {
        let one = CMTimeMake(value: 1, timescale: 1)
        #expect(!(CMTime.invalid + one).isValid && !(CMTime.indefinite + .invalid).isValid)
        #expect((CMTime.positiveInfinity + one).isPositiveInfinity && (one - .positiveInfinity).isNegativeInfinity)
        #expect(!(CMTime.positiveInfinity + .negativeInfinity).isValid && !(CMTime.positiveInfinity - .positiveInfinity).isValid)
        #expect((CMTime.positiveInfinity - .negativeInfinity).isPositiveInfinity)
        #expect((CMTime.positiveInfinity + .indefinite).isPositiveInfinity)   // infinity wins over indefinite
        #expect((CMTime.indefinite + one).isIndefinite && (one - .indefinite).isIndefinite)
        // Epochs: a duration (epoch 0) added to a time keeps its epoch; two times of one epoch subtract to a duration.
        let a = CMTime(value: 5, timescale: 1, flags: .valid, epoch: 2), b = CMTime(value: 3, timescale: 1, flags: .valid, epoch: 2)
        #expect((a + one).epoch == 2 && (a - b).epoch == 0 && (a - b).value == 2)
        #expect(!(a + CMTime(value: 1, timescale: 1, flags: .valid, epoch: 3)).isValid)
        // A rounded operand marks the sum.
        #expect((CMTimeMakeWithSeconds(0.1234, preferredTimescale: 10) + one).hasBeenRounded)
    }

    @Test func comparisonOrdersSpecialTimesAndEpochs() {
        let ordered: [CMTime] = [.negativeInfinity, CMTimeMake(value: -5, timescale: 1), .zero, CMTimeMake(value: 1, timescale: 3),
                                 .indefinite, .positiveInfinity, .invalid]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                #expect(CMTimeCompare(a, b) == Int32((i > j ? 1 : 0) - (i < j ? 1 : 0)), "\(a) vs \(b)")
            }
        }
        #expect(CMTimeMake(value: 1, timescale: 2) == CMTimeMake(value: 2, timescale: 4))
        #expect(Set([CMTimeMake(value: 1, timescale: 2), CMTimeMake(value: 300, timescale: 600)]).count == 1)
        #expect(CMTimeMake(value: 1, timescale: 3) < CMTimeMake(value: 333_334, timescale: 1_000_000))
        #expect(CMTimeMake(value: 1, timescale: 3) > CMTimeMake(value: 333_333, timescale: 1_000_000))
        #expect(CMTime.invalid == CMTime(value: 9, timescale: 0, flags: [], epoch: 3))
        // A later epoch is greater whatever the value.
        #expect(CMTime(value: 0, timescale: 1, flags: .valid, epoch: 1) > CMTimeMake(value: 1000, timescale: 1))
        let (small, large) = (CMTimeMake(value: 1, timescale: 10), CMTimeMake(value: 2, timescale: 10))
        #expect(CMTimeMinimum(small, large) == small && CMTimeMaximum(small, large) == large)
        #expect(small <= small && large >= small && small != large)
    }

    @Test func convertScaleRoundsByMethod() {
        let third = CMTimeMake(value: 1, timescale: 3), minusThird = CMTimeMake(value: -1, timescale: 3)
        expectFields(CMTimeConvertScale(third, timescale: 10, method: .default), 3, 10, rounded: true)
        expectFields(third.convertScale(10, method: .roundAwayFromZero), 4, 10, rounded: true)
        expectFields(third.convertScale(10, method: .roundTowardPositiveInfinity), 4, 10, rounded: true)
        expectFields(minusThird.convertScale(10, method: .roundTowardNegativeInfinity), -4, 10, rounded: true)
        expectFields(minusThird.convertScale(10, method: .roundTowardZero), -3, 10, rounded: true)
        expectFields(CMTimeMake(value: 1, timescale: 4).convertScale(10, method: .roundHalfAwayFromZero), 3, 10, rounded: true)
        expectFields(CMTimeMake(value: -1, timescale: 4).convertScale(10, method: .roundHalfAwayFromZero), -3, 10, rounded: true)
        // QuickTime: away from zero when the timescale grows, toward zero when it shrinks, never −x to 0.
        expectFields(third.convertScale(10, method: .quickTime), 4, 10, rounded: true)
        expectFields(CMTimeMake(value: 1, timescale: 30).convertScale(10, method: .quickTime), 0, 10, rounded: true)
        expectFields(CMTimeMake(value: -1, timescale: 30).convertScale(10, method: .quickTime), -1, 10, rounded: true)
        expectFields(CMTimeMake(value: 3, timescale: 30).convertScale(600, method: .default), 60, 600)
        #expect(CMTime.indefinite.convertScale(10, method: .default).isIndefinite)
        #expect(!third.convertScale(0, method: .default).isValid)
        #expect(CMTimeMake(value: .max, timescale: 1).convertScale(2, method: .default).isPositiveInfinity)
    }

    @Test func multiplication() {
        // 1/3 × 0.5 = 1/6 exactly: the timescale doubles rather than rounding.
        expectFields(CMTimeMultiplyByFloat64(CMTimeMake(value: 1, timescale: 3), multiplier: 0.5), 1, 6)
        expectFields(CMTimeMultiplyByFloat64(CMTimeMake(value: 1, timescale: 30), multiplier: 2), 2, 30)
        expectFields(CMTimeMultiplyByFloat64(CMTimeMake(value: 3, timescale: 10), multiplier: -1.5), -9, 20)
        expectFields(CMTimeMultiply(CMTimeMake(value: 3, timescale: 10), multiplier: 4), 12, 10)
        // 0.1 has no exact binary form: 0.3 units round to 0.
        expectFields(CMTimeMultiplyByFloat64(CMTimeMake(value: 3, timescale: 10), multiplier: 0.1), 0, 10, rounded: true)
        #expect(CMTimeMultiplyByFloat64(.positiveInfinity, multiplier: -2).isNegativeInfinity)
        #expect(!CMTimeMultiplyByFloat64(.positiveInfinity, multiplier: 0).isValid)
        #expect(!CMTimeMultiplyByFloat64(.zero, multiplier: .nan).isValid)
        #expect(CMTimeMultiplyByFloat64(CMTimeMake(value: .max / 2, timescale: 1), multiplier: 4).isPositiveInfinity)
        expectFields(CMTimeAbsoluteValue(CMTimeMake(value: -7, timescale: 3)), 7, 3)
    }

    @Test func rangesContainTheirStartButNotTheirEnd() {
        let one = CMTimeMake(value: 1, timescale: 1), three = CMTimeMake(value: 3, timescale: 1)
        let range = CMTimeRangeFromTimeToTime(start: one, end: three)
        #expect(range.duration == CMTimeMake(value: 2, timescale: 1) && range.end == three && range.isValid && !range.isEmpty)
        #expect(range.containsTime(one) && CMTimeRangeContainsTime(range, time: CMTimeMake(value: 299, timescale: 100)))
        #expect(!range.containsTime(three) && !range.containsTime(.invalid))
        #expect(range.containsTimeRange(CMTimeRange(start: one, duration: one)) && !range.containsTimeRange(CMTimeRange(start: one, end: CMTimeMake(value: 4, timescale: 1))))
        #expect(CMTimeClampToRange(CMTimeMake(value: 5, timescale: 1), range: range) == three)
        #expect(CMTimeClampToRange(.zero, range: range) == one)
        #expect(CMTimeClampToRange(CMTimeMake(value: 2, timescale: 1), range: range) == CMTimeMake(value: 2, timescale: 1))
        #expect(!CMTimeClampToRange(one, range: CMTimeRange(start: one, duration: .zero)).isValid)
        let later = CMTimeRangeMake(start: CMTimeMake(value: 2, timescale: 1), duration: CMTimeMake(value: 5, timescale: 1))
        #expect(range.intersection(later) == CMTimeRangeFromTimeToTime(start: CMTimeMake(value: 2, timescale: 1), end: three))
        #expect(CMTimeRangeGetIntersection(range, otherRange: later).duration == one)
        #expect(range.union(later) == CMTimeRangeFromTimeToTime(start: one, end: CMTimeMake(value: 7, timescale: 1)))
        #expect(range.intersection(CMTimeRange(start: CMTimeMake(value: 9, timescale: 1), duration: one)).isEmpty)
        #expect(CMTimeRangeEqual(range, CMTimeRange(start: CMTimeMake(value: 10, timescale: 10), duration: CMTimeMake(value: 4, timescale: 2))))
        #expect(range != later)
    }

    @Test func invalidAndIndefiniteRanges() {
        #expect(!CMTimeRange.invalid.isValid && CMTIMERANGE_IS_INVALID(CMTimeRange()))
        #expect(!CMTimeRange(start: .zero, duration: CMTimeMake(value: -1, timescale: 1)).isValid)
        #expect(!CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 1, flags: .valid, epoch: 1)).isValid)
        #expect(!CMTimeRangeMake(start: .invalid, duration: .zero).isValid)
        #expect(CMTimeRange.zero.isEmpty && CMTimeRange.zero.isValid)
        let open = CMTimeRange(start: .zero, end: .indefinite)
        #expect(open.isIndefinite && open.duration.isIndefinite && open.end.isIndefinite)
        #expect(CMTimeRange(start: .zero, end: .positiveInfinity).containsTime(CMTimeMake(value: 1_000_000, timescale: 1)))
        #expect(!CMTimeRangeGetEnd(.invalid).isValid)
    }
}

/// A span of time, `start` for `duration`, as Core Media's `CMTimeRange`.
///
/// A range is valid when both times are valid and the duration is a non-negative duration
/// (epoch 0). It contains `start` but not its end: `start ≤ t < start + duration`.
///
/// ```swift
/// let range = CMTimeRange(start: .zero, duration: CMTime(value: 2, timescale: 1))
/// range.containsTime(CMTime(value: 1, timescale: 1))   // true
/// ```
public struct CMTimeRange: Sendable {
    /// The first time in the range.
    public var start: CMTime
    /// The length of the range.
    public var duration: CMTime

    /// Both times invalid, as C's zero-initialised `CMTimeRange`.
    public init() {
        start = CMTime()
        duration = CMTime()
    }

    /// A range from its start and duration, as ``CMTimeRangeMake(start:duration:)``.
    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to `end`, as ``CMTimeRangeFromTimeToTime(start:end:)``: the duration is
    /// `end - start`, so an indefinite or infinite end gives an indefinite or infinite duration.
    public init(start: CMTime, end: CMTime) {
        self.init(start: start, duration: CMTimeSubtract(end, start))
    }

    /// Zero start and zero duration: observations that do not come from a timed source carry this.
    public static let zero = CMTimeRange(start: .zero, duration: .zero)
    /// A range whose times are both invalid.
    public static let invalid = CMTimeRange()

    /// Whether both times are valid and the duration is a non-negative duration (epoch 0).
    public var isValid: Bool {
        start.isValid && duration.isValid && duration.epoch == 0 && !duration.isNegativeInfinity
            && !(duration.isNumeric && duration.value < 0)
    }
    /// Whether the range is valid and its start or duration is indefinite.
    public var isIndefinite: Bool { isValid && (start.isIndefinite || duration.isIndefinite) }
    /// Whether the range is valid and its duration is zero.
    public var isEmpty: Bool { isValid && duration == .zero }
    /// `start + duration`, as ``CMTimeRangeGetEnd(_:)`` (invalid for an invalid range).
    public var end: CMTime { CMTimeRangeGetEnd(self) }

    /// The smallest range holding both, as Core Media's `CMTimeRangeGetUnion`.
    public func union(_ otherRange: CMTimeRange) -> CMTimeRange { CMTimeRangeGetUnion(self, otherRange: otherRange) }
    /// The overlap, as ``CMTimeRangeGetIntersection(_:otherRange:)``.
    public func intersection(_ otherRange: CMTimeRange) -> CMTimeRange {
        CMTimeRangeGetIntersection(self, otherRange: otherRange)
    }
    /// Whether `time` lies in the range, as ``CMTimeRangeContainsTime(_:time:)``.
    public func containsTime(_ time: CMTime) -> Bool { CMTimeRangeContainsTime(self, time: time) }
    /// Whether `range` lies wholly in this range, as Core Media's `CMTimeRangeContainsTimeRange`.
    public func containsTimeRange(_ range: CMTimeRange) -> Bool { CMTimeRangeContainsTimeRange(self, otherRange: range) }
}

extension CMTimeRange: Hashable {
    /// Equal starts and equal durations (numerically, as ``CMTimeRangeEqual(_:_:)``).
    public static func == (range1: CMTimeRange, range2: CMTimeRange) -> Bool { CMTimeRangeEqual(range1, range2) }
    /// Not ``==(_:_:)``.
    public static func != (range1: CMTimeRange, range2: CMTimeRange) -> Bool { !CMTimeRangeEqual(range1, range2) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(start)
        hasher.combine(duration)
    }
}

/// A range from its start and duration, as Core Media's `CMTimeRangeMake` (invalid when either time is).
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange {
    guard start.isValid, duration.isValid else { return .invalid }
    return CMTimeRange(start: start, duration: duration)
}

/// The range from `start` up to `end` (duration `end - start`), as Core Media's `CMTimeRangeFromTimeToTime`.
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange {
    CMTimeRangeMake(start: start, duration: CMTimeSubtract(end, start))
}

/// `start + duration`, as Core Media's `CMTimeRangeGetEnd` (invalid for an invalid range).
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime {
    guard range.isValid else { return .invalid }
    return CMTimeAdd(range.start, range.duration)
}

/// Whether the ranges have numerically equal starts and durations, as Core Media's `CMTimeRangeEqual`.
public func CMTimeRangeEqual(_ range1: CMTimeRange, _ range2: CMTimeRange) -> Bool {
    range1.start == range2.start && range1.duration == range2.duration
}

/// Whether `start ≤ time < end`, as Core Media's `CMTimeRangeContainsTime` (false for an invalid range or time).
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool {
    guard range.isValid, time.isValid else { return false }
    return time >= range.start && time < range.end
}

/// Whether `otherRange` lies wholly inside `range`, as Core Media's `CMTimeRangeContainsTimeRange`
/// (false when either range is invalid).
public func CMTimeRangeContainsTimeRange(_ range: CMTimeRange, otherRange: CMTimeRange) -> Bool {
    guard range.isValid, otherRange.isValid else { return false }
    return otherRange.start >= range.start && otherRange.end <= range.end
}

/// The overlap of two ranges, as Core Media's `CMTimeRangeGetIntersection`: from the later start to
/// the earlier end, or an empty range at the later start when they do not overlap (invalid when
/// either range is).
public func CMTimeRangeGetIntersection(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    guard range.isValid, otherRange.isValid else { return .invalid }
    let start = CMTimeMaximum(range.start, otherRange.start), end = CMTimeMinimum(range.end, otherRange.end)
    guard end > start else { return CMTimeRange(start: start, duration: CMTime(value: 0, timescale: max(1, start.timescale))) }
    return CMTimeRangeFromTimeToTime(start: start, end: end)
}

/// The smallest range holding both, as Core Media's `CMTimeRangeGetUnion` (invalid when either range is).
public func CMTimeRangeGetUnion(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    guard range.isValid, otherRange.isValid else { return .invalid }
    return CMTimeRangeFromTimeToTime(
        start: CMTimeMinimum(range.start, otherRange.start), end: CMTimeMaximum(range.end, otherRange.end))
}

/// Whether the range is valid, as Core Media's `CMTIMERANGE_IS_VALID`.
public func CMTIMERANGE_IS_VALID(_ range: CMTimeRange) -> Bool { range.isValid }
/// Whether the range is invalid, as Core Media's `CMTIMERANGE_IS_INVALID`.
public func CMTIMERANGE_IS_INVALID(_ range: CMTimeRange) -> Bool { !range.isValid }
/// Whether the range is valid with an indefinite start or duration, as Core Media's `CMTIMERANGE_IS_INDEFINITE`.
public func CMTIMERANGE_IS_INDEFINITE(_ range: CMTimeRange) -> Bool { range.isIndefinite }
/// Whether the range is valid and empty, as Core Media's `CMTIMERANGE_IS_EMPTY`.
public func CMTIMERANGE_IS_EMPTY(_ range: CMTimeRange) -> Bool { range.isEmpty }

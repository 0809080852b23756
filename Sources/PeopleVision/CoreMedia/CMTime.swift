#if os(Linux)
/// Seconds, as Core Foundation's `CFTimeInterval` (a `Double`).
public typealias CFTimeInterval = Double
#endif

/// A rational time value, as Core Media's `CMTime` (the subset Vision's API uses).
public struct CMTime: Sendable, Hashable {
    /// Numerator.
    public var value: Int64
    /// Denominator (units per second); 0 makes the time invalid.
    public var timescale: Int32
    /// Numeric, or one of the special times.
    private var kind: Kind = .numeric

    private enum Kind: Sendable, Hashable { case numeric, indefinite, positiveInfinity }

    public init(value: Int64, timescale: Int32) {
        self.value = value
        self.timescale = timescale
    }

    /// A time from seconds at a preferred timescale.
    public init(seconds: Double, preferredTimescale: Int32) {
        self.init(value: Int64((seconds * Double(preferredTimescale)).rounded()), timescale: preferredTimescale)
    }

    /// Zero seconds.
    public static let zero = CMTime(value: 0, timescale: 1)
    /// An invalid time.
    public static let invalid = CMTime(value: 0, timescale: 0)

    /// An unknown time ("to the end" as a duration).
    public static let indefinite: CMTime = {
        var t = CMTime(value: 0, timescale: 1)
        t.kind = .indefinite
        return t
    }()
    /// A time after every other.
    public static let positiveInfinity: CMTime = {
        var t = CMTime(value: 0, timescale: 1)
        t.kind = .positiveInfinity
        return t
    }()

    /// Whether the time is valid (non-zero timescale).
    public var isValid: Bool { timescale != 0 }
    /// Whether the time is ``indefinite``.
    public var isIndefinite: Bool { kind == .indefinite }
    /// Whether the time is ``positiveInfinity``.
    public var isPositiveInfinity: Bool { kind == .positiveInfinity }
    /// The time in seconds (NaN when invalid or indefinite, +∞ for ``positiveInfinity``).
    public var seconds: Double {
        switch kind {
        case .indefinite: .nan
        case .positiveInfinity: .infinity
        case .numeric: timescale == 0 ? .nan : Double(value) / Double(timescale)
        }
    }
}

/// A time range, as Core Media's `CMTimeRange`.
public struct CMTimeRange: Sendable, Hashable {
    public var start: CMTime
    public var duration: CMTime

    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to `end` (an indefinite or infinite end: to the end of the media).
    public init(start: CMTime, end: CMTime) {
        self.start = start
        if end.isIndefinite || end.isPositiveInfinity {
            duration = end
        } else {
            duration = CMTime(seconds: end.seconds - start.seconds, preferredTimescale: max(start.timescale, end.timescale, 600))
        }
    }

    /// Where the range ends (``CMTime/positiveInfinity`` for an indefinite or infinite duration).
    public var end: CMTime {
        if duration.isIndefinite || duration.isPositiveInfinity { return .positiveInfinity }
        return CMTime(seconds: start.seconds + duration.seconds, preferredTimescale: max(start.timescale, duration.timescale, 600))
    }

    /// Zero start and zero duration: observations that do not come from a timed source carry this.
    public static let zero = CMTimeRange(start: .zero, duration: .zero)
}

/// A rational time value, as Core Media's `CMTime` (the subset Vision's API uses).
public struct CMTime: Sendable, Hashable {
    /// Numerator.
    public var value: Int64
    /// Denominator (units per second); 0 makes the time invalid.
    public var timescale: Int32

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

    /// Whether the time is valid (non-zero timescale).
    public var isValid: Bool { timescale != 0 }
    /// The time in seconds (NaN when invalid).
    public var seconds: Double { timescale == 0 ? .nan : Double(value) / Double(timescale) }
}

/// A time range, as Core Media's `CMTimeRange`.
public struct CMTimeRange: Sendable, Hashable {
    public var start: CMTime
    public var duration: CMTime

    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }

    /// Zero start and zero duration: observations that do not come from a timed source carry this.
    public static let zero = CMTimeRange(start: .zero, duration: .zero)
}

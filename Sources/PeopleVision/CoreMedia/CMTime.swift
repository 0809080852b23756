#if os(Linux)
/// Seconds, as Core Foundation's `CFTimeInterval` (a `Double`).
public typealias CFTimeInterval = Double
#endif

/// A time's numerator, as Core Media's `CMTimeValue`.
public typealias CMTimeValue = Int64
/// A time's denominator (units per second), as Core Media's `CMTimeScale`.
public typealias CMTimeScale = Int32
/// A time's epoch (loop count or similar), as Core Media's `CMTimeEpoch`.
public typealias CMTimeEpoch = Int64

/// The largest timescale a result is given when two timescales have no common multiple below it,
/// as Core Media's `kCMTimeMaxTimescale`.
public var kCMTimeMaxTimescale: Int { 0x7fff_ffff }

/// What a ``CMTime`` holds besides its value, as Core Media's `CMTimeFlags`.
public struct CMTimeFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The time is valid (every other flag needs this one).
    public static let valid = CMTimeFlags(rawValue: 1 << 0)
    /// Rounding happened when the time was computed.
    public static let hasBeenRounded = CMTimeFlags(rawValue: 1 << 1)
    /// The time is +∞ (value and timescale are ignored).
    public static let positiveInfinity = CMTimeFlags(rawValue: 1 << 2)
    /// The time is −∞ (value and timescale are ignored).
    public static let negativeInfinity = CMTimeFlags(rawValue: 1 << 3)
    /// The time is unknown (value and timescale are ignored).
    public static let indefinite = CMTimeFlags(rawValue: 1 << 4)
    /// The flags that make a valid time non-numeric.
    public static let impliedValueFlagsMask: CMTimeFlags = [.positiveInfinity, .negativeInfinity, .indefinite]
}

/// How a value is rounded when a time changes timescale, as Core Media's `CMTimeRoundingMethod`.
public enum CMTimeRoundingMethod: UInt32, Sendable {
    /// To the nearest value, halves away from zero (the default).
    case roundHalfAwayFromZero = 1
    /// Toward zero (truncation).
    case roundTowardZero = 2
    /// Away from zero.
    case roundAwayFromZero = 3
    /// Toward zero when the timescale shrinks, away from zero when it grows; a negative time never
    /// rounds to zero (it becomes −1 in the new timescale).
    case quickTime = 4
    /// Toward −∞ (floor).
    case roundTowardNegativeInfinity = 5
    /// Toward +∞ (ceiling).
    case roundTowardPositiveInfinity = 6

    /// ``roundHalfAwayFromZero``.
    public static var `default`: CMTimeRoundingMethod { .roundHalfAwayFromZero }
}

/// A rational time, `value / timescale` seconds, as Core Media's `CMTime`.
///
/// Arithmetic and comparison are exact (128-bit intermediate products) and follow Core Media's
/// rules: mixed timescales meet at their least common multiple (or ``kCMTimeMaxTimescale``, with
/// rounding), an overflowing value halves the timescale until it fits and becomes ±∞ past
/// timescale 1, and any rounding sets ``CMTimeFlags/hasBeenRounded``. Equality is numeric:
/// `CMTime(value: 1, timescale: 2) == CMTime(value: 2, timescale: 4)`.
///
/// ```swift
/// let frame = CMTime(value: 1, timescale: 30)
/// let t = CMTimeMakeWithSeconds(2.5, preferredTimescale: 600) + frame   // 1520/600
/// ```
public struct CMTime: Sendable {
    /// The numerator.
    public var value: CMTimeValue
    /// The denominator: units per second (positive in a numeric time).
    public var timescale: CMTimeScale
    /// Validity, rounding and the special values.
    public var flags: CMTimeFlags
    /// Distinguishes otherwise equal times (loops of a presentation); 0 for durations.
    public var epoch: CMTimeEpoch

    /// All fields zero: an invalid time, as C's zero-initialised `CMTime`.
    public init() {
        value = 0
        timescale = 0
        flags = []
        epoch = 0
    }

    /// A time from all its fields (no validation, as in C).
    public init(value: CMTimeValue, timescale: CMTimeScale, flags: CMTimeFlags, epoch: CMTimeEpoch) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// `value / timescale` seconds, as ``CMTimeMake(value:timescale:)``.
    public init(value: CMTimeValue, timescale: CMTimeScale) {
        self = CMTimeMake(value: value, timescale: timescale)
    }

    /// The nearest time to `seconds` at `preferredTimescale`, as
    /// ``CMTimeMakeWithSeconds(_:preferredTimescale:)``.
    public init(seconds: Double, preferredTimescale: CMTimeScale) {
        self = CMTimeMakeWithSeconds(seconds, preferredTimescale: preferredTimescale)
    }

    /// Zero seconds (`0/1`).
    public static let zero = CMTime(value: 0, timescale: 1, flags: .valid, epoch: 0)
    /// An invalid time (every field zero). Test with ``isValid``, not `==`.
    public static let invalid = CMTime()
    /// An unknown time ("until the end" as a duration). Test with ``isIndefinite``.
    public static let indefinite = CMTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)
    /// A time after every numeric and indefinite time. Test with ``isPositiveInfinity``.
    public static let positiveInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
    /// A time before every other. Test with ``isNegativeInfinity``.
    public static let negativeInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)

    /// Whether the valid flag is set.
    public var isValid: Bool { flags.contains(.valid) }
    /// Whether the time is valid and not one of the special values.
    public var isNumeric: Bool { isValid && flags.isDisjoint(with: .impliedValueFlagsMask) }
    /// Whether the time is valid and indefinite.
    public var isIndefinite: Bool { isValid && flags.contains(.indefinite) }
    /// Whether the time is valid and +∞.
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    /// Whether the time is valid and −∞.
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }
    /// Whether the time is numeric and rounding happened when it was computed.
    public var hasBeenRounded: Bool { isNumeric && flags.contains(.hasBeenRounded) }
    /// The time in seconds, as ``CMTimeGetSeconds(_:)`` (NaN when invalid or indefinite, ±∞).
    public var seconds: Double { CMTimeGetSeconds(self) }

    /// The time in another timescale, as ``CMTimeConvertScale(_:timescale:method:)``.
    public func convertScale(_ newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
        CMTimeConvertScale(self, timescale: newTimescale, method: method)
    }

    /// Where the time sorts among the special values (``CMTimeCompare(_:_:)``'s order).
    var rank: Int {
        if !isValid { return 4 }
        if flags.contains(.negativeInfinity) { return 0 }
        if flags.contains(.positiveInfinity) { return 3 }
        if flags.contains(.indefinite) { return 2 }
        return 1
    }
}

extension CMTime: Hashable, Comparable {
    /// Numeric equality (``CMTimeCompare(_:_:)`` is 0): `1/2 == 2/4`; all invalid times are equal.
    public static func == (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) == 0 }
    /// Numeric inequality.
    public static func != (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) != 0 }
    /// The sum, as ``CMTimeAdd(_:_:)``.
    public static func + (addend1: CMTime, addend2: CMTime) -> CMTime { CMTimeAdd(addend1, addend2) }
    /// The difference, as ``CMTimeSubtract(_:_:)``.
    public static func - (minuend: CMTime, subtrahend: CMTime) -> CMTime { CMTimeSubtract(minuend, subtrahend) }
    /// Ordered as ``CMTimeCompare(_:_:)``.
    public static func < (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) < 0 }
    /// Ordered as ``CMTimeCompare(_:_:)``.
    public static func <= (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) <= 0 }
    /// Ordered as ``CMTimeCompare(_:_:)``.
    public static func > (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) > 0 }
    /// Ordered as ``CMTimeCompare(_:_:)``.
    public static func >= (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) >= 0 }

    /// Hashes what equality compares: the reduced fraction and epoch of a numeric time, else its kind.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rank)
        guard isNumeric, timescale > 0 else { return }
        let divisor = CMTime.gcd(value.magnitude, UInt64(timescale))
        hasher.combine(epoch)
        hasher.combine(value / Int64(divisor))
        hasher.combine(Int64(timescale) / Int64(divisor))
    }

    static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a == 0 ? 1 : a
    }
}

extension CMTime: CustomStringConvertible {
    public var description: String {
        if !isValid { return "CMTime(invalid)" }
        if isIndefinite { return "CMTime(indefinite)" }
        if isPositiveInfinity { return "CMTime(+infinity)" }
        if isNegativeInfinity { return "CMTime(-infinity)" }
        return "CMTime(\(value)/\(timescale)\(epoch == 0 ? "" : ", epoch \(epoch)")\(hasBeenRounded ? ", rounded" : ""))"
    }
}

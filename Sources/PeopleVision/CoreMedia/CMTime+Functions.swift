// Core Media's C time functions, exact rational arithmetic as Apple documents it.

/// `value / timescale` seconds, as Core Media's `CMTimeMake`.
///
/// A timescale that is not positive gives ``CMTime/invalid`` (Core Media requires a positive one;
/// such a time would otherwise divide by zero in every later operation).
public func CMTimeMake(value: Int64, timescale: Int32) -> CMTime {
    guard timescale > 0 else { return .invalid }
    return CMTime(value: value, timescale: timescale, flags: .valid, epoch: 0)
}

/// The time nearest `seconds` at `preferredTimescale`, as Core Media's `CMTimeMakeWithSeconds`.
///
/// Rounds halves away from zero. NaN or a timescale that is not positive gives an invalid time,
/// ±∞ the infinite times. When the value would overflow, the timescale is halved until it fits
/// (±∞ past timescale 1). ``CMTime/hasBeenRounded`` is set when the result, back in seconds,
/// differs from `seconds`.
public func CMTimeMakeWithSeconds(_ seconds: Float64, preferredTimescale: Int32) -> CMTime {
    guard preferredTimescale > 0, !seconds.isNaN else { return .invalid }
    if seconds.isInfinite { return seconds > 0 ? .positiveInfinity : .negativeInfinity }
    return CMTime.nearest(toScaled: { seconds * Double($0) }, timescale: preferredTimescale) {
        Double($0.value) / Double($0.timescale) != seconds
    }
}

/// The time in seconds, as Core Media's `CMTimeGetSeconds`: NaN for an invalid or indefinite time, ±∞
/// for the infinite ones.
public func CMTimeGetSeconds(_ time: CMTime) -> Float64 {
    if !time.isValid || time.isIndefinite { return .nan }
    if time.isPositiveInfinity { return .infinity }
    if time.isNegativeInfinity { return -.infinity }
    guard time.timescale != 0 else { return .nan }
    return Double(time.value) / Double(time.timescale)
}

/// -1, 0 or 1 as `time1` is less than, equal to or greater than `time2`, as Core Media's `CMTimeCompare`.
///
/// Order: −∞ < numeric times < indefinite < +∞ < invalid. Numeric times compare by epoch first,
/// then exactly by value (`1/3` and `2/6` are equal).
public func CMTimeCompare(_ time1: CMTime, _ time2: CMTime) -> Int32 {
    let r1 = time1.rank, r2 = time2.rank
    if r1 != r2 { return r1 < r2 ? -1 : 1 }
    guard r1 == 1 else { return 0 }
    if time1.epoch != time2.epoch { return time1.epoch < time2.epoch ? -1 : 1 }
    let lhs = Int128(time1.value) * Int128(time2.timescale), rhs = Int128(time2.value) * Int128(time1.timescale)
    return lhs == rhs ? 0 : (lhs < rhs ? -1 : 1)
}

/// The sum, as Core Media's `CMTimeAdd`.
///
/// The result's timescale is the least common multiple of the operands' (``kCMTimeMaxTimescale``,
/// rounded, when that is larger); an overflowing value halves it until it fits, then gives ±∞.
/// Invalid in, invalid out; an infinite operand wins (+∞ + −∞ is invalid); otherwise an indefinite
/// operand makes the sum indefinite. Times of two different non-zero epochs cannot be added (invalid);
/// a duration (epoch 0) added to a time keeps the time's epoch.
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { CMTime.sum(lhs, rhs, negatingRight: false) }

/// The difference, as Core Media's `CMTimeSubtract`, by the rules of ``CMTimeAdd(_:_:)``
/// (+∞ − +∞ is invalid). Two times of the same epoch give a duration (epoch 0); subtracting a
/// duration keeps the epoch; any other mix of epochs is invalid.
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { CMTime.sum(lhs, rhs, negatingRight: true) }

/// The time in a new timescale, as Core Media's `CMTimeConvertScale`.
///
/// Non-numeric times are returned unchanged; a timescale that is not positive gives an invalid
/// time; a value that no longer fits in 64 bits gives ±∞. Rounding sets ``CMTime/hasBeenRounded``.
public func CMTimeConvertScale(_ time: CMTime, timescale newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
    guard time.isNumeric else { return time }
    guard newTimescale > 0, time.timescale > 0 else { return .invalid }
    if newTimescale == time.timescale { return time }
    var result = CMTime.rational(
        Int128(time.value), over: Int128(time.timescale), timescale: newTimescale, method: method,
        growing: newTimescale > time.timescale, halving: false)
    result.epoch = time.epoch
    if time.flags.contains(.hasBeenRounded), result.isNumeric { result.flags.insert(.hasBeenRounded) }
    return result
}

/// The time multiplied by a float, as Core Media's `CMTimeMultiplyByFloat64`.
///
/// The exact product is kept when the time's timescale, or that timescale times a power of two
/// (up to ``kCMTimeMaxTimescale``), can hold it; otherwise the product is rounded (halves away
/// from zero) in the time's timescale, halved while the value overflows, ±∞ past timescale 1.
/// NaN, or an infinite time or multiplier times zero, gives an invalid time.
public func CMTimeMultiplyByFloat64(_ time: CMTime, multiplier: Float64) -> CMTime {
    guard time.isValid, !multiplier.isNaN else { return .invalid }
    if time.isIndefinite { return time }
    let timeSign = time.isPositiveInfinity ? 1 : time.isNegativeInfinity ? -1 : (time.value > 0 ? 1 : time.value < 0 ? -1 : 0)
    if time.isPositiveInfinity || time.isNegativeInfinity || multiplier.isInfinite {
        guard timeSign != 0, multiplier != 0 else { return .invalid }
        return (timeSign > 0) == (multiplier > 0) ? .positiveInfinity : .negativeInfinity
    }
    guard time.timescale > 0 else { return .invalid }
    if let exact = CMTime.exactProduct(time, multiplier) { return exact }
    var result = CMTime.nearest(toScaled: { Double(time.value) * multiplier * Double($0) / Double(time.timescale) },
                                timescale: time.timescale) { _ in true }
    if result.isNumeric { result.epoch = time.epoch }
    return result
}

/// The time multiplied by an integer, as Core Media's `CMTimeMultiply` (same timescale; halved while
/// the value overflows, ±∞ past timescale 1).
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime {
    CMTimeMultiplyByFloat64(time, multiplier: Float64(multiplier))
}

/// The absolute value, as Core Media's `CMTimeAbsoluteValue` (−∞ becomes +∞).
public func CMTimeAbsoluteValue(_ time: CMTime) -> CMTime {
    if time.isNegativeInfinity { return .positiveInfinity }
    guard time.isNumeric, time.value < 0 else { return time }
    return CMTimeMultiply(time, multiplier: -1)
}

/// The lesser time by ``CMTimeCompare(_:_:)``, as Core Media's `CMTimeMinimum` (an invalid time,
/// which sorts last, loses to any valid one).
public func CMTimeMinimum(_ time1: CMTime, _ time2: CMTime) -> CMTime { CMTimeCompare(time1, time2) <= 0 ? time1 : time2 }

/// The greater time by ``CMTimeCompare(_:_:)``, as Core Media's `CMTimeMaximum` (an invalid time,
/// which sorts last, wins).
public func CMTimeMaximum(_ time1: CMTime, _ time2: CMTime) -> CMTime { CMTimeCompare(time1, time2) >= 0 ? time1 : time2 }

/// The nearest time inside `range`, as Core Media's `CMTimeClampToRange`: the time itself when inside,
/// else the range's start or end. An invalid time or an invalid or empty range gives an invalid time.
public func CMTimeClampToRange(_ time: CMTime, range: CMTimeRange) -> CMTime {
    guard time.isValid, range.isValid, !range.isEmpty else { return .invalid }
    if time < range.start { return range.start }
    let end = range.end
    return time > end ? end : time
}

/// Whether the time is valid, as Core Media's `CMTIME_IS_VALID`.
public func CMTIME_IS_VALID(_ time: CMTime) -> Bool { time.isValid }
/// Whether the time is invalid, as Core Media's `CMTIME_IS_INVALID`.
public func CMTIME_IS_INVALID(_ time: CMTime) -> Bool { !time.isValid }
/// Whether the time is numeric, as Core Media's `CMTIME_IS_NUMERIC`.
public func CMTIME_IS_NUMERIC(_ time: CMTime) -> Bool { time.isNumeric }
/// Whether the time is indefinite, as Core Media's `CMTIME_IS_INDEFINITE`.
public func CMTIME_IS_INDEFINITE(_ time: CMTime) -> Bool { time.isIndefinite }
/// Whether the time is +∞, as Core Media's `CMTIME_IS_POSITIVEINFINITY`.
public func CMTIME_IS_POSITIVEINFINITY(_ time: CMTime) -> Bool { time.isPositiveInfinity }
/// Whether the time is −∞, as Core Media's `CMTIME_IS_NEGATIVEINFINITY`.
public func CMTIME_IS_NEGATIVEINFINITY(_ time: CMTime) -> Bool { time.isNegativeInfinity }
/// Whether rounding happened, as Core Media's `CMTIME_HAS_BEEN_ROUNDED`.
public func CMTIME_HAS_BEEN_ROUNDED(_ time: CMTime) -> Bool { time.hasBeenRounded }

extension CMTime {
    /// +1 for +∞, −1 for −∞, else 0.
    var infinitySign: Int { isPositiveInfinity ? 1 : isNegativeInfinity ? -1 : 0 }

    /// `lhs + rhs`, or `lhs - rhs`, by ``CMTimeAdd(_:_:)``'s rules.
    static func sum(_ lhs: CMTime, _ rhs: CMTime, negatingRight: Bool) -> CMTime {
        guard lhs.isValid, rhs.isValid else { return .invalid }
        let a = lhs.infinitySign, b = negatingRight ? -rhs.infinitySign : rhs.infinitySign
        if a != 0 || b != 0 {
            if a != 0, b != 0, a != b { return .invalid }
            return a + b > 0 ? .positiveInfinity : .negativeInfinity
        }
        if lhs.isIndefinite || rhs.isIndefinite { return .indefinite }
        guard lhs.timescale > 0, rhs.timescale > 0 else { return .invalid }
        let epoch: CMTimeEpoch
        switch (lhs.epoch, rhs.epoch) {
        case let (l, r) where l == r: epoch = negatingRight ? 0 : l
        case let (l, 0): epoch = l
        case let (0, r) where !negatingRight: epoch = r
        default: return .invalid
        }
        let l = Int128(lhs.timescale), r = Int128(rhs.timescale)
        let numerator = Int128(lhs.value) * r + (negatingRight ? -1 : 1) * Int128(rhs.value) * l
        let common = l / Int128(gcd(UInt64(lhs.timescale), UInt64(rhs.timescale))) * r
        let timescale = Int32(min(common, Int128(kCMTimeMaxTimescale)))
        var result = rational(numerator, over: l * r, timescale: timescale, method: .default, growing: false, halving: true)
        if result.isNumeric {
            result.epoch = epoch
            if lhs.flags.contains(.hasBeenRounded) || rhs.flags.contains(.hasBeenRounded) {
                result.flags.insert(.hasBeenRounded)
            }
        }
        return result
    }

    /// The time nearest `numerator / denominator` seconds (`denominator > 0`) at `timescale`.
    ///
    /// With `halving`, a value that overflows halves the timescale (default rounding) until it fits;
    /// without, or past timescale 1, it gives ±∞. `growing` tells ``CMTimeRoundingMethod/quickTime``
    /// which way to round.
    static func rational(
        _ numerator: Int128, over denominator: Int128, timescale: Int32, method: CMTimeRoundingMethod, growing: Bool,
        halving: Bool
    ) -> CMTime {
        var scale = timescale, method = method
        while true {
            let (scaled, overflow) = numerator.multipliedReportingOverflow(by: Int128(scale))
            if !overflow {
                let (q, inexact) = divide(scaled, by: denominator, method, growing: growing)
                if let value = Int64(exactly: q) {
                    return CMTime(value: value, timescale: scale, flags: inexact ? [.valid, .hasBeenRounded] : .valid, epoch: 0)
                }
            }
            guard halving, scale > 1 else { return numerator < 0 ? .negativeInfinity : .positiveInfinity }
            scale /= 2
            method = .default
        }
    }

    /// `n / d` (`d > 0`) rounded by `method`, and whether it was inexact.
    static func divide(_ n: Int128, by d: Int128, _ method: CMTimeRoundingMethod, growing: Bool) -> (Int128, Bool) {
        let q = n / d, r = n % d
        if r == 0 { return (q, false) }
        let away: Int128 = n < 0 ? -1 : 1
        switch method {
        case .roundHalfAwayFromZero: return (2 * r.magnitude >= d.magnitude ? q + away : q, true)
        case .roundTowardZero: return (q, true)
        case .roundAwayFromZero: return (q + away, true)
        case .quickTime: return (growing || (q == 0 && n < 0) ? q + away : q, true)
        case .roundTowardNegativeInfinity: return (n < 0 ? q - 1 : q, true)
        case .roundTowardPositiveInfinity: return (n > 0 ? q + 1 : q, true)
        }
    }

    /// The numeric time nearest `scaled(timescale)` units of `timescale`, halving the timescale while the value
    /// overflows (±∞ past 1); `isRounded` says whether the result counts as rounded.
    static func nearest(toScaled scaled: (Int32) -> Double, timescale: Int32, isRounded: (CMTime) -> Bool) -> CMTime {
        var scale = timescale
        while true {
            let exact = scaled(scale), value = exact.rounded()
            // 2^63 is the first double outside Int64.
            if value.isFinite, abs(value) < 9_223_372_036_854_775_808.0 {
                var time = CMTime(value: Int64(value), timescale: scale, flags: .valid, epoch: 0)
                if isRounded(time) { time.flags.insert(.hasBeenRounded) }
                return time
            }
            if scale == 1 { return exact > 0 ? .positiveInfinity : .negativeInfinity }
            scale /= 2
        }
    }

    /// `time × multiplier` exactly, in the time's timescale or that times a power of two, when one holds it.
    static func exactProduct(_ time: CMTime, _ multiplier: Double) -> CMTime? {
        if multiplier == 0 || time.value == 0 {
            return CMTime(value: 0, timescale: time.timescale, flags: time.flags.intersection([.valid, .hasBeenRounded]), epoch: time.epoch)
        }
        // |multiplier| = m × 2^e with an integer m below 2^53.
        let magnitude = abs(multiplier)
        let e = Int(magnitude.exponent) - Double.significandBitCount
        guard e > -120, e < 64, let m = Int64(exactly: Double(sign: .plus, exponent: -e, significand: magnitude)) else { return nil }
        let product = Int128(time.value) * Int128(m) * (multiplier < 0 ? -1 : 1)
        var scale = Int64(time.timescale), shift = e
        // Grow the timescale by powers of two while the product is not a whole number of units.
        while shift < 0, product.trailingZeroBitCount < -shift {
            guard scale * 2 <= Int64(kCMTimeMaxTimescale) else { return nil }
            scale *= 2
            shift += 1
        }
        let value: Int128
        if shift >= 0 {
            guard shift < 64 else { return nil }
            let (v, overflow) = product.multipliedReportingOverflow(by: Int128(1) << shift)
            guard !overflow else { return nil }
            value = v
        } else {
            value = product >> -shift
        }
        guard let v = Int64(exactly: value) else { return nil }
        return CMTime(value: v, timescale: Int32(scale), flags: time.flags.intersection([.valid, .hasBeenRounded]), epoch: time.epoch)
    }
}

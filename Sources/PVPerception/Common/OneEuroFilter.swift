/// The one-euro filter MediaPipe smooths landmarks with (MODELS.md §10.1): a low-pass filter whose
/// cutoff rises with the (smoothed) speed of the signal, so still points stay steady and fast ones lag little.
///
/// One filter smooths one scalar (one axis of one landmark). MediaPipe works in pixels: feed
/// `(x·W, y·H, z·W)` and pass `valueScale = 1/objectScale` (see ``objectScale(of:)``), or 1 for metres.
///
/// ```swift
/// var fx = OneEuroFilter(minCutoff: 0.05, beta: 80, derivativeCutoff: 1)
/// let x = fx.filter(rawX, timestamp: frameNanoseconds, valueScale: 1 / scale)
/// ```
public struct OneEuroFilter: Sendable, Hashable {
    public let minCutoff: Double
    public let beta: Double
    public let derivativeCutoff: Double
    /// Sampling frequency in Hz, re-estimated from timestamps (30 until two samples have arrived).
    public private(set) var frequency: Double = 30
    private var lastTimestamp: Int64 = 0
    private var value = LowPass()
    private var derivative = LowPass()

    public init(minCutoff: Double, beta: Double, derivativeCutoff: Double) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivativeCutoff = derivativeCutoff
    }

    /// Pose image landmarks: min cutoff 0.05, beta 80, derivative cutoff 1 (value-scaled).
    public static let poseLandmarks = OneEuroFilter(minCutoff: 0.05, beta: 80, derivativeCutoff: 1)
    /// Pose world landmarks: min cutoff 0.1, beta 40, derivative cutoff 1 (value scale 1).
    public static let poseWorldLandmarks = OneEuroFilter(minCutoff: 0.1, beta: 40, derivativeCutoff: 1)
    /// Pose auxiliary landmarks 33 and 34, which feed the next ROI: min cutoff 0.01, beta 10, derivative cutoff 1.
    public static let poseAuxiliaryLandmarks = OneEuroFilter(minCutoff: 0.01, beta: 10, derivativeCutoff: 1)

    /// Filters one sample.
    ///
    /// - Parameters:
    ///   - raw: the new value.
    ///   - timestamp: the sample time in nanoseconds; a time not after the previous one returns `raw` unchanged.
    ///   - valueScale: multiplies the derivative (`1/objectScale`, or 1).
    /// - Returns: the filtered value; the first sample passes through.
    public mutating func filter(_ raw: Double, timestamp: Int64, valueScale: Double = 1) -> Double {
        if lastTimestamp >= timestamp { return raw }
        if lastTimestamp != 0, timestamp != 0 {
            frequency = 1 / (Double(timestamp - lastTimestamp) * 1e-9)
        }
        lastTimestamp = timestamp
        let d = value.hasRaw ? (raw - value.raw) * valueScale * frequency : 0
        let ed = derivative.apply(d, alpha: alpha(derivativeCutoff))
        let cutoff = minCutoff + beta * abs(ed)
        return value.apply(raw, alpha: alpha(cutoff))
    }

    /// Forgets all state (MediaPipe resets the filters when a frame has no landmarks).
    public mutating func reset() {
        self = OneEuroFilter(minCutoff: minCutoff, beta: beta, derivativeCutoff: derivativeCutoff)
    }

    /// `1/(1 + freq/(2π·cutoff))`.
    private func alpha(_ cutoff: Double) -> Double {
        1 / (1 + frequency / (2 * .pi * cutoff))
    }

    /// The object scale MediaPipe divides derivatives by when no scale ROI is given:
    /// `((xmax − xmin) + (ymax − ymin))/2` over the points in pixels.
    public static func objectScale(of points: [SIMD2<Double>]) -> Double {
        guard let box = BoundingBox(enclosing: points) else { return 0 }
        return (box.width + box.height) / 2
    }

    /// Exponential smoothing with a given α; the first sample passes through.
    struct LowPass: Sendable, Hashable {
        private(set) var raw: Double = 0
        private(set) var stored: Double = 0
        private(set) var hasRaw = false

        mutating func apply(_ v: Double, alpha: Double) -> Double {
            stored = hasRaw ? alpha * v + (1 - alpha) * stored : v
            raw = v
            hasRaw = true
            return stored
        }
    }
}

/// The visibility low-pass MediaPipe applies next to the one-euro filters (MODELS.md §10.3):
/// `vis = α·new + (1 − α)·prev` with α = 0.1; the first sample passes through.
public struct VisibilitySmoothing: Sendable, Hashable {
    public let alpha: Double
    private var previous: Double?

    public init(alpha: Double = 0.1) {
        self.alpha = alpha
    }

    public mutating func filter(_ v: Double) -> Double {
        let out = previous.map { alpha * v + (1 - alpha) * $0 } ?? v
        previous = out
        return out
    }

    public mutating func reset() { previous = nil }
}

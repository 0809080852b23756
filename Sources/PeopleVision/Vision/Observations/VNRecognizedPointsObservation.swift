import Foundation

/// An observation made of named points in named groups, as Apple's `VNRecognizedPointsObservation`: the base of
/// ``VNHumanBodyPoseObservation`` and ``VNHumanHandPoseObservation``.
///
/// Points are normalized to the image (the request's region of interest, when one is set) with a lower-left
/// origin. Every supported point is present; a point the model could not place reliably has a low or zero
/// confidence (see the concrete observation) rather than being left out.
open class VNRecognizedPointsObservation: VNObservation, @unchecked Sendable {
    /// Keys in the observation's order, with their points.
    let orderedPoints: [VNRecognizedPoint]
    private let pointsByKey: [VNRecognizedPointKey: VNRecognizedPoint]
    /// The groups in order, with their members in order.
    let groups: RecognizedPointGroups

    init(points: [VNRecognizedPoint], groups: RecognizedPointGroups, confidence: VNConfidence, requestRevision: Int) {
        orderedPoints = points
        var byKey: [VNRecognizedPointKey: VNRecognizedPoint] = [:]
        for p in points { byKey[p.identifier] = p }
        pointsByKey = byKey
        self.groups = groups
        super.init(confidence: confidence, requestRevision: requestRevision)
    }

    /// The keys of every point of this observation, in the framework's order.
    public var availableKeys: [VNRecognizedPointKey] { orderedPoints.map(\.identifier) }

    /// The keys of every group of this observation (`.all` last).
    public var availableGroupKeys: [VNRecognizedPointGroupKey] { groups.groupKeys }

    /// The point named `pointKey`.
    /// - Throws: an `NSError` in ``VNErrorDomain`` with code ``VNErrorCode/invalidArgument`` when the observation
    ///   has no such point (Apple does not document the code).
    public func recognizedPoint(forKey pointKey: VNRecognizedPointKey) throws -> VNRecognizedPoint {
        guard let p = pointsByKey[pointKey] else {
            throw NSError(vision: .invalidArgument, "no point named '\(pointKey.rawValue)'; available: \(availableKeys.map(\.rawValue))")
        }
        return p
    }

    /// The points of the group `groupKey`, by key (`.all` gives every point).
    /// - Throws: ``VNErrorCode/invalidArgument`` for a group the observation does not have.
    public func recognizedPoints(forGroupKey groupKey: VNRecognizedPointGroupKey) throws -> [VNRecognizedPointKey: VNRecognizedPoint] {
        var result: [VNRecognizedPointKey: VNRecognizedPoint] = [:]
        for k in try groups.keys(of: groupKey, noun: "point group") { result[k] = pointsByKey[k] }
        return result
    }

    /// The points of a group keyed by a typed name (the body's and hand's `recognizedPoints(_:)`).
    func recognizedPoints<Name: RawRepresentable & Hashable>(
        forGroupKey groupKey: VNRecognizedPointGroupKey, keyedAs _: Name.Type
    ) throws -> [Name: VNRecognizedPoint] where Name.RawValue == VNRecognizedPointKey {
        var result: [Name: VNRecognizedPoint] = [:]
        for (k, p) in try recognizedPoints(forGroupKey: groupKey) {
            if let name = Name(rawValue: k) { result[name] = p }
        }
        return result
    }

    /// The points as a `[1, 3, N]` array of doubles: row 0 x, row 1 y, row 2 confidence, one column per point
    /// (the concrete observation documents the column order).
    /// - Throws: never for body and hand observations; declared throwing as Apple's is.
    open func keypointsMultiArray() throws -> MLMultiArray {
        multiArray(columns: orderedPoints.map { ($0.x, $0.y, Double($0.confidence)) })
    }

    /// Builds the `[1, 3, columns.count]` array.
    func multiArray(columns: [(x: Double, y: Double, confidence: Double)]) -> MLMultiArray {
        let n = columns.count
        var values = [Double](repeating: 0, count: 3 * n)
        for (i, c) in columns.enumerated() {
            values[i] = c.x
            values[n + i] = c.y
            values[2 * n + i] = c.confidence
        }
        return MLMultiArray(shape: [1, 3, n], values: values)
    }
}

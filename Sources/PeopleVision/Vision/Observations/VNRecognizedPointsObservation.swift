import Foundation

/// An observation made of named points in named groups, as Apple's `VNRecognizedPointsObservation`: the base of
/// ``VNHumanBodyPoseObservation`` and ``VNHumanHandPoseObservation``.
///
/// Points are normalized to the image (the request's region of interest, when one is set) with a lower-left
/// origin. Every supported point is present; a point the model could not place reliably has a low or zero
/// confidence (see the concrete observation) rather than being left out.
open class VNRecognizedPointsObservation: VNObservation, @unchecked Sendable {
    /// The points in the observation's order, and its groups.
    private let table: RecognizedPointTable<VNRecognizedPoint>

    init(points: [VNRecognizedPoint], groups: RecognizedPointGroups, confidence: VNConfidence, requestRevision: Int) {
        table = RecognizedPointTable(points, groups: groups, noun: "point")
        super.init(confidence: confidence, requestRevision: requestRevision)
    }

    /// The keys of every point of this observation, in the framework's order.
    public var availableKeys: [VNRecognizedPointKey] { table.keys }

    /// The points, in the framework's order.
    var orderedPoints: [VNRecognizedPoint] { table.ordered }

    /// The keys of every group of this observation (`.all` last).
    public var availableGroupKeys: [VNRecognizedPointGroupKey] { table.groups.groupKeys }

    /// The point named `pointKey`.
    /// - Throws: an `NSError` in ``VNErrorDomain`` with code ``VNErrorCode/invalidArgument`` when the observation
    ///   has no such point (Apple does not document the code).
    public func recognizedPoint(forKey pointKey: VNRecognizedPointKey) throws -> VNRecognizedPoint {
        try table.point(forKey: pointKey)
    }

    /// The points of the group `groupKey`, by key (`.all` gives every point).
    /// - Throws: ``VNErrorCode/invalidArgument`` for a group the observation does not have.
    public func recognizedPoints(forGroupKey groupKey: VNRecognizedPointGroupKey) throws -> [VNRecognizedPointKey: VNRecognizedPoint] {
        try table.points(inGroup: groupKey)
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

import Foundation

/// The named groups of a points observation (2-D or 3-D), in order, each with its members' keys in order (kept in
/// the observation's ``RecognizedPointTable``).
struct RecognizedPointGroups: Sendable {
    let members: [(group: VNRecognizedPointGroupKey, keys: [VNRecognizedPointKey])]

    /// The groups of a pose's typed table (its `JointsGroupName.members`).
    init<Group: RawRepresentable, Name: RawRepresentable>(_ table: [(Group, [Name])])
    where Group.RawValue == VNRecognizedPointGroupKey, Name.RawValue == VNRecognizedPointKey {
        members = table.map { ($0.0.rawValue, $0.1.map(\.rawValue)) }
    }

    /// The groups' keys, in order.
    var groupKeys: [VNRecognizedPointGroupKey] { members.map(\.group) }

    /// The member keys of `groupKey`.
    /// - Throws: ``VNErrorCode/invalidArgument`` for a group not here, naming it as a `noun` ("point group").
    func keys(of groupKey: VNRecognizedPointGroupKey, noun: String) throws -> [VNRecognizedPointKey] {
        guard let keys = members.first(where: { $0.group == groupKey })?.keys else {
            throw NSError(vision: .invalidArgument, "no \(noun) named '\(groupKey.rawValue)'; available: \(groupKeys.map(\.rawValue))")
        }
        return keys
    }
}

/// A point that names itself: ``VNRecognizedPoint`` and ``VNRecognizedPoint3D``.
protocol NamedPoint {
    var identifier: VNRecognizedPointKey { get }
}

extension VNRecognizedPoint: NamedPoint {}
extension VNRecognizedPoint3D: NamedPoint {}

/// The named points of a points observation (2-D or 3-D) in order, with its groups: what the observation's
/// point and group queries answer from. `noun` names its points in errors ("point", "3D point").
struct RecognizedPointTable<Point: NamedPoint> {
    let ordered: [Point]
    private let byKey: [VNRecognizedPointKey: Point]
    let groups: RecognizedPointGroups
    private let noun: String

    init(_ points: [Point], groups: RecognizedPointGroups, noun: String) {
        ordered = points
        var byKey: [VNRecognizedPointKey: Point] = [:]
        for p in points { byKey[p.identifier] = p }
        self.byKey = byKey
        self.groups = groups
        self.noun = noun
    }

    /// The points' keys, in order.
    var keys: [VNRecognizedPointKey] { ordered.map(\.identifier) }

    /// The point named `key`.
    /// - Throws: ``VNErrorCode/invalidArgument`` when there is none.
    func point(forKey key: VNRecognizedPointKey) throws -> Point {
        guard let p = byKey[key] else {
            throw NSError(vision: .invalidArgument, "no \(noun) named '\(key.rawValue)'; available: \(keys.map(\.rawValue))")
        }
        return p
    }

    /// The points of the group `groupKey`, by key.
    /// - Throws: ``VNErrorCode/invalidArgument`` for a group not here.
    func points(inGroup groupKey: VNRecognizedPointGroupKey) throws -> [VNRecognizedPointKey: Point] {
        var result: [VNRecognizedPointKey: Point] = [:]
        for k in try groups.keys(of: groupKey, noun: "\(noun) group") { result[k] = byKey[k] }
        return result
    }
}

